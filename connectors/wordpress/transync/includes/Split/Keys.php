<?php
/**
 * Segment keys that survive edits elsewhere in the document: a port of the kit's
 * client/src/split/keys.ts (same hash, same normalization, same keys), tested against the same
 * cases (tests/fixtures/split-cases.json, read by the kit's tests too).
 *
 * @package Transync
 */

namespace Transync\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * Content keys, normalization and the join, as the kit has them.
 */
final class Keys {

	/**
	 * JavaScript's `\s` (and what `String.prototype.trim` removes): the characters normalize()
	 * collapses. PCRE's own `\s` differs (U+0085, U+FEFF), so the class is spelled out.
	 */
	const JS_SPACE = '[\x{0009}-\x{000D}\x{0020}\x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]';

	/**
	 * Whitespace runs collapsed and ends trimmed (after Unicode NFC): re-wrapping a paragraph keeps its key.
	 *
	 * @param string $text A block's text.
	 */
	public static function normalize( string $text ): string {
		if ( class_exists( '\Normalizer' ) ) {
			$nfc = \Normalizer::normalize( $text, \Normalizer::FORM_C );
			if ( is_string( $nfc ) ) {
				$text = $nfc;
			}
		}
		$collapsed = preg_replace( '/' . self::JS_SPACE . '+/u', ' ', $text );
		if ( null === $collapsed ) {
			// Not valid UTF-8: collapse ASCII whitespace only.
			$collapsed = (string) preg_replace( '/[\t\n\x0B\f\r ]+/', ' ', $text );
		}
		return trim( $collapsed, ' ' );
	}

	/**
	 * JavaScript's `String.prototype.trim`.
	 *
	 * @param string $text The text.
	 */
	public static function js_trim( string $text ): string {
		$out = preg_replace( '/^' . self::JS_SPACE . '+|' . self::JS_SPACE . '+$/u', '', $text );
		return null === $out ? trim( $text, " \t\n\r\x0B\x0C" ) : $out;
	}

	/**
	 * Math.imul: the low 32 bits of a product, as an unsigned integer.
	 *
	 * @param int $a A 32-bit value.
	 * @param int $b A 32-bit value.
	 */
	private static function imul( int $a, int $b ): int {
		$a &= 0xffffffff;
		$b &= 0xffffffff;
		$low  = ( $a & 0xffff ) * $b;
		$high = ( ( ( $a >> 16 ) * $b ) & 0xffff ) << 16;
		return ( $low + $high ) & 0xffffffff;
	}

	/**
	 * The kit's cyrb53 over the UTF-16 code units of `$text` (a 53-bit integer; not cryptographic: it names a block).
	 *
	 * @param string $text The normalized text.
	 */
	public static function hash53( string $text ): int {
		$h1    = 0xdeadbeef;
		$h2    = 0x41c6ce57;
		$units = '' === $text ? array() : unpack( 'v*', (string) mb_convert_encoding( $text, 'UTF-16LE', 'UTF-8' ) );
		foreach ( $units as $ch ) {
			$h1 = self::imul( $h1 ^ $ch, 2654435761 );
			$h2 = self::imul( $h2 ^ $ch, 1597334677 );
		}
		$h1 = self::imul( $h1 ^ ( $h1 >> 16 ), 2246822507 ) ^ self::imul( $h2 ^ ( $h2 >> 13 ), 3266489909 );
		$h2 = self::imul( $h2 ^ ( $h2 >> 16 ), 2246822507 ) ^ self::imul( $h1 ^ ( $h1 >> 13 ), 3266489909 );
		return 4294967296 * ( 2097151 & $h2 ) + ( $h1 & 0xffffffff );
	}

	/**
	 * A non-negative integer in base 36, as JavaScript's `toString(36)`.
	 *
	 * @param int $n The number.
	 */
	public static function base36( int $n ): string {
		$digits = '0123456789abcdefghijklmnopqrstuvwxyz';
		$out    = '';
		do {
			$out = $digits[ $n % 36 ] . $out;
			$n   = intdiv( $n, 36 );
		} while ( $n > 0 );
		return $out;
	}

