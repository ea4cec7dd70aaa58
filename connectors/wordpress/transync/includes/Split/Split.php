<?php
/**
 * What a splitter gives: the segments to push and the template a join fills (the kit's `Split`).
 *
 * @package Transync
 */

namespace Transync\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * A split document.
 */
final class Split {

	/**
	 * The segments: key, text, format, field, kind.
	 *
	 * @var array<int, array{key:string, text:string, format:string, field:?string, kind:?string}>
	 */
	public array $segments;

	/**
	 * Kept bytes (strings) and segment places (`['key' => …, 'raw' => …]`).
	 *
	 * @var array<int, string|array{key:string, raw?:string}>
	 */
	public array $parts;

	/**
	 * What the service would refuse (a U+0000 in a block), each naming its line.
	 *
	 * @var array<int, array{line:int, key?:string, message:string}>
	 */
	public array $problems;

	/**
	 * A split.
	 *
	 * @param array<int, array<string,mixed>>        $segments The segments.
	 * @param array<int, string|array<string,mixed>> $parts    The template.
	 * @param array<int, array<string,mixed>>        $problems The problems.
	 */
	public function __construct( array $segments, array $parts, array $problems = array() ) {
		$this->segments = $segments;
		$this->parts    = $parts;
		$this->problems = $problems;
	}
}
