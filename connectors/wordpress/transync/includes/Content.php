<?php
/**
 * Posts as units, inside WordPress: which posts are translated, their unit keys, their
 * segments, and writing translations as linked drafts (Mapping does the merge).
 *
 * Post meta: on a source post `_transync_pushed` (its segments as last pushed: the `previous` of
 * the next split) and `_transync_state` (per language, the service's counts at the last look);
 * on a translated post `_transync_source`, `_transync_written` and `_transync_conflicts`.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The WordPress side of the mapping.
 */
final class Content {

	/**
	 * True while the plugin writes a translated post (its own writes are not editors' actions).
	 *
	 * @var bool
	 */
	public static bool $writing = false;

	/**
	 * A post's unit key: its post type (`-` as `_`) and its id, `post:42`.
	 *
	 * @param \WP_Post $post The post.
	 */
	public static function unit_key( \WP_Post $post ): string {
		return str_replace( '-', '_', $post->post_type ) . ':' . $post->ID;
	}

	/**
	 * The post id in a unit key.
	 *
	 * @param string $unit The unit key.
	 */
	public static function post_id( string $unit ): int {
		$at = strrpos( $unit, ':' );
		return false === $at ? 0 : (int) substr( $unit, $at + 1 );
	}

	/**
	 * Whether a post's type is translated.
	 *
	 * @param \WP_Post $post The post.
	 */
	public static function tracked_type( \WP_Post $post ): bool {
		return in_array( $post->post_type, State::settings()['post_types'], true );
	}

	/**
	 * Whether a post is a source: a translated type, in the source language.
	 *
	 * @param \WP_Post $post The post.
	 */
	public static function is_source( \WP_Post $post ): bool {
		$languages = Plugin::languages();
		return null !== $languages && self::tracked_type( $post ) && $languages->of( $post->ID ) === $languages->source();
	}

	/**
	 * The source a translated post belongs to, or null.
	 *
	 * @param \WP_Post $post The post.
	 */
	public static function source_of( \WP_Post $post ): ?\WP_Post {
		$languages = Plugin::languages();
		if ( null === $languages || ! self::tracked_type( $post ) ) {
			return null;
		}
		$language = $languages->of( $post->ID );
		if ( null === $language || $language === $languages->source() ) {
			return null;
		}
		$source_id = $languages->translations( $post->ID )[ $languages->source() ] ?? (int) get_post_meta( $post->ID, '_transync_source', true );
		$source    = $source_id ? get_post( $source_id ) : null;
		return $source instanceof \WP_Post ? $source : null;
	}

	/**
	 * A post's fields as the mapping reads them.
	 *
	 * @param \WP_Post $post The post.
	 * @return array{title:string, excerpt:string, content:string}
	 */
	public static function fields( \WP_Post $post ): array {
		return array(
			'title'   => (string) $post->post_title,
			'excerpt' => (string) $post->post_excerpt,
			'content' => self::content( $post ),
		);
	}

	/**
	 * The content to split: block markup as it is; classic content (no blocks, no paragraphs)
	 * through wpautop, as WordPress shows it, so its paragraphs are segments.
	 *
	 * @param \WP_Post $post The post.
	 */
	private static function content( \WP_Post $post ): string {
		$content = (string) $post->post_content;
		if ( '' !== $content && ! has_blocks( $content ) && false === stripos( $content, '<p' ) ) {
			return wpautop( $content );
		}
		return $content;
	}

	/**
	 * A JSON post meta value.
	 *
	 * @param int    $post_id The post.
	 * @param string $key     The meta key.
	 * @return array<mixed>|null
	 */
	public static function meta( int $post_id, string $key ): ?array {
		$value = get_post_meta( $post_id, $key, true );
		if ( ! is_string( $value ) || '' === $value ) {
			return null;
		}
		$decoded = json_decode( $value, true );
		return is_array( $decoded ) ? $decoded : null;
	}

