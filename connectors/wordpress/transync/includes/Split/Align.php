<?php
/**
 * Keys that follow edits: a port of the kit's alignKeys (client/src/split/align.ts). A document's
 * new segments are lined up with the unit's previous segments, so an unchanged block keeps its
 * key, an edited block keeps the key of the block it replaces (its translations turn stale, not
 * new) and only new blocks get new keys.
 *
 * @package Transync
 */

namespace Transync\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * The alignment, step for step as the kit does it.
 */
final class Align {

	/** Lowest similarity for an edited block to keep an old block's key (the kit's SIMILARITY_THRESHOLD). */
	const SIMILARITY_THRESHOLD = 0.4;
	/** Code points of each text compared at most (the kit's COMPARED_POINTS). */
	const COMPARED_POINTS = 2000;
	/** Old blocks a new block is compared with at most in one gap, each side (the kit's COMPARE_WINDOW). */
	const COMPARE_WINDOW = 8;

	/**
	 * The segments with their keys lined up with `$previous` (see the kit's alignKeys).
	 *
	 * @param array<int, array<string,mixed>>           $segments  Segments with `key` and `text`.
	 * @param array<int, array{key:string,text:string}> $previous  The unit's current segments.
	 * @param float                                     $threshold Lowest similarity.
	 * @return array<int, array<string,mixed>>
	 */
	public static function align_keys( array $segments, array $previous, float $threshold = self::SIMILARITY_THRESHOLD ): array {
		if ( count( $previous ) === 0 ) {
			return $segments;
		}
		$old  = array();
		$seen = array();
		foreach ( $previous as $p ) {
			if ( ! isset( $seen[ $p['key'] ] ) ) {
				$seen[ $p['key'] ] = true;
				$old[]             = $p;
			}
		}
		$old_texts = array_map( static fn( $p ) => Keys::normalize( (string) $p['text'] ), $old );
		$new_texts = array_map( static fn( $s ) => Keys::normalize( (string) $s['text'] ), $segments );
		$pair_of   = array_fill( 0, count( $segments ), -1 );
		$taken     = array_fill( 0, count( $old ), false );

		// 1. Unchanged texts: in order, then moved.
		$anchors = self::common_subsequence( $old_texts, $new_texts );
		foreach ( $anchors as [ $i, $n ] ) {
			$pair_of[ $n ] = $i;
			$taken[ $i ]   = true;
		}
		$free_by_text = array();
		foreach ( $old_texts as $i => $t ) {
			if ( ! $taken[ $i ] ) {
				$free_by_text[ $t ][] = $i;
			}
		}
		foreach ( $new_texts as $n => $t ) {
			if ( $pair_of[ $n ] >= 0 || empty( $free_by_text[ $t ] ) ) {
				continue;
			}
			$i             = array_shift( $free_by_text[ $t ] );
			$pair_of[ $n ] = $i;
			$taken[ $i ]   = true;
		}

		// 2. Edited blocks, gap by gap between the in-order anchors.
		$bounds = array_merge( array( array( -1, -1 ) ), $anchors, array( array( count( $old ), count( $segments ) ) ) );
		$nb     = count( $bounds );
		for ( $g = 1; $g < $nb; $g++ ) {
			$olds = array();
			for ( $i = $bounds[ $g - 1 ][0] + 1; $i < $bounds[ $g ][0]; $i++ ) {
				if ( ! $taken[ $i ] ) {
					$olds[] = $i;
				}
			}
			$news = array();
			for ( $n = $bounds[ $g - 1 ][1] + 1; $n < $bounds[ $g ][1]; $n++ ) {
				if ( $pair_of[ $n ] < 0 ) {
					$news[] = $n;
				}
			}
			if ( count( $olds ) === 0 || count( $news ) === 0 ) {
				continue;
			}
			foreach ( self::similar_pairs( $olds, $news, $old_texts, $new_texts, $threshold ) as [ $n, $i ] ) {
				$pair_of[ $n ] = $i;
				$taken[ $i ]   = true;
			}
		}

		// 3. Keys: the old block's where paired, otherwise the segment's own, unique against all old keys.
		$used = array();
		foreach ( $previous as $p ) {
			$used[ $p['key'] ] = true;
		}
		$keys = array_map( static fn( $s ) => (string) $s['key'], $segments );
		foreach ( $segments as $n => $s ) {
			if ( $pair_of[ $n ] >= 0 ) {
				$keys[ $n ] = $old[ $pair_of[ $n ] ]['key'];
			}
		}
		foreach ( $segments as $n => $s ) {
			if ( $pair_of[ $n ] >= 0 ) {
				continue;
			}
			$key = (string) $s['key'];
			for ( $k = 2; isset( $used[ $key ] ); $k++ ) {
				$key = $s['key'] . '.' . $k;
			}
			$used[ $key ] = true;
			$keys[ $n ]   = $key;
		}
		$out = array();
		foreach ( $segments as $n => $s ) {
			$s['key'] = $keys[ $n ];
			$out[]    = $s;
		}
		return $out;
	}