	/**
	 * Hands out content keys: `<prefix>.<hash of the normalized text>`, and for the n-th block
	 * with the same text in one document `….<n>` (n ≥ 2).
	 *
	 * @return callable(string, string): string
	 */
	public static function content_keys(): callable {
		$seen = array();
		return static function ( string $prefix, string $text ) use ( &$seen ): string {
			$base          = $prefix . '.' . self::base36( self::hash53( self::normalize( $text ) ) );
			$n             = ( $seen[ $base ] ?? 0 ) + 1;
			$seen[ $base ] = $n;
			return 1 === $n ? $base : $base . '.' . $n;
		};
	}

	/**
	 * Encodes a name into the key pattern: letters, digits and `-` as they are, every other
	 * character as `_` and the two hex digits of each of its UTF-8 bytes (`.` kept with $keep_dot).
	 *
	 * @param string $name     The name.
	 * @param bool   $keep_dot Whether `.` stays as it is.
	 */
	public static function encode_key_part( string $name, bool $keep_dot = false ): string {
		$out = '';
		$len = strlen( $name );
		for ( $i = 0; $i < $len; $i++ ) {
			$ch = $name[ $i ];
			if ( ( $ch >= 'a' && $ch <= 'z' ) || ( $ch >= 'A' && $ch <= 'Z' ) || ( $ch >= '0' && $ch <= '9' ) || '-' === $ch || ( $keep_dot && '.' === $ch ) ) {
				$out .= $ch;
			} else {
				$out .= '_' . str_pad( dechex( ord( $ch ) ), 2, '0', STR_PAD_LEFT );
			}
		}
		return $out;
	}

	/**
	 * Puts a document back together: every segment's translation, or its source text when there is none.
	 *
	 * @param Split                $split        The split.
	 * @param array<string,string> $translations Translations by key.
	 */
	public static function join_parts( Split $split, array $translations ): string {
		$source = array();
		foreach ( $split->segments as $s ) {
			$source[ $s['key'] ] = $s['text'];
		}
		$out = '';
		foreach ( $split->parts as $p ) {
			if ( is_string( $p ) ) {
				$out .= $p;
				continue;
			}
			$text = $translations[ $p['key'] ] ?? null;
			$own  = $source[ $p['key'] ] ?? '';
			$out .= ( null === $text || $text === $own ) ? ( $p['raw'] ?? $own ) : $text;
		}
		return $out;
	}

	/**
	 * Builds a Split from ordered, non-overlapping [start, end) byte ranges of `$doc`; the rest is kept.
	 *
	 * @param string                                                     $doc    The document.
	 * @param array<int, array{start:int, end:int, segment:array<string,mixed>}> $ranges The segments' ranges.
	 */
	public static function from_ranges( string $doc, array $ranges ): Split {
		$parts    = array();
		$kept     = array();
		$problems = array();
		$at       = 0;
		$length   = strlen( $doc );
		foreach ( $ranges as $r ) {
			if ( $r['start'] < $at || $r['end'] <= $r['start'] || $r['end'] > $length ) {
				continue;
			}
			$kept[] = $r['segment'];
			$text   = $r['segment']['text'];
			$nul    = strpos( $text, "\0" );
			if ( false !== $nul ) {
				$line       = substr_count( substr( $doc, 0, $r['start'] ), "\n" ) + 1 + substr_count( substr( $text, 0, $nul ), "\n" );
				$start      = mb_substr( trim( (string) preg_replace( '/' . self::JS_SPACE . '+/u', ' ', $text ), ' ' ), 0, 40 );
				$problems[] = array(
					'line'    => $line,
					'key'     => $r['segment']['key'],
					'message' => sprintf( 'line %d: the %s "%s…" contains U+0000 (NUL), which the service refuses: remove it', $line, $r['segment']['kind'] ?? 'block', str_replace( "\0", '\\0', $start ) ),
				);
			}
			if ( $r['start'] > $at ) {
				$parts[] = substr( $doc, $at, $r['start'] - $at );
			}
			$raw  = substr( $doc, $r['start'], $r['end'] - $r['start'] );
			$part = array( 'key' => $r['segment']['key'] );
			if ( $raw !== $text ) {
				$part['raw'] = $raw;
			}
			$parts[] = $part;
			$at      = $r['end'];
		}
		if ( $at < $length ) {
			$parts[] = substr( $doc, $at );
		}
		return new Split( $kept, $parts, $problems );
	}
}