	/**
	 * Stores a JSON post meta value (slashed: update_post_meta unslashes).
	 *
	 * @param int        $post_id The post.
	 * @param string     $key     The meta key.
	 * @param array|null $value   The value (null deletes it).
	 */
	public static function set_meta( int $post_id, string $key, ?array $value ): void {
		if ( null === $value ) {
			delete_post_meta( $post_id, $key );
			return;
		}
		update_post_meta( $post_id, $key, wp_slash( (string) wp_json_encode( $value ) ) );
	}

	/**
	 * The source post's unit now, split with its last pushed blocks as `previous`.
	 *
	 * @param \WP_Post $post The source.
	 * @return array<string, mixed>
	 */
	public static function unit( \WP_Post $post ): array {
		$pushed = self::meta( $post->ID, '_transync_pushed' ) ?? array();
		return Mapping::unit( self::fields( $post ), State::settings()['fields'], Mapping::previous( $pushed ) );
	}

	/**
	 * The source's translation in a language (not trashed), or null.
	 *
	 * @param \WP_Post $source   The source.
	 * @param string   $language The language.
	 */
	public static function translation( \WP_Post $source, string $language ): ?\WP_Post {
		$languages = Plugin::languages();
		$id        = $languages ? ( $languages->translations( $source->ID )[ $language ] ?? 0 ) : 0;
		$post      = $id ? get_post( $id ) : null;
		return $post instanceof \WP_Post && 'trash' !== $post->post_status ? $post : null;
	}

	/**
	 * The plugin's own drafts of a source (post meta `_transync_source`, not trashed), by
	 * language, the newest where there are several.
	 *
	 * @param int $source_id The source.
	 * @return array<string, int>
	 */
	public static function own_drafts( int $source_id ): array {
		$languages = Plugin::languages();
		if ( null === $languages ) {
			return array();
		}
		$ids = get_posts(
			array(
				'post_type'        => (string) get_post_type( $source_id ),
				'post_status'      => 'any',
				'lang'             => '', // Every language (Polylang filters queries by language otherwise).
				'meta_key'         => '_transync_source', // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key -- the plugin's drafts of one post: a handful of rows.
				'meta_value'       => (string) $source_id, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_value
				'fields'           => 'ids',
				'posts_per_page'   => 100,
				'orderby'          => 'ID',
				'order'            => 'ASC',
				'no_found_rows'    => true,
				'suppress_filters' => true,
			)
		);
		$out = array();
		foreach ( $ids as $id ) {
			$language = $languages->of( (int) $id );
			if ( null !== $language && $language !== $languages->source() ) {
				$out[ $language ] = (int) $id;
			}
		}
		return $out;
	}

	/**
	 * The post a result in a language is written into: the linked translation; else the plugin's
	 * own draft of that language, unlinked by something else (Polylang's box saved from a screen
	 * loaded before the draft came, or two saves at once), linked again; else null (a new draft).
	 *
	 * @param \WP_Post $source   The source.
	 * @param string   $language The language.
	 */
	public static function translation_to_write( \WP_Post $source, string $language ): ?\WP_Post {
		$linked = self::translation( $source, $language );
		$ids    = Plugin::languages() ? Plugin::languages()->translations( $source->ID ) : array();
		if ( $linked || isset( $ids[ $language ] ) ) {
			return $linked;
		}
		$own = self::own_drafts( $source->ID )[ $language ] ?? 0;
		if ( ! $own ) {
			return null;
		}
		Plugin::languages()->link( $source->ID, $own, $language );
		return get_post( $own );
	}

