<?php
/**
 * The plugin's drafts kept linked across Polylang's Languages box (Transync\Links::decide): a
 * draft the edit screen never showed is linked again; one it showed and the editor removed is
 * released; a post the editor chose for a language stands.
 *
 * @package Transync
 */

use PHPUnit\Framework\TestCase;
use Transync\Links;

final class LinksTest extends TestCase {

	public function test_drafts_linked_after_the_screen_was_loaded_are_linked_again(): void {
		// The English post's screen was loaded before its drafts came: it showed only itself.
		$decision = Links::decide( array( 'de' => 12, 'fr' => 13 ), array( 'en' => 9 ), array( 'en' => 9 ), array( 'de' => 0, 'fr' => 0 ) );
		$this->assertSame( array( 'de' => 12, 'fr' => 13 ), $decision['relink'] );
		$this->assertSame( array(), $decision['released'] );
	}

	public function test_a_draft_the_screen_showed_and_the_editor_removed_is_released(): void {
		$decision = Links::decide( array( 'de' => 12, 'fr' => 13 ), array( 'en' => 9, 'fr' => 13 ), array( 'en' => 9, 'de' => 12, 'fr' => 13 ), array( 'de' => 0, 'fr' => 13 ) );
		$this->assertSame( array(), $decision['relink'] );
		$this->assertSame( array( 12 ), $decision['released'] );
	}

	public function test_another_post_chosen_for_a_language_stands(): void {
		$decision = Links::decide( array( 'de' => 12 ), array( 'en' => 9, 'de' => 20 ), array( 'en' => 9 ), array( 'de' => 20 ) );
		$this->assertSame( array( 'relink' => array(), 'released' => array() ), $decision );
	}

	public function test_from_a_translation_s_screen_a_sibling_that_came_later_is_linked_again(): void {
		// The German draft's screen was loaded before the French draft came.
		$decision = Links::decide( array( 'de' => 12, 'fr' => 13 ), array( 'en' => 9, 'de' => 12 ), array( 'en' => 9, 'de' => 12 ), array( 'en' => 9, 'fr' => 0 ) );
		$this->assertSame( array( 'fr' => 13 ), $decision['relink'] );
	}

	public function test_the_hidden_field_is_read_back(): void {
		$this->assertSame( array( 'en' => 9, 'pt-br' => 14 ), Links::parse_seen( ' en:9  pt-br:14 junk de: ' ) );
		$this->assertSame( array(), Links::parse_seen( '' ) );
	}
}
