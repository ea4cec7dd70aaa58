<?php
/**
 * Posts ↔ units and the merge that never overwrites an editor's work (Transync\Mapping).
 *
 * @package Transync
 */

use PHPUnit\Framework\TestCase;
use Transync\Mapping;
use Transync\Split\Html;

final class MappingTest extends TestCase {

	const FIELDS = array( 'title', 'excerpt', 'content' );

	private static function p( string $text ): string {
		return "<!-- wp:paragraph -->\n<p>{$text}</p>\n<!-- /wp:paragraph -->";
	}

	private static function post( array $paragraphs, string $title = 'Hello', string $excerpt = '' ): array {
		return array(
			'title'   => $title,
			'excerpt' => $excerpt,
			'content' => implode( "\n\n", array_map( array( self::class, 'p' ), $paragraphs ) ),
		);
	}

	/** Machine translations of every segment of a unit (the text upper-cased). */
	private static function machine( array $unit, array $only = array() ): array {
		$out = array();
		foreach ( $unit['segments'] as $s ) {
			if ( ! $only || in_array( $s['text'], $only, true ) ) {
				$out[ $s['key'] ] = 'DE ' . strtoupper( $s['text'] );
			}
		}
		return $out;
	}

	/** The texts of a content's paragraphs. */
	private static function paragraphs( string $content ): array {
		return array_column( Html::split( $content )->segments, 'text' );
	}

	/** A translated post first written by the plugin: its fields and what the plugin remembers. */
	private static function first( array $unit ): array {
		$merge = Mapping::merge( $unit, self::machine( $unit ), array(), null, null, false );
		return array( $merge['fields'], $merge['written'] );
	}

	public function test_a_post_s_segments(): void {
		$unit = Mapping::unit( self::post( array( 'One.', 'Two.' ), 'Title', 'Summary' ), self::FIELDS );
		$this->assertSame( array( 'title', 'excerpt' ), array_slice( array_column( $unit['segments'], 'key' ), 0, 2 ) );
		$this->assertMatchesRegularExpression( '/^content\.p\.[0-9a-z]+$/', $unit['segments'][2]['key'] );
		$this->assertSame( array( 'plain', 'plain', 'html', 'html' ), array_column( $unit['segments'], 'format' ) );
		$this->assertSame( array( 0, 1, 2, 3 ), array_column( $unit['segments'], 'position' ) );
		$this->assertSame( 'title', $unit['segments'][0]['kind'] );
		// No excerpt when it is empty or not translated; no content when it is not translated.
		$this->assertSame( array( 'title' ), array_column( Mapping::unit( self::post( array(), 'T', '  ' ), self::FIELDS )['segments'], 'key' ) );
		$this->assertCount( 1, Mapping::unit( self::post( array( 'One.' ), 'T', 'S' ), array( 'title' ) )['segments'] );
	}

	public function test_an_edited_paragraph_keeps_its_key_with_the_last_push_as_previous(): void {
		$before = Mapping::unit( self::post( array( 'The first paragraph.', 'The second paragraph.' ) ), self::FIELDS );
		$after  = Mapping::unit( self::post( array( 'A new one.', 'The first paragraph.', 'The second paragraph, edited.' ) ), self::FIELDS, Mapping::previous( $before['segments'] ) );
		$keys   = array_column( $before['segments'], 'key' );
		$this->assertSame( $keys[0], $after['segments'][0]['key'] );
		$this->assertSame( $keys[1], $after['segments'][2]['key'], 'an unchanged paragraph keeps its key' );
		$this->assertSame( $keys[2], $after['segments'][3]['key'], 'the edited paragraph keeps its key' );
		$this->assertNotContains( $after['segments'][1]['key'], $keys, 'the new paragraph gets a new key' );
	}

