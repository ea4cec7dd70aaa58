<?php
/**
 * The seam between the plugin and the multilingual plugin that gives posts their languages
 * and links translations: Polylang today; WPML (icl_translations through its filters and
 * actions) would be another implementation of this interface.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

interface Languages {

	/**
	 * The language editors write in (a language code such as `en`).
	 */
	public function source(): string;

	/**
	 * Every language of the site, the source's included.
	 *
	 * @return string[]
	 */
	public function all(): array;

	/**
	 * A post's language, or null.
	 *
	 * @param int $post_id The post.
	 */
	public function of( int $post_id ): ?string;

	/**
	 * The post's translations by language (itself included).
	 *
	 * @param int $post_id The post.
	 * @return array<string, int>
	 */
	public function translations( int $post_id ): array;

	/**
	 * Gives a new post its language and links it to the source's translations.
	 *
	 * @param int    $source_id The source post.
	 * @param int    $post_id   The translated post.
	 * @param string $language  Its language.
	 */
	public function link( int $source_id, int $post_id, string $language ): void;
}
