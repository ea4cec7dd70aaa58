<?php
/**
 * The PHP splitter answers every case of tests/fixtures/split-cases.json as the kit does (the
 * kit's own answers, written by scripts/fixture.mjs and checked by the kit's tests too).
 *
 * @package Transync
 */

use PHPUnit\Framework\TestCase;
use Transync\Split\Align;
use Transync\Split\Html;
use Transync\Split\Keys;

final class SplitTest extends TestCase {

	/**
	 * The fixture's cases.
	 *
	 * @return array<string, array{0: array<string, mixed>}>
	 */
	public static function cases(): array {
		$fixture = json_decode( (string) file_get_contents( __DIR__ . '/fixtures/split-cases.json' ), true );
		$out     = array();
		foreach ( $fixture['cases'] as $case ) {
			$out[ $case['name'] ] = array( $case );
		}
		return $out;
	}

	/**
	 * @dataProvider cases
	 * @param array<string, mixed> $case A case.
	 */
	public function test_the_kit_s_segments_template_and_join( array $case ): void {
		$split = Html::split( $case['doc'], $case['previous'] ?? array() );
		$this->assertSame(
			$case['segments'],
			array_map(
				static fn( $s ) => array(
					'key'  => $s['key'],
					'text' => $s['text'],
					'kind' => $s['kind'],
				),
				$split->segments
			)
		);
		$this->assertSame( $case['parts'], $split->parts );
		$this->assertSame( $case['problems'], $split->problems );
		$translations = array();
		foreach ( $split->segments as $s ) {
			$translations[ $s['key'] ] = '[' . $s['key'] . '] ' . $s['text'];
		}
		$this->assertSame( $case['joined'], Html::join( $split, $translations ) );
		$this->assertSame( $case['doc'], Html::join( $split, array() ) );
	}

	public function test_the_fixture_has_every_kind_of_case(): void {
		$names = array_keys( self::cases() );
		$this->assertGreaterThan( 600, count( $names ) );
		foreach ( array( 'a WordPress post', 'edge', 'tag soup', 'random text', 'edit' ) as $kind ) {
			$this->assertNotEmpty( array_filter( $names, static fn( $n ) => 0 === strpos( $n, $kind ) ), $kind );
		}
	}

	public function test_keys_are_the_kit_s_hash_of_the_normalized_text(): void {
		// Values the kit gives (contentKeys of client/src/split/keys.ts, run in Node).
		$key = Keys::content_keys();
		$this->assertSame( 'p.yekku5o2mw', $key( 'p', 'Hello world' ) );
		$this->assertSame( 'p.yekku5o2mw.2', $key( 'p', "Hello \n world" ), 'the same normalized text again: .2' );
		$this->assertSame( 'li.umq1gjoyx9', Keys::content_keys()( 'li', 'Ünïcödé 😀 中文' ) );
		$this->assertSame( 'Hello world', Keys::normalize( "  Hello\u{00A0}\u{2003}world\n" ) );
		$this->assertSame( "a\u{0085}b", Keys::normalize( "a\u{0085}b" ), 'U+0085 is not whitespace in JavaScript' );
		$this->assertSame( 'é', Keys::normalize( "e\u{0301}" ), 'NFC' );
		$this->assertSame( 'post_5fbody.x', Keys::encode_key_part( 'post_body.x', true ) );
	}

	public function test_the_distance_routines_agree(): void {
		$a = array_map( 'mb_ord', mb_str_split( 'kitten sitting on the mat' ) );
		$b = array_map( 'mb_ord', mb_str_split( 'sitting kitten on a mat' ) );
		$wide = array_map( static fn( $i ) => 0x4e00 + $i, range( 0, 299 ) );
		$this->assertSame( levenshtein( 'kitten sitting on the mat', 'sitting kitten on a mat' ), Align::distance( $a, $b ) );
		$this->assertSame( 1, Align::distance( $wide, array_merge( array_slice( $wide, 0, 150 ), array_slice( $wide, 151 ) ) ) );
	}
}
