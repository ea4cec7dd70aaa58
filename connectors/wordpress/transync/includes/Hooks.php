<?php
/**
 * What editors do, turned into queued tasks (nothing here calls the service, so an editor's
 * save is never slowed or failed on its account; the pass starts at the end of the request):
 * - a source post published or updated while published → push its unit;
 * - a source post unpublished, trashed or deleted → delete its unit;
 * - a translated post published → `approved` for its translations waiting for review, with
 *   the editor's text; trashed or deleted → `rejected`.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Post hooks.
 */
final class Hooks {

	/**
	 * Registers the hooks.
	 */
	public static function register(): void {
		add_action( 'wp_after_insert_post', array( self::class, 'after_save' ), 20, 4 );
		add_action( 'transition_post_status', array( self::class, 'transition' ), 20, 3 );
		add_action( 'before_delete_post', array( self::class, 'before_delete' ), 10, 2 );
		add_action( 'shutdown', array( self::class, 'kick' ) );
	}

	/**
	 * After a post and its terms (its Polylang language) are saved.
	 *
	 * @param int           $post_id     The post.
	 * @param \WP_Post      $post        The post.
	 * @param bool          $update      Whether it existed.
	 * @param \WP_Post|null $post_before The post before.
	 */
	public static function after_save( int $post_id, \WP_Post $post, bool $update, ?\WP_Post $post_before ): void {
		if ( Content::$writing || wp_is_post_revision( $post_id ) || wp_is_post_autosave( $post_id ) || ! Content::is_source( $post ) ) {
			return;
		}
		$unit = Content::unit_key( $post );
		if ( 'publish' === $post->post_status ) {
			Queue::enqueue( 'push', $unit, $post_id );
		} elseif ( ( $post_before && 'publish' === $post_before->post_status ) || Content::meta( $post_id, '_transync_pushed' ) ) {
			Queue::enqueue( 'delete', $unit, $post_id );
		}
	}

	/**
	 * A translated post published or trashed: the editor's decision.
	 *
	 * @param string   $new_status The new status.
	 * @param string   $old_status The old status.
	 * @param \WP_Post $post       The post.
	 */
	public static function transition( string $new_status, string $old_status, \WP_Post $post ): void {
		if ( Content::$writing || $new_status === $old_status ) {
			return;
		}
		if ( 'publish' === $new_status ) {
			// Polylang sets a new post's language after this hook: the review is queued once it is known.
			add_action(
				'wp_after_insert_post',
				static function ( int $post_id ) use ( $post ): void {
					if ( $post_id === $post->ID ) {
						$fresh = get_post( $post_id );
						if ( $fresh && 'publish' === $fresh->post_status ) {
							self::queue_review( $fresh, 'approved' );
						}
					}
				},
				30
			);
		} elseif ( 'trash' === $new_status ) {
			self::queue_review( $post, 'rejected' );
		}
	}

	/**
	 * A post deleted for good: a source's unit goes, a translation's results are rejected.
	 *
	 * @param int      $post_id The post.
	 * @param \WP_Post $post    The post.
	 */
	public static function before_delete( int $post_id, $post = null ): void {
		$post = $post instanceof \WP_Post ? $post : get_post( $post_id );
		if ( ! $post instanceof \WP_Post || wp_is_post_revision( $post_id ) ) {
			return;
		}
		if ( Content::is_source( $post ) ) {
			Queue::enqueue( 'delete', Content::unit_key( $post ), $post_id );
		} elseif ( 'trash' !== $post->post_status ) {
			self::queue_review( $post, 'rejected' );
		}
	}

	/**
	 * Queues an editor's decision on a translated post, with its text for an approval.
	 *
	 * @param \WP_Post $post    The translated post.
	 * @param string   $outcome `approved` or `rejected`.
	 */
	public static function queue_review( \WP_Post $post, string $outcome ): void {
		$source    = Content::source_of( $post );
		$languages = Plugin::languages();
		if ( null === $source || null === $languages ) {
			return;
		}
		$user    = wp_get_current_user();
		$payload = array(
			'language' => (string) $languages->of( $post->ID ),
			'outcome'  => $outcome,
			'reviewer' => $user && $user->exists() ? $user->user_login : '',
		);
		if ( 'approved' === $outcome ) {
			$payload['fields'] = Content::fields( $post );
		}
		Queue::enqueue( 'review', Content::unit_key( $source ), $post->ID, $payload, $payload['language'] );
	}

	/**
	 * At the end of a request that queued something: the pass starts at once in a request of
	 * its own (WP-Cron's minute is the fallback when the site cannot call itself).
	 */
	public static function kick(): void {
		if ( Queue::$queued ) {
			Rest::kick();
		}
	}
}