	/**
	 * Writes one unit's results in one language into the translated post: a new draft linked
	 * to the source, or the existing post through Mapping::merge. Never publishes.
	 *
	 * @param \WP_Post              $source   The source.
	 * @param string                $language The language.
	 * @param array<string, string> $results  New texts by segment key.
	 * @param array<string, array>  $ids      Result ids by segment key (kept with a conflict).
	 * @param callable              $earlier  Answers the service's current translations in that language (called only when needed).
	 * @return int The translated post's id.
	 * @throws \RuntimeException When WordPress refuses the write.
	 */
	public static function write( \WP_Post $source, string $language, array $results, array $ids, callable $earlier ): int {
		$unit     = self::unit( $source );
		$target   = self::translation_to_write( $source, $language );
		$current  = $target ? self::fields( $target ) : null;
		$written  = $target ? self::meta( $target->ID, '_transync_written' ) : null;
		$missing  = null === $target;
		$needs    = $missing;
		foreach ( $unit['segments'] as $s ) {
			if ( ! isset( $results[ $s['key'] ] ) && ! isset( ( $written['texts'] ?? array() )[ substr( $s['key'], 8 ) ] ) && 0 === strpos( $s['key'], 'content.' ) ) {
				$needs = true;
			}
		}
		$merge = Mapping::merge( $unit, $results, $needs ? $earlier() : array(), $current, $written, $target && 'publish' === $target->post_status );

		self::$writing = true;
		try {
			if ( $missing ) {
				$id = wp_insert_post(
					wp_slash(
						array(
							'post_type'    => $source->post_type,
							'post_status'  => 'draft',
							'post_author'  => (int) $source->post_author,
							'post_parent'  => 0,
							'post_title'   => $merge['fields']['title'] ?? '',
							'post_excerpt' => $merge['fields']['excerpt'] ?? '',
							'post_content' => $merge['fields']['content'] ?? '',
							'meta_input'   => array( '_transync_source' => $source->ID ), // Before it is linked: findable as the plugin's at once.
						)
					),
					true
				);
				if ( is_wp_error( $id ) ) {
					throw new \RuntimeException( $id->get_error_message() );
				}
				Plugin::languages()->link( $source->ID, (int) $id, $language );
				$target = get_post( (int) $id );
			} elseif ( $merge['fields'] ) {
				$update = array( 'ID' => $target->ID );
				foreach ( $merge['fields'] as $field => $value ) {
					$update[ 'post_' . $field ] = $value;
				}
				$done = wp_update_post( wp_slash( $update ), true );
				if ( is_wp_error( $done ) ) {
					throw new \RuntimeException( $done->get_error_message() );
				}
			}
		} finally {
			self::$writing = false;
		}
		if ( null !== $merge['written'] ) {
			$fresh                       = get_post( $target->ID );
			$merge['written']['content'] = isset( $merge['fields']['content'] ) && $fresh ? self::fields( $fresh )['content'] : $merge['written']['content'];
			self::set_meta( $target->ID, '_transync_written', $merge['written'] );
		}
		$conflicts = self::meta( $target->ID, '_transync_conflicts' ) ?? array();
		$keys      = array_flip( array_column( $unit['segments'], 'key' ) );
		$conflicts = array_filter( $conflicts, static fn( $k ) => isset( $keys[ $k ] ) || 'content' === $k, ARRAY_FILTER_USE_KEY );
		foreach ( $merge['conflicts'] as $key => $text ) {
			$conflicts[ $key ] = array(
				'text'   => $text,
				'result' => $ids[ $key ] ?? null,
				'at'     => time(),
			);
		}
		self::set_meta( $target->ID, '_transync_conflicts', $conflicts ? $conflicts : null );
		return $target->ID;
	}

