<?php
/**
 * The plugin's drafts stay linked to their source.
 *
 * Polylang's Languages box (on every edit screen) posts the translations it showed when the
 * screen was loaded (`post_tr_lang`), and Polylang saves that list as the post's translations.
 * The block editor posts that box after every save: publishing an English post (its drafts come
 * within seconds, while the screen is still open), or updating it from a screen opened before its
 * drafts came, would unlink the German and French drafts, and the next result would write a
 * second draft beside the orphan. So:
 * - the plugin's box carries the translations the screen showed (`transync_seen`);
 * - after Polylang has saved the box (`load-post.php`, priority 11 after its 10), a draft of the
 *   plugin's (post meta `_transync_source`) that is not linked any more although the screen never
 *   showed it is linked again; one the screen showed and the editor removed stays removed, and
 *   stops being the plugin's (its `_transync_source` goes: the next result writes a new draft);
 * - writing a result, the plugin finds its own unlinked draft before it creates another
 *   (Content::translation_to_write), which also mends a link lost to two saves at once.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * Links kept across Polylang's Languages box.
 */
final class Links {

	/**
	 * Registers the hook after Polylang's own (Polylang saves its box on `load-post.php`, at 10).
	 */
	public static function register(): void {
		add_action( 'load-post.php', array( self::class, 'after_box_saved' ), 11 );
	}

	/**
	 * After Polylang saved its box: the plugin's drafts it dropped unseen are linked again.
	 */
	public static function after_box_saved(): void {
		// phpcs:disable WordPress.Security.NonceVerification.Missing -- Polylang verified its nonce (check_admin_referer) before saving, at priority 10; nothing is done without its box and ours.
		if ( ! isset( $_POST['transync_seen'], $_POST['post_tr_lang'], $_POST['post_ID'], $_POST['_pll_nonce'] ) ) {
			return;
		}
		$post_id = absint( $_POST['post_ID'] );
		$seen    = self::parse_seen( sanitize_text_field( wp_unslash( $_POST['transync_seen'] ) ) );
		$posted  = array_map( 'absint', (array) wp_unslash( $_POST['post_tr_lang'] ) ); // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- absint.
		// phpcs:enable
		$languages = Plugin::languages();
		if ( null === $languages || ! $post_id || ! current_user_can( 'edit_post', $post_id ) || ! wp_verify_nonce( sanitize_key( wp_unslash( $_POST['_pll_nonce'] ) ), 'pll_language' ) ) {
			return;
		}
		$language = $languages->of( $post_id );
		if ( null === $language || ( $seen[ $language ] ?? 0 ) !== $post_id ) {
			return; // The post changed language in this save: the editor's choice stands.
		}
		$after     = $languages->translations( $post_id );
		$source    = $languages->source();
		$source_id = $language === $source ? $post_id : (int) ( $after[ $source ] ?? 0 );
		if ( ! $source_id ) {
			return;
		}
		$decision = self::decide( Content::own_drafts( $source_id ), $after, $seen, $posted );
		foreach ( $decision['relink'] as $lang => $id ) {
			$languages->link( $source_id, $id, $lang );
		}
		foreach ( $decision['released'] as $id ) {
			delete_post_meta( $id, '_transync_source' );
		}
	}

	/**
	 * What to do with the plugin's drafts after Polylang saved the box: `relink` those the
	 * screen never showed and that are not linked now (unless the editor chose another post for
	 * that language); `released`, those the screen showed and the editor removed.
	 *
	 * @param array<string, int> $own    The plugin's drafts of the source, by language.
	 * @param array<string, int> $after  The translations after the save.
	 * @param array<string, int> $seen   What the screen showed when it was loaded.
	 * @param array<string, int> $posted What the box posted (0 for none).
	 * @return array{relink: array<string, int>, released: int[]}
	 */
	public static function decide( array $own, array $after, array $seen, array $posted ): array {
		$out = array(
			'relink'   => array(),
			'released' => array(),
		);
		foreach ( $own as $lang => $id ) {
			if ( isset( $after[ $lang ] ) || ! empty( $posted[ $lang ] ) ) {
				continue;
			}
			if ( ( $seen[ $lang ] ?? 0 ) === $id ) {
				$out['released'][] = $id;
			} else {
				$out['relink'][ $lang ] = $id;
			}
		}
		return $out;
	}

	/**
	 * `de:12 fr:13` (the box's hidden field) as `['de' => 12, 'fr' => 13]`.
	 *
	 * @param string $value The field.
	 * @return array<string, int>
	 */
	public static function parse_seen( string $value ): array {
		$out = array();
		foreach ( preg_split( '/\s+/', trim( $value ) ) ?: array() as $pair ) {
			if ( preg_match( '/^([a-z0-9_-]+):(\d+)$/i', $pair, $m ) ) {
				$out[ $m[1] ] = (int) $m[2];
			}
		}
		return $out;
	}

	/**
	 * The hidden field of the plugin's box: the translations this screen shows.
	 *
	 * @param int $post_id The post.
	 */
	public static function seen_field( int $post_id ): string {
		$languages = Plugin::languages();
		$pairs     = array();
		foreach ( $languages ? $languages->translations( $post_id ) : array() as $lang => $id ) {
			$pairs[] = $lang . ':' . $id;
		}
		return sprintf( '<input type="hidden" name="transync_seen" value="%s">', esc_attr( implode( ' ', $pairs ) ) );
	}
}
