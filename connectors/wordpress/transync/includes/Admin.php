<?php
/**
 * What editors see: a Transync column in the posts lists, a box on the edit screen (per
 * language: up to date, translating, in review, stale, conflict; the conflicts with “take the
 * new translation” and “keep mine”), a notice when the service cannot be used; and the actions
 * behind their buttons (admin-post.php, each with its nonce and capability check).
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The admin screens of posts.
 */
final class Admin {

	/**
	 * Registers the hooks.
	 */
	public static function register(): void {
		add_action( 'admin_init', array( self::class, 'columns' ) );
		add_action( 'add_meta_boxes', array( self::class, 'meta_box' ) );
		add_action( 'admin_notices', array( self::class, 'notice' ) );
		add_action( 'admin_enqueue_scripts', array( self::class, 'styles' ) );
		add_action( 'admin_post_transync_resolve', array( self::class, 'resolve' ) );
		add_action( 'admin_post_transync_translate', array( self::class, 'translate' ) );
	}

	/**
	 * The labels of the states.
	 *
	 * @return array<string, string>
	 */
	public static function labels(): array {
		return array(
			'ok'          => __( 'Up to date', 'transync' ),
			'translating' => __( 'Translating', 'transync' ),
			'review'      => __( 'In review', 'transync' ),
			'stale'       => __( 'Stale', 'transync' ),
			'conflict'    => __( 'Conflict', 'transync' ),
			'missing'     => __( 'Not translated', 'transync' ),
			'none'        => __( 'Not sent yet', 'transync' ),
		);
	}

	/**
	 * The plugin's stylesheet on the screens it adds to.
	 *
	 * @param string $hook The screen.
	 */
	public static function styles( string $hook ): void {
		if ( in_array( $hook, array( 'edit.php', 'post.php', 'post-new.php', 'settings_page_transync' ), true ) ) {
			wp_enqueue_style( 'transync-admin', plugins_url( 'assets/admin.css', TRANSYNC_FILE ), array(), TRANSYNC_VERSION );
		}
	}

	/**
	 * The column on the lists of the translated post types.
	 */
	public static function columns(): void {
		foreach ( State::settings()['post_types'] as $type ) {
			add_filter(
				"manage_{$type}_posts_columns",
				static function ( array $columns ): array {
					$columns['transync'] = __( 'Transync', 'transync' );
					return $columns;
				}
			);
			$hook = 'page' === $type ? 'manage_pages_custom_column' : ( 'post' === $type ? 'manage_posts_custom_column' : "manage_{$type}_posts_custom_column" );
			add_action( $hook, array( self::class, 'column' ), 10, 2 );
		}
	}

	/**
	 * One cell: per language a badge, linked to the translation when there is one.
	 *
	 * @param string $column  The column.
	 * @param int    $post_id The post.
	 */
	public static function column( string $column, int $post_id ): void {
		if ( 'transync' !== $column ) {
			return;
		}
		$post = get_post( $post_id );
		if ( ! $post instanceof \WP_Post ) {
			return;
		}
		if ( ! Content::is_source( $post ) ) {
			$source = Content::source_of( $post );
			if ( $source ) {
				$conflicts = Content::meta( $post->ID, '_transync_conflicts' );
				echo $conflicts ? self::badge( 'conflict', '' ) : '<span class="transync-muted">' . esc_html__( 'Translation', 'transync' ) . '</span>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- badge() escapes.
			}
			return;
		}
		echo '<ul class="transync-badges">';
		foreach ( Content::states( $post ) as $language => $s ) {
			$badge = self::badge( $s['state'], $language );
			if ( $s['post'] && current_user_can( 'edit_post', $s['post'] ) ) {
				$badge = sprintf( '<a href="%s">%s</a>', esc_url( (string) get_edit_post_link( $s['post'] ) ), $badge );
			}
			echo '<li>' . $badge . '</li>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- built from escaped parts.
		}
		echo '</ul>';
	}

	/**
	 * A state's badge.
	 *
	 * @param string $state    The state.
	 * @param string $language The language ('' for none).
	 */
	public static function badge( string $state, string $language ): string {
		$label = self::labels()[ $state ] ?? $state;
		return sprintf(
			'<span class="transync-badge transync-%1$s">%2$s%3$s</span>',
			esc_attr( $state ),
			'' === $language ? '' : '<strong>' . esc_html( strtoupper( $language ) ) . '</strong> ',
			esc_html( $label )
		);
	}

