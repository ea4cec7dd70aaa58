<?php
/**
 * A node of the tree Html builds: what the kit's splitter reads of htmlparser2's DOM.
 *
 * @package Transync
 */

namespace Transync\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * An element, text, comment, declaration or the document.
 */
final class HtmlNode {
	/**
	 * `root`, `tag`, `text`, `comment` or `directive`.
	 *
	 * @var string
	 */
	public string $type;
	/**
	 * The tag's lowercase name (`!doctype` for a declaration), null for text, comments and the document.
	 *
	 * @var ?string
	 */
	public ?string $name;
	/**
	 * First byte of the node (htmlparser2's startIndex).
	 *
	 * @var int
	 */
	public int $start = 0;
	/**
	 * Last byte of the node (htmlparser2's endIndex).
	 *
	 * @var int
	 */
	public int $end = 0;
	/**
	 * A text node's text, entities decoded as far as whitespace goes (see Html::blank()).
	 *
	 * @var string
	 */
	public string $data = '';
	/**
	 * Children.
	 *
	 * @var HtmlNode[]
	 */
	public array $children = array();

	/**
	 * A node.
	 *
	 * @param string  $type Its type.
	 * @param ?string $name Its name.
	 */
	public function __construct( string $type, ?string $name = null ) {
		$this->type = $type;
		$this->name = $name;
	}
}