	public function test_a_new_translation_is_written_whole(): void {
		$unit             = Mapping::unit( self::post( array( 'One.', 'Two.' ), 'Title', 'Sum' ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$this->assertSame( 'DE TITLE', $fields['title'] );
		$this->assertSame( 'DE SUM', $fields['excerpt'] );
		$this->assertSame( array( 'DE ONE.', 'DE TWO.' ), self::paragraphs( $fields['content'] ) );
		$this->assertStringContainsString( '<!-- wp:paragraph -->', $fields['content'] );
		$this->assertSame( $fields['content'], $written['content'] );
		$this->assertSame( array( 'DE ONE.', 'DE TWO.' ), array_values( $written['texts'] ) );
	}

	public function test_only_the_changed_paragraph_is_written_the_others_stay_byte_for_byte(): void {
		$unit                 = Mapping::unit( self::post( array( 'One.', 'Two.', 'Three.' ) ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$current              = $fields;
		$edited               = Mapping::unit( self::post( array( 'One.', 'Two, edited.', 'Three.' ) ), self::FIELDS, Mapping::previous( $unit['segments'] ) );
		$merge                = Mapping::merge( $edited, array( $edited['segments'][2]['key'] => 'DE TWO, EDITED.' ), array(), $current, $written, false );
		$this->assertSame( array( 'content' ), array_keys( $merge['fields'] ) );
		$this->assertSame( str_replace( 'DE TWO.', 'DE TWO, EDITED.', $current['content'] ), $merge['fields']['content'] );
		$this->assertSame( array(), $merge['conflicts'] );
	}

	public function test_an_editor_s_paragraph_survives_a_new_source_paragraph_and_an_edit_elsewhere(): void {
		$unit                 = Mapping::unit( self::post( array( 'One.', 'Two.', 'Three.' ) ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$current              = $fields;
		$current['content']   = str_replace( 'DE THREE.', 'Drei, von der Redaktion.', $current['content'] );
		$edited               = Mapping::unit( self::post( array( 'Zero.', 'One, edited.', 'Two.', 'Three.' ) ), self::FIELDS, Mapping::previous( $unit['segments'] ) );
		$results              = array(
			$edited['segments'][1]['key'] => 'DE ZERO.',
			$edited['segments'][2]['key'] => 'DE ONE, EDITED.',
		);
		$merge                = Mapping::merge( $edited, $results, array(), $current, $written, false );
		$this->assertSame( array( 'DE ZERO.', 'DE ONE, EDITED.', 'DE TWO.', 'Drei, von der Redaktion.' ), self::paragraphs( $merge['fields']['content'] ) );
		$this->assertSame( array(), $merge['conflicts'] );
		// Still the editor's next time: what the plugin wrote for that paragraph is remembered, not the editor's text.
		$this->assertSame( 'DE THREE.', $merge['written']['texts'][ substr( $edited['segments'][4]['key'], 8 ) ] );
		$again = Mapping::merge( $edited, array( $edited['segments'][4]['key'] => 'DE THREE, AGAIN.' ), array(), array( 'content' => $merge['fields']['content'] ) + $current, $merge['written'], false );
		$this->assertSame( array(), $again['fields'] );
		$this->assertSame( array( $edited['segments'][4]['key'] => 'DE THREE, AGAIN.' ), $again['conflicts'] );
	}

	public function test_where_editor_and_source_changed_the_same_paragraph_the_machine_text_waits_beside_it(): void {
		$unit                 = Mapping::unit( self::post( array( 'One.', 'The second paragraph.' ), 'Title' ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$current              = $fields;
		$current['content']   = str_replace( 'DE THE SECOND PARAGRAPH.', 'Der zweite Absatz (Redaktion).', $current['content'] );
		$current['title']     = 'Titel (Redaktion)';
		$edited               = Mapping::unit( self::post( array( 'One.', 'The second paragraph, edited.' ), 'Title, edited' ), self::FIELDS, Mapping::previous( $unit['segments'] ) );
		$this->assertSame( $unit['segments'][2]['key'], $edited['segments'][2]['key'] );
		$merge = Mapping::merge( $edited, self::machine( $edited, array( 'The second paragraph, edited.', 'Title, edited' ) ), array(), $current, $written, false );
		$this->assertSame( array(), $merge['fields'], 'nothing of the editor\'s is written over' );
		$this->assertSame(
			array(
				'title'                       => 'DE TITLE, EDITED',
				$edited['segments'][2]['key'] => 'DE THE SECOND PARAGRAPH, EDITED.',
			),
			$merge['conflicts']
		);
	}

	public function test_an_editor_s_change_of_the_blocks_leaves_the_content_whole_and_the_new_one_waits(): void {
		$unit                 = Mapping::unit( self::post( array( 'One.', 'Two.' ) ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$current              = $fields;
		$current['content']  .= "\n\n" . self::p( 'Ein eigener Absatz.' );
		$edited               = Mapping::unit( self::post( array( 'One, edited.', 'Two.' ) ), self::FIELDS, Mapping::previous( $unit['segments'] ) );
		$merge                = Mapping::merge( $edited, array( $edited['segments'][1]['key'] => 'DE ONE, EDITED.' ), array(), $current, $written, false );
		$this->assertArrayNotHasKey( 'content', $merge['fields'] );
		$this->assertSame( array( 'DE ONE, EDITED.', 'DE TWO.' ), self::paragraphs( $merge['conflicts']['content'] ) );
		$this->assertSame( $written['content'], $merge['written']['content'], 'still not lined up next time' );
	}

	public function test_a_published_translation_is_never_written_to(): void {
		$unit                 = Mapping::unit( self::post( array( 'One.' ), 'Title' ), self::FIELDS );
		[ $fields, $written ] = self::first( $unit );
		$edited               = Mapping::unit( self::post( array( 'One, edited.' ), 'Title' ), self::FIELDS, Mapping::previous( $unit['segments'] ) );
		$merge                = Mapping::merge( $edited, self::machine( $edited, array( 'One, edited.' ) ), array(), $fields, $written, true );
		$this->assertSame( array(), $merge['fields'] );
		$this->assertSame( array( $edited['segments'][1]['key'] => 'DE ONE, EDITED.' ), $merge['conflicts'] );
	}

	public function test_a_translation_the_plugin_never_wrote_is_the_editors(): void {
		$unit  = Mapping::unit( self::post( array( 'One.' ), 'Title' ), self::FIELDS );
		$merge = Mapping::merge( $unit, self::machine( $unit ), array(), self::post( array( 'Eins.' ), 'Titel' ), null, false );
		$this->assertSame( array(), $merge['fields'] );
		$this->assertSame( array( 'title', 'content' ), array_keys( $merge['conflicts'] ) );
		$this->assertNull( $merge['written'] );
	}

	public function test_earlier_translations_fill_what_no_new_result_covers(): void {
		$unit   = Mapping::unit( self::post( array( 'One.', 'Two.' ), 'Title' ), self::FIELDS );
		$keys   = array_column( $unit['segments'], 'key' );
		$merge  = Mapping::merge( $unit, array( $keys[1] => 'DE ONE.' ), array( $keys[0] => 'DE TITLE (approved)', $keys[2] => 'DE TWO (approved).' ), null, null, false );
		$this->assertSame( 'DE TITLE (approved)', $merge['fields']['title'] );
		$this->assertSame( array( 'DE ONE.', 'DE TWO (approved).' ), self::paragraphs( $merge['fields']['content'] ) );
	}

	public function test_an_editor_s_version_lines_up_with_the_source_s_keys(): void {
		$unit   = Mapping::unit( self::post( array( 'One.', 'Two.' ), 'Title', 'Sum' ), self::FIELDS );
		$keys   = array_column( $unit['segments'], 'key' );
		$texts  = Mapping::editor_texts( $unit, self::post( array( 'Eins.', 'Zwei.' ), 'Titel', 'Zus.' ) );
		$this->assertSame( array_combine( $keys, array( 'Titel', 'Zus.', 'Eins.', 'Zwei.' ) ), $texts );
		// Another number of blocks: the content's texts are not guessed.
		$this->assertSame( array( 'title', 'excerpt' ), array_keys( Mapping::editor_texts( $unit, self::post( array( 'Eins.' ), 'Titel', 'Zus.' ) ) ) );
	}
}