	/**
	 * A split with its segments' keys lined up with `$previous` (the join's template follows).
	 *
	 * @param Split                                     $split    The split.
	 * @param array<int, array{key:string,text:string}> $previous The unit's current segments.
	 */
	public static function align_split( Split $split, array $previous ): Split {
		if ( count( $previous ) === 0 ) {
			return $split;
		}
		$segments = self::align_keys( $split->segments, $previous );
		$rename   = array();
		foreach ( $split->segments as $i => $s ) {
			$rename[ $s['key'] ] = $segments[ $i ]['key'];
		}
		$parts = array();
		foreach ( $split->parts as $p ) {
			if ( is_array( $p ) ) {
				$p['key'] = $rename[ $p['key'] ] ?? $p['key'];
			}
			$parts[] = $p;
		}
		$problems = array();
		foreach ( $split->problems as $p ) {
			if ( isset( $p['key'] ) ) {
				$p['key'] = $rename[ $p['key'] ] ?? $p['key'];
			}
			$problems[] = $p;
		}
		return new Split( $segments, $parts, $problems );
	}

	/**
	 * The longest common subsequence of two lists of texts as [old index, new index] pairs, in
	 * order: the common start and end first, then the middle with Hunt–Szymanski (as the kit).
	 *
	 * @param string[] $a Old texts.
	 * @param string[] $b New texts.
	 * @return array<int, array{0:int,1:int}>
	 */
	private static function common_subsequence( array $a, array $b ): array {
		$la   = count( $a );
		$lb   = count( $b );
		$head = 0;
		while ( $head < $la && $head < $lb && $a[ $head ] === $b[ $head ] ) {
			++$head;
		}
		$tail = 0;
		while ( $tail < $la - $head && $tail < $lb - $head && $a[ $la - 1 - $tail ] === $b[ $lb - 1 - $tail ] ) {
			++$tail;
		}
		$out = array();
		for ( $k = 0; $k < $head; $k++ ) {
			$out[] = array( $k, $k );
		}
		$where = array();
		for ( $i = $head; $i < $la - $tail; $i++ ) {
			$where[ $a[ $i ] ][] = $i;
		}
		$entries = array();
		$tails   = array();
		for ( $n = $head; $n < $lb - $tail; $n++ ) {
			$list = $where[ $b[ $n ] ] ?? null;
			if ( null === $list ) {
				continue;
			}
			for ( $k = count( $list ) - 1; $k >= 0; $k-- ) {
				$i  = $list[ $k ];
				$lo = 0;
				$hi = count( $tails );
				while ( $lo < $hi ) {
					$mid = ( $lo + $hi ) >> 1;
					if ( $entries[ $tails[ $mid ] ][0] < $i ) {
						$lo = $mid + 1;
					} else {
						$hi = $mid;
					}
				}
				$entries[]    = array( $i, $n, $lo > 0 ? $tails[ $lo - 1 ] : -1 );
				$tails[ $lo ] = count( $entries ) - 1;
			}
		}
		$middle = array();
		for ( $e = count( $tails ) ? $tails[ count( $tails ) - 1 ] : -1; $e >= 0; $e = $entries[ $e ][2] ) {
			$middle[] = array( $entries[ $e ][0], $entries[ $e ][1] );
		}
		foreach ( array_reverse( $middle ) as $pair ) {
			$out[] = $pair;
		}
		for ( $k = $tail; $k > 0; $k-- ) {
			$out[] = array( $la - $k, $lb - $k );
		}
		return $out;
	}