	/**
	 * An editor's decision on conflicts: `take` writes the waiting machine texts into the post,
	 * `keep` drops them. Answers the post's fields after it.
	 *
	 * @param \WP_Post $target The translated post.
	 * @param string   $choice `take` or `keep`.
	 * @param string   $key    One conflict's key, or '' for all.
	 */
	public static function resolve( \WP_Post $target, string $choice, string $key = '' ): void {
		$conflicts = self::meta( $target->ID, '_transync_conflicts' ) ?? array();
		$chosen    = '' === $key ? $conflicts : array_intersect_key( $conflicts, array( $key => true ) );
		if ( ! $chosen ) {
			return;
		}
		if ( 'take' === $choice ) {
			$written = self::meta( $target->ID, '_transync_written' ) ?? array(
				'keys'  => array(),
				'texts' => array(),
			);
			$fields  = self::fields( $target );
			$update  = array();
			if ( isset( $chosen['content'] ) ) {
				$update['content'] = $chosen['content']['text'];
				$source            = self::source_of( $target );
				if ( $source ) {
					$unit             = self::unit( $source );
					$written['keys']  = array_map( static fn( $s ) => $s['key'], $unit['content'] ? $unit['content']->segments : array() );
					$written['texts'] = Mapping::lined_up( $update['content'], $written['keys'], null ) ?? array();
				}
			}
			foreach ( array( 'title', 'excerpt' ) as $field ) {
				if ( isset( $chosen[ $field ] ) ) {
					$update[ $field ]  = $chosen[ $field ]['text'];
					$written[ $field ] = $chosen[ $field ]['text'];
				}
			}
			$blocks = array();
			foreach ( $chosen as $k => $c ) {
				if ( 0 === strpos( $k, 'content.' ) ) {
					$blocks[ substr( $k, 8 ) ] = $c['text'];
				}
			}
			if ( $blocks && ! isset( $update['content'] ) ) {
				$split = \Transync\Split\Html::split( $fields['content'] );
				if ( count( $split->segments ) === count( (array) ( $written['keys'] ?? array() ) ) ) {
					$by_key = array();
					foreach ( (array) $written['keys'] as $i => $source_key ) {
						if ( isset( $blocks[ $source_key ] ) ) {
							$by_key[ $split->segments[ $i ]['key'] ] = $blocks[ $source_key ];
							$written['texts'][ $source_key ]         = $blocks[ $source_key ];
						}
					}
					$update['content'] = \Transync\Split\Html::join( $split, $by_key );
				}
			}
			if ( $update ) {
				$post = array( 'ID' => $target->ID );
				foreach ( $update as $field => $value ) {
					$post[ 'post_' . $field ] = $value;
				}
				self::$writing = true;
				try {
					wp_update_post( wp_slash( $post ) );
				} finally {
					self::$writing = false;
				}
				$fresh = get_post( $target->ID );
				if ( $fresh ) {
					$written['content'] = self::fields( $fresh )['content'];
				}
				self::set_meta( $target->ID, '_transync_written', $written );
			}
		}
		$left = array_diff_key( $conflicts, $chosen );
		self::set_meta( $target->ID, '_transync_conflicts', $left ? $left : null );
		$fresh = get_post( $target->ID );
		if ( $fresh && 'publish' === $fresh->post_status ) {
			Hooks::queue_review( $fresh, 'approved' ); // The published text stands: what the editor chose.
		}
	}

	/**
	 * Per language, what editors see: `conflict`, `translating`, `stale`, `review`, `missing`,
	 * `ok`, or `none` (not sent yet).
	 *
	 * @param \WP_Post $source The source.
	 * @return array<string, array{state:string, post:int}>
	 */
	public static function states( \WP_Post $source ): array {
		$languages = Plugin::languages();
		if ( null === $languages ) {
			return array();
		}
		$counts = self::meta( $source->ID, '_transync_state' ) ?? array();
		$queued = Queue::has_push( self::unit_key( $source ) );
		$jobs   = (int) ( State::get( State::JOBS )['active'] ?? 0 );
		$out    = array();
		foreach ( $languages->all() as $language ) {
			if ( $language === $languages->source() ) {
				continue;
			}
			$target = self::translation( $source, $language );
			$c      = $counts['languages'][ $language ] ?? null;
			if ( $target && self::meta( $target->ID, '_transync_conflicts' ) ) {
				$state = 'conflict';
			} elseif ( $queued || ( is_array( $c ) && ( $c['missing'] + $c['stale'] ) > 0 && $jobs > 0 ) ) {
				$state = 'translating';
			} elseif ( ! is_array( $c ) ) {
				$state = isset( $counts['languages'] ) ? 'ok' : 'none';
			} elseif ( $c['stale'] > 0 ) {
				$state = 'stale';
			} elseif ( $c['missing'] > 0 ) {
				$state = 'missing';
			} elseif ( $c['review'] > 0 || $c['attention'] > 0 ) {
				$state = 'review';
			} else {
				$state = 'ok';
			}
			$out[ $language ] = array(
				'state' => $state,
				'post'  => $target ? $target->ID : 0,
			);
		}
		return $out;
	}
}
