<?php
/**
 * Languages through Polylang's PHP API (its free REST API has no languages on posts).
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Polylang's languages and links.
 */
final class Polylang implements Languages {

	/**
	 * Whether Polylang's API is loaded.
	 */
	public static function available(): bool {
		return function_exists( 'pll_languages_list' ) && function_exists( 'pll_set_post_language' ) && function_exists( 'pll_save_post_translations' );
	}

	/**
	 * The default language is the source.
	 */
	public function source(): string {
		return (string) pll_default_language( 'slug' );
	}

	/**
	 * Polylang's languages (their slugs are the service's language codes).
	 *
	 * @return string[]
	 */
	public function all(): array {
		return array_values( array_map( 'strval', (array) pll_languages_list( array( 'fields' => 'slug' ) ) ) );
	}

	/**
	 * A post's language.
	 *
	 * @param int $post_id The post.
	 */
	public function of( int $post_id ): ?string {
		$language = pll_get_post_language( $post_id, 'slug' );
		return is_string( $language ) && '' !== $language ? $language : null;
	}

	/**
	 * The post's translations.
	 *
	 * @param int $post_id The post.
	 * @return array<string, int>
	 */
	public function translations( int $post_id ): array {
		return array_map( 'intval', (array) pll_get_post_translations( $post_id ) );
	}

	/**
	 * Sets the language and saves the group with the new post in it.
	 *
	 * @param int    $source_id The source post.
	 * @param int    $post_id   The translated post.
	 * @param string $language  Its language.
	 */
	public function link( int $source_id, int $post_id, string $language ): void {
		pll_set_post_language( $post_id, $language );
		$group              = $this->translations( $source_id );
		$group[ $this->of( $source_id ) ?? $this->source() ] = $source_id;
		$group[ $language ] = $post_id;
		pll_save_post_translations( $group );
	}
}