	/**
	 * Pairs [new, old] of one gap, most similar first, each at least `$threshold` similar.
	 *
	 * @param int[]    $olds      Old indices of the gap.
	 * @param int[]    $news      New indices of the gap.
	 * @param string[] $old_texts Normalized old texts.
	 * @param string[] $new_texts Normalized new texts.
	 * @param float    $threshold Lowest similarity.
	 * @return array<int, array{0:int,1:int}>
	 */
	private static function similar_pairs( array $olds, array $news, array $old_texts, array $new_texts, float $threshold ): array {
		$old_points = array_map( static fn( $i ) => self::points( $old_texts[ $i ] ), $olds );
		$candidates = array();
		$count_old  = count( $olds );
		$count_new  = count( $news );
		foreach ( $news as $a => $n ) {
			$p  = self::points( $new_texts[ $n ] );
			$at = (int) floor( ( $a * $count_old ) / $count_new + 0.5 );
			$hi = min( $count_old, $at + self::COMPARE_WINDOW + 1 );
			for ( $b = max( 0, $at - self::COMPARE_WINDOW ); $b < $hi; $b++ ) {
				$score = self::similarity( $p, $old_points[ $b ], $threshold );
				if ( $score >= $threshold ) {
					$candidates[] = array(
						'n'        => $n,
						'i'        => $olds[ $b ],
						'score'    => $score,
						'distance' => abs( $b - $at ),
					);
				}
			}
		}
		usort(
			$candidates,
			static function ( $x, $y ) {
				return ( $y['score'] <=> $x['score'] ) ?: ( $x['distance'] <=> $y['distance'] ) ?: ( $x['n'] <=> $y['n'] ) ?: ( $x['i'] <=> $y['i'] );
			}
		);
		$paired_new = array();
		$paired_old = array();
		$out        = array();
		foreach ( $candidates as $c ) {
			if ( isset( $paired_new[ $c['n'] ] ) || isset( $paired_old[ $c['i'] ] ) ) {
				continue;
			}
			$paired_new[ $c['n'] ] = true;
			$paired_old[ $c['i'] ] = true;
			$out[]                 = array( $c['n'], $c['i'] );
		}
		return $out;
	}

	/**
	 * The first COMPARED_POINTS code points of a text.
	 *
	 * @param string $text The text.
	 * @return int[]
	 */
	private static function points( string $text ): array {
		if ( '' === $text ) {
			return array();
		}
		$units = unpack( 'N*', (string) mb_convert_encoding( mb_substr( $text, 0, self::COMPARED_POINTS, 'UTF-8' ), 'UTF-32BE', 'UTF-8' ) );
		return array_values( $units ? $units : array() );
	}

	/**
	 * 1 − distance ÷ the longer length, or 0 when it is under `$threshold` (as the kit's similarityOf).
	 *
	 * @param int[] $a         Code points.
	 * @param int[] $b         Code points.
	 * @param float $threshold Lowest similarity.
	 */
	private static function similarity( array $a, array $b, float $threshold ): float {
		$longer = max( count( $a ), count( $b ) );
		if ( 0 === $longer ) {
			return 1.0;
		}
		$max = (int) floor( $longer * ( 1 - $threshold ) + 1e-9 );
		if ( abs( count( $a ) - count( $b ) ) > $max ) {
			return 0.0;
		}
		$d = self::distance( $a, $b );
		return $d > $max ? 0.0 : 1 - $d / $longer;
	}

	/**
	 * The Levenshtein distance of two lists of code points. PHP's levenshtein() counts bytes, so
	 * when both texts use at most 256 distinct code points each is written as one byte first (the
	 * distance is the same); otherwise a plain dynamic programme.
	 *
	 * @param int[] $a Code points.
	 * @param int[] $b Code points.
	 */
	public static function distance( array $a, array $b ): int {
		$alphabet = array();
		foreach ( array( $a, $b ) as $list ) {
			foreach ( $list as $cp ) {
				if ( ! isset( $alphabet[ $cp ] ) ) {
					$alphabet[ $cp ] = count( $alphabet );
				}
			}
		}
		if ( count( $alphabet ) <= 256 ) {
			$bytes = static function ( array $list ) use ( $alphabet ): string {
				$s = '';
				foreach ( $list as $cp ) {
					$s .= chr( $alphabet[ $cp ] );
				}
				return $s;
			};
			return levenshtein( $bytes( $a ), $bytes( $b ) );
		}
		$m   = count( $b );
		$row = range( 0, $m );
		foreach ( $a as $i => $ca ) {
			$prev    = $row[0];
			$row[0]  = $i + 1;
			for ( $j = 1; $j <= $m; $j++ ) {
				$cur       = $row[ $j ];
				$row[ $j ] = min( $row[ $j ] + 1, $row[ $j - 1 ] + 1, $prev + ( $ca === $b[ $j - 1 ] ? 0 : 1 ) );
				$prev      = $cur;
			}
		}
		return $row[ $m ];
	}
}