	/**
	 * The edit screen's box.
	 *
	 * @param string $post_type The post type.
	 */
	public static function meta_box( string $post_type ): void {
		if ( in_array( $post_type, State::settings()['post_types'], true ) ) {
			add_meta_box( 'transync', __( 'Transync', 'transync' ), array( self::class, 'box' ), $post_type, 'side', 'high' );
		}
	}

	/**
	 * The box: a source's languages, or a translation's state and its conflicts.
	 *
	 * @param \WP_Post $post The post.
	 */
	public static function box( \WP_Post $post ): void {
		if ( Plugin::languages() instanceof Polylang ) {
			echo Links::seen_field( $post->ID ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- escaped there.
		}
		if ( Content::is_source( $post ) ) {
			self::source_box( $post );
			return;
		}
		$source = Content::source_of( $post );
		if ( ! $source ) {
			echo '<p>' . esc_html__( 'This post is not in the source language, nor a translation of one.', 'transync' ) . '</p>';
			return;
		}
		self::translation_box( $post, $source );
	}

	/**
	 * The box of a source post.
	 *
	 * @param \WP_Post $post The source.
	 */
	private static function source_box( \WP_Post $post ): void {
		$states = Content::states( $post );
		echo '<table class="transync-languages"><caption class="screen-reader-text">' . esc_html__( 'Translations by language', 'transync' ) . '</caption><tbody>';
		foreach ( $states as $language => $s ) {
			$name = esc_html( strtoupper( $language ) );
			if ( $s['post'] && current_user_can( 'edit_post', $s['post'] ) ) {
				$name = sprintf( '<a href="%s">%s</a>', esc_url( (string) get_edit_post_link( $s['post'] ) ), $name );
			}
			printf( '<tr><th scope="row">%s</th><td>%s</td></tr>', $name, self::badge( $s['state'], '' ) ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- built from escaped parts.
		}
		echo '</tbody></table>';
		if ( 'publish' !== $post->post_status ) {
			echo '<p class="transync-muted">' . esc_html__( 'Sent for translation when published.', 'transync' ) . '</p>';
			return;
		}
		$meta = Content::meta( $post->ID, '_transync_state' );
		if ( ! empty( $meta['dashboard'] ) ) {
			printf( '<p><a href="%s" target="_blank" rel="noopener">%s</a></p>', esc_url( (string) $meta['dashboard'] ), esc_html__( 'Open in the Transync dashboard', 'transync' ) );
		}
		if ( current_user_can( 'edit_post', $post->ID ) ) {
			self::button( 'transync_translate', $post->ID, array(), __( 'Translate now', 'transync' ) );
		}
	}

	/**
	 * The box of a translated post: its state and its conflicts.
	 *
	 * @param \WP_Post $post   The translation.
	 * @param \WP_Post $source Its source.
	 */
	private static function translation_box( \WP_Post $post, \WP_Post $source ): void {
		$language = (string) Plugin::languages()->of( $post->ID );
		$state    = Content::states( $source )[ $language ]['state'] ?? 'none';
		printf(
			'<p>%s %s</p>',
			/* translators: %s: the source post's title, linked. */
			sprintf( esc_html__( 'Translation of %s:', 'transync' ), '<a href="' . esc_url( (string) get_edit_post_link( $source->ID ) ) . '">' . esc_html( get_the_title( $source ) ) . '</a>' ), // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped
			self::badge( $state, $language ) // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped
		);
		$conflicts = Content::meta( $post->ID, '_transync_conflicts' ) ?? array();
		if ( ! $conflicts ) {
			echo '<p class="transync-muted">' . esc_html__( 'Publishing this post approves its translation; moving it to the trash rejects it.', 'transync' ) . '</p>';
			return;
		}
		echo '<div class="transync-conflicts"><p><strong>' . esc_html(
			'publish' === $post->post_status
				? __( 'A new machine translation waits beside this published post (it is never written into a published post):', 'transync' )
				: __( 'You changed this translation; a new machine translation waits beside your text:', 'transync' )
		) . '</strong></p><ul>';
		$fields = array(
			'title'   => __( 'Title', 'transync' ),
			'excerpt' => __( 'Excerpt', 'transync' ),
			'content' => __( 'The whole content (its blocks were changed here)', 'transync' ),
		);
		foreach ( $conflicts as $key => $c ) {
			$what = $fields[ $key ] ?? __( 'A paragraph', 'transync' );
			printf( '<li><span class="transync-field">%s</span><blockquote>%s</blockquote>', esc_html( $what ), esc_html( wp_trim_words( wp_strip_all_tags( (string) $c['text'] ), 40 ) ) );
			if ( current_user_can( 'edit_post', $post->ID ) ) {
				self::button( 'transync_resolve', $post->ID, array( 'choice' => 'take', 'key' => $key ), __( 'Take the new translation', 'transync' ), 'button-primary' );
				self::button( 'transync_resolve', $post->ID, array( 'choice' => 'keep', 'key' => $key ), __( 'Keep mine', 'transync' ) );
			}
			echo '</li>';
		}
		echo '</ul></div>';
	}

	/**
	 * A button posting to admin-post.php with a nonce (a link-like form: the edit screen's own
	 * form cannot hold another, so it is a link carrying the nonce).
	 *
	 * @param string               $action The action.
	 * @param int                  $post_id The post.
	 * @param array<string,string> $args   More arguments.
	 * @param string               $label  The label.
	 * @param string               $class  A button class.
	 */
	private static function button( string $action, int $post_id, array $args, string $label, string $class = 'button-secondary' ): void {
		$url = wp_nonce_url( add_query_arg( array( 'action' => $action, 'post' => $post_id ) + $args, admin_url( 'admin-post.php' ) ), $action . '_' . $post_id );
		printf( '<a class="button %s transync-button" href="%s">%s</a> ', esc_attr( $class ), esc_url( $url ), esc_html( $label ) );
	}

	/**
	 * The post an action is about, after its nonce and capability checks.
	 *
	 * @param string $action The action.
	 */
	private static function checked_post( string $action ): \WP_Post {
		$post_id = isset( $_GET['post'] ) ? absint( $_GET['post'] ) : 0; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- checked just below.
		check_admin_referer( $action . '_' . $post_id );
		$post = get_post( $post_id );
		if ( ! $post instanceof \WP_Post || ! current_user_can( 'edit_post', $post_id ) ) {
			wp_die( esc_html__( 'You are not allowed to change this post.', 'transync' ), 403 );
		}
		return $post;
	}

	/**
	 * Take the new translation, or keep mine.
	 */
	public static function resolve(): void {
		$post   = self::checked_post( 'transync_resolve' );
		$choice = isset( $_GET['choice'] ) && 'take' === $_GET['choice'] ? 'take' : 'keep'; // phpcs:ignore WordPress.Security.NonceVerification.Recommended
		$key    = isset( $_GET['key'] ) ? sanitize_text_field( wp_unslash( $_GET['key'] ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification.Recommended
		Content::resolve( $post, $choice, $key );
		wp_safe_redirect( (string) get_edit_post_link( $post->ID, 'url' ) );
		exit;
	}

	/**
	 * Translate this post now: its queued change is sent and a job for it starts.
	 */
	public static function translate(): void {
		$post = self::checked_post( 'transync_translate' );
		if ( Content::is_source( $post ) && 'publish' === $post->post_status ) {
			Queue::enqueue( 'push', Content::unit_key( $post ), $post->ID );
			Sync::instance()->run( Sync::MANUAL );
			try {
				Sync::instance()->start_job( array( 'type' => 'translate', 'units' => array( Content::unit_key( $post ) ) ), true );
			} catch ( Service_Error $e ) {
				State::error( $e->describe() );
			}
		}
		wp_safe_redirect( (string) get_edit_post_link( $post->ID, 'url' ) );
		exit;
	}

	/**
	 * The notice on every admin screen while the service cannot be used.
	 */
	public static function notice(): void {
		if ( ! current_user_can( 'edit_posts' ) ) {
			return;
		}
		$connection = State::get( State::CONNECTION );
		$state      = (string) ( $connection['state'] ?? '' );
		if ( '' === Client::key() ) {
			$message = ( new Service_Error( '', -1 ) )->describe();
		} elseif ( in_array( $state, array( 'wrong_key', 'unreachable', 'error' ), true ) ) {
			$message = (string) $connection['message'];
		} else {
			return;
		}
		$count = Queue::count();
		printf(
			'<div class="notice notice-error transync-notice"><p><strong>%s</strong> %s %s <a href="%s">%s</a></p></div>',
			esc_html__( 'Transync:', 'transync' ),
			esc_html( $message ),
			/* translators: %d: queued changes. */
			esc_html( sprintf( _n( 'Nothing is lost: %d change waits and is sent as soon as the service answers.', 'Nothing is lost: %d changes wait and are sent as soon as the service answers.', $count, 'transync' ), $count ) ),
			esc_url( admin_url( 'options-general.php?page=transync' ) ),
			esc_html__( 'Settings → Transync', 'transync' )
		);
	}
}
