<?php
/**
 * Posts ↔ units, without WordPress: a post's fields as a unit's segments, and the merge that
 * writes translations into a translated post without overwriting an editor's work.
 *
 * Segment keys: `title`, `excerpt`, and `content.<kit key>` for each text block of the content
 * (Split\Html, with the last pushed blocks as `previous`, so an edited block keeps its key).
 *
 * What the plugin wrote into a translated post is remembered (post meta `_transync_written`):
 * the fields as written, the content's segment keys in order and the machine text of each. A
 * segment whose text in the post differs from that machine text was changed by an editor: a new
 * machine text for it waits beside it (a conflict) instead of replacing it. A post whose blocks
 * an editor changed (added, removed, other markup) cannot be lined up: its content is left
 * whole and the new content waits beside it. A published post is never written to.
 *
 * @package Transync
 */

namespace Transync;

use Transync\Split\Html;
use Transync\Split\Keys;
use Transync\Split\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * The mapping.
 */
final class Mapping {

	const FIELDS = array( 'title', 'excerpt', 'content' );

	/**
	 * A post's unit: the segments to push and the content's split (keys without `content.`).
	 *
	 * @param array{title?:string, excerpt?:string, content?:string} $post     The post's fields.
	 * @param string[]                                               $fields   Which fields are translated.
	 * @param array<int, array{key:string,text:string}>              $previous The content's blocks as last pushed (keys without `content.`).
	 * @return array{segments: array<int, array<string,mixed>>, content: ?Split, title: ?string, excerpt: ?string, problems: array<int, array<string,mixed>>}
	 */
	public static function unit( array $post, array $fields, array $previous = array() ): array {
		$segments = array();
		$out      = array(
			'content'  => null,
			'title'    => null,
			'excerpt'  => null,
			'problems' => array(),
		);
		foreach ( array( 'title', 'excerpt' ) as $field ) {
			$text = (string) ( $post[ $field ] ?? '' );
			if ( ! in_array( $field, $fields, true ) || '' === Keys::js_trim( $text ) ) {
				continue;
			}
			$segments[]    = array(
				'key'    => $field,
				'text'   => $text,
				'format' => 'plain',
				'field'  => $field,
				'kind'   => $field,
			);
			$out[ $field ] = $text;
		}
		$content = (string) ( $post['content'] ?? '' );
		if ( in_array( 'content', $fields, true ) && '' !== trim( $content ) ) {
			$split = Html::split( $content, $previous );
			foreach ( $split->segments as $s ) {
				$segments[] = array(
					'key'    => 'content.' . $s['key'],
					'text'   => $s['text'],
					'format' => 'html',
					'field'  => 'content',
					'kind'   => $s['kind'],
				);
			}
			$out['content']  = $split;
			$out['problems'] = $split->problems;
		}
		foreach ( $segments as $i => $s ) {
			$segments[ $i ]['position'] = $i;
		}
		$out['segments'] = $segments;
		return $out;
	}

	/**
	 * The content's blocks of a unit as `previous` for the next split (keys without `content.`).
	 *
	 * @param array<int, array<string,mixed>> $segments A unit's segments.
	 * @return array<int, array{key:string,text:string}>
	 */
	public static function previous( array $segments ): array {
		$out = array();
		foreach ( $segments as $s ) {
			if ( 0 === strpos( (string) $s['key'], 'content.' ) ) {
				$out[] = array(
					'key'  => substr( (string) $s['key'], 8 ),
					'text' => (string) $s['text'],
				);
			}
		}
		return $out;
	}

	/**
	 * Whether two splits have the same markup around their blocks (only block texts differ).
	 *
	 * @param Split $a A split.
	 * @param Split $b A split.
	 */
	public static function same_structure( Split $a, Split $b ): bool {
		if ( count( $a->parts ) !== count( $b->parts ) || count( $a->segments ) !== count( $b->segments ) ) {
			return false;
		}
		foreach ( $a->parts as $i => $p ) {
			$q = $b->parts[ $i ];
			if ( is_string( $p ) !== is_string( $q ) || ( is_string( $p ) && $p !== $q ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The texts of a translated post's content by the source's keys, lined up in order with the
	 * keys the plugin wrote (`$keys`), or null when the blocks do not line up.
	 *
	 * @param string   $content The post's content.
	 * @param string[] $keys    The source keys, in order, of the blocks as last written.
	 * @param ?string  $written The content as last written (its markup must be the post's).
	 * @return array<string, string>|null
	 */
	public static function lined_up( string $content, array $keys, ?string $written ): ?array {
		$now = Html::split( $content );
		if ( null !== $written && ! self::same_structure( $now, Html::split( $written ) ) ) {
			return null;
		}
		if ( count( $now->segments ) !== count( $keys ) ) {
			return null;
		}
		$out = array();
		foreach ( $keys as $i => $key ) {
			$out[ $key ] = $now->segments[ $i ]['text'];
		}
		return $out;
	}

	/**
	 * Writes translations into a translated post (or a new one) without overwriting an editor's work.
	 *
	 * @param array                       $unit      The source's unit (Mapping::unit).
	 * @param array<string, string>       $results   New machine texts by segment key (`title`, `excerpt`, `content.<k>`).
	 * @param array<string, string>       $earlier   Current translations from the service for keys without a new one.
	 * @param array<string, string>|null  $current   The translated post's fields now (null: no post yet).
	 * @param array<string, mixed>|null   $written   What the plugin wrote last (null: never).
	 * @param bool                        $published Whether the translated post is published (never written to).
	 * @return array{fields: array<string, string>, conflicts: array<string, string>, written: ?array<string, mixed>}
	 */
	public static function merge( array $unit, array $results, array $earlier, ?array $current, ?array $written, bool $published ): array {
		$fields    = array();
		$conflicts = array();
		$mine      = null !== $current && null === $written; // A post the plugin never wrote is the editors'.
		$new       = array(
			'title'   => $written['title'] ?? null,
			'excerpt' => $written['excerpt'] ?? null,
			'keys'    => array(),
			'texts'   => array(),
			'content' => $written['content'] ?? null,
		);

		foreach ( array( 'title', 'excerpt' ) as $field ) {
			if ( null === $unit[ $field ] ) {
				continue;
			}
			$machine = $results[ $field ] ?? null;
			if ( null === $current ) {
				$fields[ $field ] = $machine ?? $earlier[ $field ] ?? $unit[ $field ];
				$new[ $field ]    = $fields[ $field ];
				continue;
			}
			if ( null === $machine ) {
				continue;
			}
			$now    = (string) ( $current[ $field ] ?? '' );
			$edited = $mine || $published || ( null !== $written && $now !== (string) ( $written[ $field ] ?? '' ) );
			if ( $edited ) {
				if ( $machine !== $now ) {
					$conflicts[ $field ] = $machine;
				}
				continue;
			}
			if ( $machine !== $now ) {
				$fields[ $field ] = $machine;
			}
			$new[ $field ] = $machine;
		}

		$split = $unit['content'];
		if ( $split instanceof Split ) {
			$source  = array();
			$machine = array();
			foreach ( $split->segments as $s ) {
				$source[ $s['key'] ] = $s['text'];
				if ( isset( $results[ 'content.' . $s['key'] ] ) ) {
					$machine[ $s['key'] ] = $results[ 'content.' . $s['key'] ];
				}
			}
			$old_texts = (array) ( $written['texts'] ?? array() );
			$lined_up  = null;
			if ( null !== $current && ! $mine ) {
				$lined_up = self::lined_up( (string) ( $current['content'] ?? '' ), (array) ( $written['keys'] ?? array() ), isset( $written['content'] ) ? (string) $written['content'] : null );
			}
			$texts   = array();
			$ours    = array();
			$changed = false;
			foreach ( $source as $k => $text ) {
				$has_machine = isset( $machine[ $k ] );
				$editor      = $lined_up[ $k ] ?? null;
				$edited      = null !== $editor && isset( $old_texts[ $k ] ) && $editor !== $old_texts[ $k ];
				if ( $has_machine && ( $edited || $published ) ) {
					if ( $machine[ $k ] !== $editor ) {
						$conflicts[ 'content.' . $k ] = $machine[ $k ];
					}
					$texts[ $k ] = $editor ?? $text;
					$ours[ $k ]  = $old_texts[ $k ] ?? $text;
				} elseif ( $has_machine ) {
					$texts[ $k ] = $machine[ $k ];
					$ours[ $k ]  = $machine[ $k ];
					$changed     = true;
				} elseif ( null !== $editor ) {
					$texts[ $k ] = $editor;
					$ours[ $k ]  = $old_texts[ $k ] ?? $editor;
				} else {
					$texts[ $k ] = $earlier[ 'content.' . $k ] ?? $text;
					$ours[ $k ]  = $texts[ $k ];
					$changed     = true;
				}
			}
			$joined = Html::join( $split, $texts );
			if ( null === $current ) {
				$fields['content'] = $joined;
			} elseif ( $mine || null === $lined_up ) {
				// Blocks an editor changed (or a post the plugin never wrote): left whole, the new content waits beside it.
				if ( count( $machine ) > 0 ) {
					$all = array();
					foreach ( $source as $k => $text ) {
						$all[ $k ] = $machine[ $k ] ?? $old_texts[ $k ] ?? $earlier[ 'content.' . $k ] ?? $text;
					}
					$whole = Html::join( $split, $all );
					if ( $whole !== (string) ( $current['content'] ?? '' ) ) {
						$conflicts['content'] = $whole;
					}
				}
				$ours = null;
			} elseif ( null !== $lined_up && ! $published && $changed && $joined !== (string) ( $current['content'] ?? '' ) ) {
				$fields['content'] = $joined;
			}
			if ( null !== $ours ) {
				$new['keys']    = array_keys( $source );
				$new['texts']   = $ours;
				$new['content'] = $fields['content'] ?? ( null === $current ? $joined : (string) ( $current['content'] ?? '' ) );
			} else {
				$new['keys']  = (array) ( $written['keys'] ?? array() );
				$new['texts'] = $old_texts;
			}
		}
		return array(
			'fields'    => $fields,
			'conflicts' => $conflicts,
			'written'   => $mine ? null : $new,
		);
	}

	/**
	 * An editor's version of a translated post as texts by the source's segment keys: the plain
	 * fields as they are; the content's blocks lined up in order with the source's blocks when
	 * both have as many (otherwise none of the content).
	 *
	 * @param array                 $unit   The source's unit (Mapping::unit).
	 * @param array<string, string> $target The translated post's fields.
	 * @return array<string, string>
	 */
	public static function editor_texts( array $unit, array $target ): array {
		$out = array();
		foreach ( array( 'title', 'excerpt' ) as $field ) {
			if ( null !== $unit[ $field ] && isset( $target[ $field ] ) ) {
				$out[ $field ] = (string) $target[ $field ];
			}
		}
		$split = $unit['content'];
		if ( $split instanceof Split && isset( $target['content'] ) ) {
			$theirs = Html::split( (string) $target['content'] )->segments;
			if ( count( $theirs ) === count( $split->segments ) ) {
				foreach ( $split->segments as $i => $s ) {
					$out[ 'content.' . $s['key'] ] = $theirs[ $i ]['text'];
				}
			}
		}
		return $out;
	}
}
