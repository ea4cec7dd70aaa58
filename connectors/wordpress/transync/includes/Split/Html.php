<?php
/**
 * HTML → segments: a port of the kit's splitHtml (client/src/split/html.ts). Each innermost text
 * block (p, h1–h6, li, td, th, …) is a segment of its inner HTML; comments (WordPress's block
 * delimiters), script, style, pre, code and everything between blocks are kept byte for byte
 * and not sent.
 *
 * The kit reads the tree of htmlparser2 12 (HTML mode) with its start and end indices, so a
 * segment's range depends on how that parser closes tags (implied closes, stray end tags, text
 * at the end). This file ports its tokenizer and tree building state for state (Tokenizer.ts,
 * Parser.ts, domhandler's index rules), over bytes instead of UTF-16 units: every character the
 * parser tests is ASCII, and an ASCII byte never occurs inside a UTF-8 sequence, so the ranges are
 * the same. Entities are not decoded into the tree (they never move a boundary); a text node's
 * data decodes only what decides whether it is blank. tests/fixtures/split-cases.json holds the
 * kit's own answers, which the kit's tests and PHPUnit both check.
 *
 * @package Transync
 */

namespace Transync\Split;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * The splitter and its parser.
 */
final class Html {

	const BLOCKS = array( 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'td', 'th', 'dt', 'dd', 'figcaption', 'caption', 'blockquote', 'title', 'summary', 'legend', 'label', 'button', 'option', 'address' );
	const KEPT   = array( 'script', 'style', 'pre', 'code', 'template', 'svg', 'math', 'textarea' );

	/**
	 * Splits an HTML document or fragment; `join( $split, $translations )` gives it back.
	 *
	 * @param string                                   $doc      The document.
	 * @param array<int, array{key:string,text:string}> $previous The unit's current segments: keys are lined up with them.
	 */
	public static function split( string $doc, array $previous = array() ): Split {
		$dom    = self::parse( $doc );
		$key    = Keys::content_keys();
		$ranges = array();
		$blocks = array_flip( self::BLOCKS );
		$kept   = array_flip( self::KEPT );
		$visit  = static function ( HtmlNode $node ) use ( &$visit, &$ranges, $doc, $key, $blocks, $kept ): void {
			if ( null !== $node->name && isset( $kept[ $node->name ] ) ) {
				return;
			}
			if ( null !== $node->name && isset( $blocks[ $node->name ] ) && ! self::has_block( $node, $blocks ) && self::has_text( $node, $kept ) ) {
				$kids     = $node->children;
				$start    = $kids[0]->start;
				$end      = $kids[ count( $kids ) - 1 ]->end + 1;
				$text     = (string) substr( $doc, $start, max( 0, $end - $start ) );
				$ranges[] = array(
					'start'   => $start,
					'end'     => $end,
					'segment' => array(
						'key'    => $key( $node->name, $text ),
						'text'   => $text,
						'format' => 'html',
						'field'  => 'body',
						'kind'   => $node->name,
					),
				);
				return;
			}
			foreach ( $node->children as $child ) {
				$visit( $child );
			}
		};
		$visit( $dom );
		return Align::align_split( Keys::from_ranges( $doc, $ranges ), $previous );
	}

	/**
	 * The document with each segment's translation (its source text where none is given).
	 *
	 * @param Split                $split        The split.
	 * @param array<string,string> $translations Translations by key.
	 */
	public static function join( Split $split, array $translations ): string {
		return Keys::join_parts( $split, $translations );
	}

	/**
	 * Whether a descendant is a block.
	 *
	 * @param HtmlNode          $node   The node.
	 * @param array<string,int> $blocks The block names.
	 */
	private static function has_block( HtmlNode $node, array $blocks ): bool {
		foreach ( $node->children as $c ) {
			if ( ( null !== $c->name && isset( $blocks[ $c->name ] ) ) || self::has_block( $c, $blocks ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether some text below (outside kept elements) is not blank.
	 *
	 * @param HtmlNode          $node The node.
	 * @param array<string,int> $kept The kept names.
	 */
	private static function has_text( HtmlNode $node, array $kept ): bool {
		foreach ( $node->children as $c ) {
			if ( ( 'text' === $c->type && '' !== Keys::js_trim( $c->data ) ) || ( null !== $c->name && ! isset( $kept[ $c->name ] ) && self::has_text( $c, $kept ) ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A text piece as htmlparser2's data would be, as far as blankness goes: references to
	 * whitespace (`&nbsp;`, `&#32;`, `&Tab;`, … and `&nbsp` without its semicolon, as the HTML
	 * rules for text decode it) become that whitespace; any other reference stays as written.
	 *
	 * @param string $raw The piece as written.
	 */
	public static function decode_blank_refs( string $raw ): string {
		if ( false === strpos( $raw, '&' ) ) {
			return $raw;
		}
		return (string) preg_replace_callback(
			'/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*)(;?)/',
			static function ( array $m ): string {
				$ref = $m[1];
				if ( '#' === $ref[0] ) {
					$hex = 'x' === strtolower( $ref[1] );
					$num = $hex ? substr( $ref, 2 ) : substr( $ref, 1 );
					if ( strlen( ltrim( $num, '0' ) ) > 7 ) {
						return $m[0];
					}
					$cp = $hex ? hexdec( $num ) : (int) $num;
					if ( in_array( $cp, array( 9, 10, 11, 12, 13, 32, 160, 5760, 8232, 8233, 8239, 8287, 12288, 65279 ), true ) || ( $cp >= 8192 && $cp <= 8202 ) ) {
						return (string) mb_chr( (int) $cp, 'UTF-8' );
					}
					return $m[0];
				}
				if ( '' === $m[2] ) {
					return 'nbsp' === $ref ? "\u{00A0}" : $m[0];
				}
				$decoded = html_entity_decode( '&' . $ref . ';', ENT_QUOTES | ENT_HTML5, 'UTF-8' );
				return 1 === preg_match( '/^' . Keys::JS_SPACE . '+$/u', $decoded ) ? $decoded : $m[0];
			},
			$raw
		);
	}

	// ------------------------------------------------------------------------------------------
	// The parser: htmlparser2's Tokenizer (HTML mode), Parser and domhandler, as one state machine.

	const TEXT                       = 1;
	const BEFORE_TAG_NAME            = 2;
	const IN_TAG_NAME                = 3;
	const IN_SELF_CLOSING_TAG        = 4;
	const BEFORE_CLOSING_TAG_NAME    = 5;
	const IN_CLOSING_TAG_NAME        = 6;
	const AFTER_CLOSING_TAG_NAME     = 7;
	const BEFORE_ATTRIBUTE_NAME      = 8;
	const IN_ATTRIBUTE_NAME          = 9;
	const AFTER_ATTRIBUTE_NAME       = 10;
	const BEFORE_ATTRIBUTE_VALUE     = 11;
	const IN_ATTRIBUTE_VALUE_DQ      = 12;
	const IN_ATTRIBUTE_VALUE_SQ      = 13;
	const IN_ATTRIBUTE_VALUE_NQ      = 14;
	const BEFORE_DECLARATION         = 15;
	const IN_DECLARATION             = 16;
	const BEFORE_COMMENT             = 18;
	const CDATA_SEQUENCE             = 19;
	const DECLARATION_SEQUENCE       = 20;
	const IN_SPECIAL_COMMENT         = 21;
	const IN_COMMENT_LIKE            = 22;
	const SPECIAL_START_SEQUENCE     = 23;
	const IN_SPECIAL_TAG             = 24;
	const IN_PLAIN_TEXT              = 25;
	const SEQ_CDATA                  = 'CDATA[';
	const SEQ_CDATA_END              = ']]>';
	const SEQ_COMMENT_END            = '--!>';
	const SEQ_DOCTYPE                = 'doctype';
	const SEQ_IFRAME_END             = '</iframe';
	const SEQ_NOEMBED_END            = '</noembed';
	const SEQ_NOFRAMES_END           = '</noframes';
	const SEQ_PLAINTEXT              = '</plaintext';
	const SEQ_SCRIPT_END             = '</script';
	const SEQ_STYLE_END              = '</style';
	const SEQ_TITLE_END              = '</title';
	const SEQ_TEXTAREA_END           = '</textarea';
	const SEQ_XMP_END                = '</xmp';
	const SPECIAL_START              = array(
		'i' => self::SEQ_IFRAME_END,
		'n' => self::SEQ_NOEMBED_END,
		'p' => self::SEQ_PLAINTEXT,
		's' => self::SEQ_SCRIPT_END,
		't' => self::SEQ_TITLE_END,
		'x' => self::SEQ_XMP_END,
	);
	const VOID_ELEMENTS              = array( 'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr' );
	const FOREIGN_CONTEXT_ELEMENTS   = array( 'math', 'svg' );
	const HTML_INTEGRATION_ELEMENTS  = array( 'mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignObject', 'desc', 'title' );
	const SVG_TAG_NAME_ADJUSTMENTS   = array(
		'altglyph'            => 'altGlyph',
		'altglyphdef'         => 'altGlyphDef',
		'altglyphitem'        => 'altGlyphItem',
		'animatecolor'        => 'animateColor',
		'animatemotion'       => 'animateMotion',
		'animatetransform'    => 'animateTransform',
		'clippath'            => 'clipPath',
		'feblend'             => 'feBlend',
		'fecolormatrix'       => 'feColorMatrix',
		'fecomponenttransfer' => 'feComponentTransfer',
		'fecomposite'         => 'feComposite',
		'feconvolvematrix'    => 'feConvolveMatrix',
		'fediffuselighting'   => 'feDiffuseLighting',
		'fedisplacementmap'   => 'feDisplacementMap',
		'fedistantlight'      => 'feDistantLight',
		'fedropshadow'        => 'feDropShadow',
		'feflood'             => 'feFlood',
		'fefunca'             => 'feFuncA',
		'fefuncb'             => 'feFuncB',
		'fefuncg'             => 'feFuncG',
		'fefuncr'             => 'feFuncR',
		'fegaussianblur'      => 'feGaussianBlur',
		'feimage'             => 'feImage',
		'femerge'             => 'feMerge',
		'femergenode'         => 'feMergeNode',
		'femorphology'        => 'feMorphology',
		'feoffset'            => 'feOffset',
		'fepointlight'        => 'fePointLight',
		'fespecularlighting'  => 'feSpecularLighting',
		'fespotlight'         => 'feSpotLight',
		'fetile'              => 'feTile',
		'feturbulence'        => 'feTurbulence',
		'foreignobject'       => 'foreignObject',
		'glyphref'            => 'glyphRef',
		'lineargradient'      => 'linearGradient',
		'radialgradient'      => 'radialGradient',
		'textpath'            => 'textPath',
	);
	const FOREIGN_NONE               = 0;
	const FOREIGN_SVG                = 1;
	const FOREIGN_MATHML             = 2;

	/**
	 * The tags an opening tag closes when they are open (htmlparser2's openImpliesClose).
	 *
	 * @return array<string, string[]>
	 */
	private static function open_implies_close(): array {
		static $map = null;
		if ( null !== $map ) {
			return $map;
		}
		$form    = array( 'input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea' );
		$p       = array( 'p' );
		$heading = array( 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p' );
		$map     = array(
			'tr'       => array( 'tr', 'th', 'td' ),
			'th'       => array( 'th' ),
			'td'       => array( 'thead', 'th', 'td' ),
			'body'     => array( 'head', 'link', 'script' ),
			'a'        => array( 'a' ),
			'li'       => array( 'li' ),
			'p'        => $p,
			'h1'       => $heading,
			'h2'       => $heading,
			'h3'       => $heading,
			'h4'       => $heading,
			'h5'       => $heading,
			'h6'       => $heading,
			'select'   => $form,
			'input'    => $form,
			'output'   => $form,
			'button'   => $form,
			'datalist' => $form,
			'textarea' => $form,
			'option'   => array( 'option' ),
			'optgroup' => array( 'optgroup', 'option' ),
			'dd'       => array( 'dd', 'dt' ),
			'dt'       => array( 'dd', 'dt' ),
			'rt'       => array( 'rt', 'rp' ),
			'rp'       => array( 'rt', 'rp' ),
			'tbody'    => array( 'thead', 'tbody' ),
			'tfoot'    => array( 'thead', 'tbody' ),
		);
		foreach ( array( 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul' ) as $name ) {
			$map[ $name ] = $p;
		}
		return $map;
	}

	// Tokenizer state.
	/** @var string */
	private string $buffer = '';
	/** @var int */
	private int $length = 0;
	/** @var int */
	private int $state = self::TEXT;
	/** @var int */
	private int $section_start = 0;
	/** @var int */
	private int $index = 0;
	/** @var bool */
	private bool $is_special = false;
	/** @var string */
	private string $current_sequence = '';
	/** @var int */
	private int $sequence_index = 0;

	// Parser state.
	/** @var int */
	private int $start_index = 0;
	/** @var int */
	private int $end_index = 0;
	/** @var int */
	private int $open_tag_start = 0;
	/** @var string */
	private string $tagname = '';
	/** @var bool Whether an opening tag's element is waiting for the end of its tag (htmlparser2's `attribs !== null`). */
	private bool $attribs = false;
	/** @var string[] Open elements, the innermost last. */
	private array $stack = array();
	/** @var int[] Foreign contexts, the innermost last. */
	private array $foreign = array( self::FOREIGN_NONE );

	// Tree state.
	/** @var HtmlNode */
	private HtmlNode $root;
	/** @var HtmlNode[] */
	private array $tag_stack;
	/** @var ?HtmlNode */
	private ?HtmlNode $last_node = null;

	/**
	 * The document's tree, as htmlparser2's parseDocument with start and end indices builds it.
	 *
	 * @param string $doc The document.
	 */
	public static function parse( string $doc ): HtmlNode {
		$parser = new self( $doc );
		$parser->run();
		return $parser->root;
	}

	/**
	 * A parser of one document.
	 *
	 * @param string $doc The document.
	 */
	private function __construct( string $doc ) {
		$this->buffer    = $doc;
		$this->length    = strlen( $doc );
		$this->root      = new HtmlNode( 'root' );
		$this->tag_stack = array( $this->root );
	}

	/**
	 * Runs the tokenizer over the whole document, then ends it.
	 */
	private function run(): void {
		while ( $this->index < $this->length ) {
			$c = ord( $this->buffer[ $this->index ] );
			switch ( $this->state ) {
				case self::TEXT:
					$this->state_text( $c );
					break;
				case self::IN_PLAIN_TEXT:
					$this->index = $this->length - 1;
					break;
				case self::SPECIAL_START_SEQUENCE:
					$this->state_special_start_sequence( $c );
					break;
				case self::IN_SPECIAL_TAG:
					$this->state_in_special_tag( $c );
					break;
				case self::CDATA_SEQUENCE:
					$this->state_cdata_sequence( $c );
					break;
				case self::DECLARATION_SEQUENCE:
					$this->state_declaration_sequence( $c );
					break;
				case self::IN_ATTRIBUTE_VALUE_DQ:
					$this->handle_in_attribute_value( $c, 0x22 );
					break;
				case self::IN_ATTRIBUTE_NAME:
					$this->state_in_attribute_name( $c );
					break;
				case self::IN_COMMENT_LIKE:
					$this->state_in_comment_like( $c );
					break;
				case self::IN_SPECIAL_COMMENT:
					$this->state_in_special_comment( $c );
					break;
				case self::BEFORE_ATTRIBUTE_NAME:
					$this->state_before_attribute_name( $c );
					break;
				case self::IN_TAG_NAME:
					$this->state_in_tag_name( $c );
					break;
				case self::IN_CLOSING_TAG_NAME:
					$this->state_in_closing_tag_name( $c );
					break;
				case self::BEFORE_TAG_NAME:
					$this->state_before_tag_name( $c );
					break;
				case self::AFTER_ATTRIBUTE_NAME:
					$this->state_after_attribute_name( $c );
					break;
				case self::IN_ATTRIBUTE_VALUE_SQ:
					$this->handle_in_attribute_value( $c, 0x27 );
					break;
				case self::BEFORE_ATTRIBUTE_VALUE:
					$this->state_before_attribute_value( $c );
					break;
				case self::BEFORE_CLOSING_TAG_NAME:
					$this->state_before_closing_tag_name( $c );
					break;
				case self::AFTER_CLOSING_TAG_NAME:
					$this->state_after_closing_tag_name( $c );
					break;
				case self::IN_ATTRIBUTE_VALUE_NQ:
					$this->state_in_attribute_value_no_quotes( $c );
					break;
				case self::IN_SELF_CLOSING_TAG:
					$this->state_in_self_closing_tag( $c );
					break;
				case self::IN_DECLARATION:
					$this->state_in_declaration( $c );
					break;
				case self::BEFORE_DECLARATION:
					$this->state_before_declaration( $c );
					break;
				case self::BEFORE_COMMENT:
					$this->state_before_comment( $c );
					break;
			}
			++$this->index;
		}
		$this->cleanup();
		$this->handle_trailing_data();
		$this->on_end();
	}

	/**
	 * A byte of the document.
	 *
	 * @param int $i Its index.
	 */
	private function at( int $i ): int {
		return ord( $this->buffer[ $i ] );
	}

	/**
	 * Whether `$c` is HTML whitespace.
	 *
	 * @param int $c A byte.
	 */
	private static function is_whitespace( int $c ): bool {
		return 0x20 === $c || 0x0a === $c || 0x09 === $c || 0x0c === $c || 0x0d === $c;
	}

	/**
	 * Whether `$c` ends a tag name or attribute.
	 *
	 * @param int $c A byte.
	 */
	private static function is_end_of_tag_section( int $c ): bool {
		return 0x2f === $c || 0x3e === $c || self::is_whitespace( $c );
	}

	/**
	 * Whether `$c` is an ASCII letter.
	 *
	 * @param int $c A byte.
	 */
	private static function is_ascii_alpha( int $c ): bool {
		return ( $c >= 0x61 && $c <= 0x7a ) || ( $c >= 0x41 && $c <= 0x5a );
	}

	/**
	 * The byte of a sequence at `$i`.
	 *
	 * @param string $sequence The sequence.
	 * @param int    $i        The index.
	 */
	private static function seq( string $sequence, int $i ): int {
		return $i < strlen( $sequence ) ? ord( $sequence[ $i ] ) : -1;
	}

	/**
	 * Text state.
	 *
	 * @param int $c The byte.
	 */
	private function state_text( int $c ): void {
		if ( 0x3c === $c ) {
			if ( $this->index > $this->section_start ) {
				$this->on_text( $this->section_start, $this->index );
			}
			$this->state         = self::BEFORE_TAG_NAME;
			$this->section_start = $this->index;
		}
	}

	/**
	 * Body of a tag: plain text, raw text of a special tag, or plaintext.
	 */
	private function enter_tag_body(): void {
		if ( self::SEQ_PLAINTEXT === $this->current_sequence ) {
			$this->current_sequence = '';
			$this->state            = self::IN_PLAIN_TEXT;
		} elseif ( $this->is_special ) {
			$this->state          = self::IN_SPECIAL_TAG;
			$this->sequence_index = 0;
		} else {
			$this->state = self::TEXT;
		}
	}

	/**
	 * Matches an opening tag name against the special (raw text) tags.
	 *
	 * @param int $c The byte.
	 */
	private function state_special_start_sequence( int $c ): void {
		$lower = $c | 0x20;
		if ( $this->sequence_index < strlen( $this->current_sequence ) ) {
			if ( self::seq( $this->current_sequence, $this->sequence_index ) === $lower ) {
				++$this->sequence_index;
				return;
			}
			if ( 3 === $this->sequence_index ) {
				if ( self::SEQ_SCRIPT_END === $this->current_sequence && self::seq( self::SEQ_STYLE_END, 3 ) === $lower ) {
					$this->current_sequence = self::SEQ_STYLE_END;
					$this->sequence_index   = 4;
					return;
				}
				if ( self::SEQ_TITLE_END === $this->current_sequence && self::seq( self::SEQ_TEXTAREA_END, 3 ) === $lower ) {
					$this->current_sequence = self::SEQ_TEXTAREA_END;
					$this->sequence_index   = 4;
					return;
				}
			} elseif ( 4 === $this->sequence_index && self::SEQ_NOEMBED_END === $this->current_sequence && self::seq( self::SEQ_NOFRAMES_END, 4 ) === $lower ) {
				$this->current_sequence = self::SEQ_NOFRAMES_END;
				$this->sequence_index   = 5;
				return;
			}
		} elseif ( self::is_end_of_tag_section( $c ) ) {
			$this->sequence_index = 0;
			$this->state          = self::IN_TAG_NAME;
			$this->state_in_tag_name( $c );
			return;
		}
		$this->is_special       = false;
		$this->current_sequence = '';
		$this->sequence_index   = 0;
		$this->state            = self::IN_TAG_NAME;
		$this->state_in_tag_name( $c );
	}

	/**
	 * After `<![`.
	 *
	 * @param int $c The byte.
	 */
	private function state_cdata_sequence( int $c ): void {
		if ( self::seq( self::SEQ_CDATA, $this->sequence_index ) === $c ) {
			if ( ++$this->sequence_index === strlen( self::SEQ_CDATA ) ) {
				$this->state            = self::IN_COMMENT_LIKE;
				$this->current_sequence = self::SEQ_CDATA_END;
				$this->sequence_index   = 0;
				$this->section_start    = $this->index + 1;
			}
		} else {
			$this->sequence_index = 0;
			$this->state          = self::IN_SPECIAL_COMMENT;
			$this->state_in_special_comment( $c );
		}
	}

	/**
	 * Skips to the next `$c`; answers whether it was found (else the index is at the last byte).
	 *
	 * @param int $c The byte looked for.
	 */
	private function fast_forward_to( int $c ): bool {
		while ( ++$this->index < $this->length ) {
			if ( $this->at( $this->index ) === $c ) {
				return true;
			}
		}
		$this->index = $this->length - 1;
		return false;
	}

	/**
	 * Emits a comment and goes back to text.
	 *
	 * @param int $offset Bytes of the end sequence already matched.
	 */
	private function emit_comment( int $offset ): void {
		$this->on_comment( $this->section_start, $this->index, $offset );
		$this->sequence_index = 0;
		$this->section_start  = $this->index + 1;
		$this->state          = self::TEXT;
	}

	/**
	 * Inside a comment or CDATA section.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_comment_like( int $c ): void {
		$is_comment = self::SEQ_COMMENT_END === $this->current_sequence;
		if ( $is_comment && $this->sequence_index <= 1 && $this->index === $this->section_start + $this->sequence_index && 0x3e === $c ) {
			$this->emit_comment( $this->sequence_index );
		} elseif ( $is_comment && 2 === $this->sequence_index && 0x3e === $c ) {
			$this->emit_comment( 2 );
		} elseif ( $is_comment && strlen( $this->current_sequence ) - 1 === $this->sequence_index && 0x3e !== $c ) {
			$this->sequence_index = 0x2d === $c ? 1 : 0;
		} elseif ( self::seq( $this->current_sequence, $this->sequence_index ) === $c ) {
			if ( ++$this->sequence_index === strlen( $this->current_sequence ) ) {
				if ( self::SEQ_CDATA_END === $this->current_sequence ) {
					$this->on_cdata( $this->section_start, $this->index, 2 );
				} else {
					$this->on_comment( $this->section_start, $this->index, 3 );
				}
				$this->sequence_index = 0;
				$this->section_start  = $this->index + 1;
				$this->state          = self::TEXT;
			}
		} elseif ( 0 === $this->sequence_index ) {
			if ( $this->fast_forward_to( self::seq( $this->current_sequence, 0 ) ) ) {
				$this->sequence_index = 1;
			}
		} elseif ( self::seq( $this->current_sequence, $this->sequence_index - 1 ) !== $c ) {
			$this->sequence_index = 0;
		}
	}

	/**
	 * Raw text of script, style, … (and RCDATA of title, textarea) up to its end tag.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_special_tag( int $c ): void {
		$length = strlen( $this->current_sequence );
		if ( $this->sequence_index === $length ) {
			if ( self::is_end_of_tag_section( $c ) ) {
				$end_of_text = $this->index - $length;
				if ( $this->section_start < $end_of_text ) {
					$actual      = $this->index;
					$this->index = $end_of_text;
					$this->on_text( $this->section_start, $end_of_text );
					$this->index = $actual;
				}
				$this->is_special    = false;
				$this->section_start = $end_of_text + 2;
				$this->state_in_closing_tag_name( $c );
				return;
			}
			$this->sequence_index = 0;
		}
		if ( ( $c | 0x20 ) === self::seq( $this->current_sequence, $this->sequence_index ) ) {
			++$this->sequence_index;
		} elseif ( 0 === $this->sequence_index ) {
			if ( self::SEQ_TITLE_END !== $this->current_sequence && self::SEQ_TEXTAREA_END !== $this->current_sequence && $this->fast_forward_to( 0x3c ) ) {
				$this->sequence_index = 1;
			}
		} else {
			$this->sequence_index = 0x3c === $c ? 1 : 0;
		}
	}

	/**
	 * After `<`.
	 *
	 * @param int $c The byte.
	 */
	private function state_before_tag_name( int $c ): void {
		if ( 0x21 === $c ) {
			$this->state         = self::BEFORE_DECLARATION;
			$this->section_start = $this->index + 1;
		} elseif ( 0x3f === $c ) {
			$this->state         = self::IN_SPECIAL_COMMENT;
			$this->section_start = $this->index;
		} elseif ( self::is_ascii_alpha( $c ) ) {
			$this->section_start = $this->index;
			$special             = $this->is_in_foreign_context() ? null : ( self::SPECIAL_START[ chr( $c | 0x20 ) ] ?? null );
			if ( null === $special ) {
				$this->state = self::IN_TAG_NAME;
			} else {
				$this->is_special       = true;
				$this->current_sequence = $special;
				$this->sequence_index   = 3;
				$this->state            = self::SPECIAL_START_SEQUENCE;
			}
		} elseif ( 0x2f === $c ) {
			$this->state = self::BEFORE_CLOSING_TAG_NAME;
		} else {
			$this->state = self::TEXT;
			$this->state_text( $c );
		}
	}

	/**
	 * In an opening tag's name.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_tag_name( int $c ): void {
		if ( self::is_end_of_tag_section( $c ) ) {
			$this->on_open_tag_name( $this->section_start, $this->index );
			$this->section_start = -1;
			$this->state         = self::BEFORE_ATTRIBUTE_NAME;
			$this->state_before_attribute_name( $c );
		}
	}

	/**
	 * After `</`.
	 *
	 * @param int $c The byte.
	 */
	private function state_before_closing_tag_name( int $c ): void {
		if ( self::is_whitespace( $c ) ) {
			$this->state         = self::IN_SPECIAL_COMMENT;
			$this->section_start = $this->index;
		} elseif ( 0x3e === $c ) {
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		} else {
			$this->state         = self::is_ascii_alpha( $c ) ? self::IN_CLOSING_TAG_NAME : self::IN_SPECIAL_COMMENT;
			$this->section_start = $this->index;
		}
	}

	/**
	 * In a closing tag's name.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_closing_tag_name( int $c ): void {
		if ( self::is_end_of_tag_section( $c ) ) {
			$this->on_close_tag( $this->section_start, $this->index );
			$this->section_start = -1;
			$this->state         = self::AFTER_CLOSING_TAG_NAME;
			$this->state_after_closing_tag_name( $c );
		}
	}

	/**
	 * After a closing tag's name: everything up to `>` is skipped.
	 *
	 * @param int $c The byte.
	 */
	private function state_after_closing_tag_name( int $c ): void {
		if ( 0x3e === $c || $this->fast_forward_to( 0x3e ) ) {
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		}
	}

	/**
	 * Before an attribute's name (or the end of the tag).
	 *
	 * @param int $c The byte.
	 */
	private function state_before_attribute_name( int $c ): void {
		if ( 0x3e === $c ) {
			$this->on_open_tag_end( $this->index );
			$this->enter_tag_body();
			$this->section_start = $this->index + 1;
		} elseif ( 0x2f === $c ) {
			$this->state = self::IN_SELF_CLOSING_TAG;
		} elseif ( ! self::is_whitespace( $c ) ) {
			$this->state         = self::IN_ATTRIBUTE_NAME;
			$this->section_start = $this->index;
		}
	}

	/**
	 * After `/` in an opening tag.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_self_closing_tag( int $c ): void {
		if ( 0x3e === $c ) {
			$this->on_self_closing_tag( $this->index );
			$this->section_start = $this->index + 1;
			$this->enter_tag_body();
		} elseif ( ! self::is_whitespace( $c ) ) {
			$this->state = self::BEFORE_ATTRIBUTE_NAME;
			$this->state_before_attribute_name( $c );
		}
	}

	/**
	 * In an attribute's name.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_attribute_name( int $c ): void {
		if ( 0x3d === $c || self::is_end_of_tag_section( $c ) ) {
			$this->start_index   = $this->section_start; // Parser.onattribname.
			$this->section_start = $this->index;
			$this->state         = self::AFTER_ATTRIBUTE_NAME;
			$this->state_after_attribute_name( $c );
		}
	}

	/**
	 * After an attribute's name.
	 *
	 * @param int $c The byte.
	 */
	private function state_after_attribute_name( int $c ): void {
		if ( 0x3d === $c ) {
			$this->state = self::BEFORE_ATTRIBUTE_VALUE;
		} elseif ( 0x2f === $c || 0x3e === $c ) {
			$this->end_index     = $this->section_start; // Parser.onattribend.
			$this->section_start = -1;
			$this->state         = self::BEFORE_ATTRIBUTE_NAME;
			$this->state_before_attribute_name( $c );
		} elseif ( ! self::is_whitespace( $c ) ) {
			$this->end_index     = $this->section_start;
			$this->state         = self::IN_ATTRIBUTE_NAME;
			$this->section_start = $this->index;
		}
	}

	/**
	 * Before an attribute's value.
	 *
	 * @param int $c The byte.
	 */
	private function state_before_attribute_value( int $c ): void {
		if ( 0x22 === $c ) {
			$this->state         = self::IN_ATTRIBUTE_VALUE_DQ;
			$this->section_start = $this->index + 1;
		} elseif ( 0x27 === $c ) {
			$this->state         = self::IN_ATTRIBUTE_VALUE_SQ;
			$this->section_start = $this->index + 1;
		} elseif ( ! self::is_whitespace( $c ) ) {
			$this->section_start = $this->index;
			$this->state         = self::IN_ATTRIBUTE_VALUE_NQ;
			$this->state_in_attribute_value_no_quotes( $c );
		}
	}

	/**
	 * In a quoted attribute value.
	 *
	 * @param int $c     The byte.
	 * @param int $quote The quote.
	 */
	private function handle_in_attribute_value( int $c, int $quote ): void {
		if ( $c === $quote ) {
			$this->section_start = -1;
			$this->end_index     = $this->index + 1; // Parser.onattribend.
			$this->state         = self::BEFORE_ATTRIBUTE_NAME;
		}
	}

	/**
	 * In an unquoted attribute value.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_attribute_value_no_quotes( int $c ): void {
		if ( self::is_whitespace( $c ) || 0x3e === $c ) {
			$this->section_start = -1;
			$this->end_index     = $this->index;
			$this->state         = self::BEFORE_ATTRIBUTE_NAME;
			$this->state_before_attribute_name( $c );
		}
	}

	/**
	 * After `<!`.
	 *
	 * @param int $c The byte.
	 */
	private function state_before_declaration( int $c ): void {
		if ( 0x5b === $c ) {
			$this->state          = self::CDATA_SEQUENCE;
			$this->sequence_index = 0;
		} elseif ( ( $c | 0x20 ) === ord( 'd' ) ) {
			$this->state            = self::DECLARATION_SEQUENCE;
			$this->current_sequence = self::SEQ_DOCTYPE;
			$this->sequence_index   = 1;
		} elseif ( 0x3e === $c ) {
			$this->on_comment( $this->section_start, $this->index, 0 );
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		} elseif ( 0x2d === $c ) {
			$this->state = self::BEFORE_COMMENT;
		} else {
			$this->state = self::IN_SPECIAL_COMMENT;
		}
	}

	/**
	 * Matching `doctype` after `<!d`.
	 *
	 * @param int $c The byte.
	 */
	private function state_declaration_sequence( int $c ): void {
		if ( $this->sequence_index === strlen( $this->current_sequence ) ) {
			$this->state = self::IN_DECLARATION;
			$this->state_in_declaration( $c );
		} elseif ( ( $c | 0x20 ) === self::seq( $this->current_sequence, $this->sequence_index ) ) {
			++$this->sequence_index;
		} elseif ( 0x3e === $c ) {
			$this->on_comment( $this->section_start, $this->index, 0 );
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		} else {
			$this->state = self::IN_SPECIAL_COMMENT;
		}
	}

	/**
	 * In a declaration (a doctype).
	 *
	 * @param int $c The byte.
	 */
	private function state_in_declaration( int $c ): void {
		if ( 0x3e === $c || $this->fast_forward_to( 0x3e ) ) {
			$this->on_declaration( $this->section_start, $this->index );
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		}
	}

	/**
	 * After `<!-`.
	 *
	 * @param int $c The byte.
	 */
	private function state_before_comment( int $c ): void {
		if ( 0x2d === $c ) {
			$this->state            = self::IN_COMMENT_LIKE;
			$this->current_sequence = self::SEQ_COMMENT_END;
			$this->sequence_index   = 0;
			$this->section_start    = $this->index + 1;
		} elseif ( 0x3e === $c ) {
			$this->on_comment( $this->section_start, $this->index, 0 );
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		} else {
			$this->state = self::IN_SPECIAL_COMMENT;
		}
	}

	/**
	 * A bogus comment (`<?…>`, `<!x…>`, `</ …>`), up to `>`.
	 *
	 * @param int $c The byte.
	 */
	private function state_in_special_comment( int $c ): void {
		if ( 0x3e === $c || $this->fast_forward_to( 0x3e ) ) {
			$this->on_comment( $this->section_start, $this->index, 0 );
			$this->state         = self::TEXT;
			$this->section_start = $this->index + 1;
		}
	}

	/**
	 * Emits what was read of text at the end of the buffer.
	 */
	private function cleanup(): void {
		if ( $this->section_start !== $this->index ) {
			if ( self::TEXT === $this->state || self::IN_PLAIN_TEXT === $this->state || ( self::IN_SPECIAL_TAG === $this->state && 0 === $this->sequence_index ) ) {
				$this->on_text( $this->section_start, $this->index );
				$this->section_start = $this->index;
			}
		}
	}

	/**
	 * What remains at the end of the document: an unclosed comment, declaration or text.
	 */
	private function handle_trailing_data(): void {
		$end = $this->length;
		if ( self::IN_COMMENT_LIKE === $this->state ) {
			if ( self::SEQ_CDATA_END === $this->current_sequence ) {
				$this->on_comment( $this->section_start - strlen( self::SEQ_CDATA ) - 1, $end, 0 );
			} else {
				$this->on_comment( $this->section_start, $end, min( $this->sequence_index, strlen( self::SEQ_COMMENT_END ) - 1 ) );
			}
			return;
		}
		switch ( $this->state ) {
			case self::BEFORE_DECLARATION:
			case self::IN_SPECIAL_COMMENT:
			case self::BEFORE_COMMENT:
			case self::CDATA_SEQUENCE:
				$this->on_comment( $this->section_start, $end, 0 );
				return;
			case self::DECLARATION_SEQUENCE:
				if ( strlen( self::SEQ_DOCTYPE ) !== $this->sequence_index ) {
					$this->on_comment( $this->section_start, $end, 0 );
				}
				return;
			case self::IN_DECLARATION:
				return;
		}
		if ( $this->section_start >= $end ) {
			return;
		}
		switch ( $this->state ) {
			case self::IN_TAG_NAME:
			case self::BEFORE_ATTRIBUTE_NAME:
			case self::BEFORE_ATTRIBUTE_VALUE:
			case self::AFTER_ATTRIBUTE_NAME:
			case self::IN_ATTRIBUTE_NAME:
			case self::IN_ATTRIBUTE_VALUE_SQ:
			case self::IN_ATTRIBUTE_VALUE_DQ:
			case self::IN_ATTRIBUTE_VALUE_NQ:
			case self::IN_CLOSING_TAG_NAME:
				break;
			default:
				$this->on_text( $this->section_start, $end );
		}
	}

	// Parser events (Parser.ts) feeding the tree (domhandler).

	/**
	 * Whether the innermost context is SVG or MathML.
	 */
	private function is_in_foreign_context(): bool {
		return self::FOREIGN_NONE !== $this->foreign[ count( $this->foreign ) - 1 ];
	}

	/**
	 * Whether a name is a void element.
	 *
	 * @param string $name The name.
	 */
	private static function is_void( string $name ): bool {
		return in_array( $name, self::VOID_ELEMENTS, true );
	}

	/**
	 * A tag's name as the parser stores it.
	 *
	 * @param int $start First byte.
	 * @param int $end   After the last byte.
	 */
	private function read_tag_name( int $start, int $end ): string {
		$name = strtolower( substr( $this->buffer, $start, $end - $start ) );
		$top  = $this->foreign[ count( $this->foreign ) - 1 ];
		if ( self::FOREIGN_SVG === $top ) {
			return self::SVG_TAG_NAME_ADJUSTMENTS[ $name ] ?? $name;
		}
		if ( count( $this->foreign ) > 1 ) {
			$adjusted = self::SVG_TAG_NAME_ADJUSTMENTS[ $name ] ?? null;
			if ( null !== $adjusted && in_array( $adjusted, $this->stack, true ) ) {
				return $adjusted;
			}
		}
		if ( ! $this->is_in_foreign_context() ) {
			return 'image' === $name ? 'img' : $name;
		}
		return $name;
	}

	/**
	 * Text from `$start` to before `$end`.
	 *
	 * @param int $start First byte.
	 * @param int $end   After the last byte.
	 */
	private function on_text( int $start, int $end ): void {
		$this->end_index = $end - 1;
		$this->tree_text( self::decode_blank_refs( substr( $this->buffer, $start, $end - $start ) ) );
		$this->start_index = $end;
	}

	/**
	 * An opening tag's name was read.
	 *
	 * @param int $start First byte of the name.
	 * @param int $end   After the name.
	 */
	private function on_open_tag_name( int $start, int $end ): void {
		$this->end_index = $end;
		$this->emit_open_tag( $this->read_tag_name( $start, $end ) );
	}

	/**
	 * Opens an element (closing those it implies).
	 *
	 * @param string $name The name.
	 */
	private function emit_open_tag( string $name ): void {
		$this->open_tag_start = $this->start_index;
		$this->tagname        = $name;
		if ( 'form' === $name && in_array( 'form', $this->stack, true ) ) {
			$this->tagname = '';
			return;
		}
		$implies = self::open_implies_close()[ $name ] ?? null;
		if ( null !== $implies ) {
			while ( count( $this->stack ) > 0 && in_array( $this->stack[ count( $this->stack ) - 1 ], $implies, true ) ) {
				$this->pop_element();
			}
		}
		if ( ! self::is_void( $name ) ) {
			$this->stack[] = $name;
			if ( 'svg' === $name ) {
				$this->foreign[] = self::FOREIGN_SVG;
			} elseif ( 'math' === $name ) {
				$this->foreign[] = self::FOREIGN_MATHML;
			} elseif ( in_array( $name, self::HTML_INTEGRATION_ELEMENTS, true ) ) {
				$this->foreign[] = self::FOREIGN_NONE;
			}
		}
		$this->attribs = true;
	}

	/**
	 * The end of an opening tag: its element enters the tree.
	 */
	private function end_open_tag(): void {
		$this->start_index = $this->open_tag_start;
		if ( $this->attribs ) {
			$this->tree_open_tag( $this->tagname );
			$this->attribs = false;
		}
		if ( self::is_void( $this->tagname ) ) {
			$this->tree_close_tag();
		}
		$this->tagname = '';
	}

	/**
	 * `>` of an opening tag.
	 *
	 * @param int $end Its index.
	 */
	private function on_open_tag_end( int $end ): void {
		$this->end_index = $end;
		$this->end_open_tag();
		$this->start_index = $end + 1;
	}

	/**
	 * A closing tag's name was read.
	 *
	 * @param int $start First byte of the name.
	 * @param int $end   After the name.
	 */
	private function on_close_tag( int $start, int $end ): void {
		$this->end_index = $end;
		$name            = $this->read_tag_name( $start, $end );
		if ( ! self::is_void( $name ) ) {
			$pos = array_search( $name, array_reverse( $this->stack ), true );
			if ( false !== $pos ) {
				for ( $i = 0; $i < $pos; $i++ ) {
					$this->pop_element();
				}
				$this->pop_element();
			} elseif ( 'p' === $name ) {
				$this->emit_open_tag( 'p' );
				$this->close_current_tag();
			}
		} elseif ( 'br' === $name ) {
			$this->tree_open_tag( 'br' );
			$this->tree_close_tag();
		}
		$this->start_index = $end + 1;
	}

	/**
	 * `/>` of an opening tag: ignored in HTML, except in SVG and MathML.
	 *
	 * @param int $end The index of `>`.
	 */
	private function on_self_closing_tag( int $end ): void {
		$this->end_index = $end;
		if ( $this->is_in_foreign_context() ) {
			$this->close_current_tag();
			$this->start_index = $end + 1;
		} else {
			$this->on_open_tag_end( $end );
		}
	}

	/**
	 * Pops the innermost open element.
	 */
	private function pop_element(): void {
		$element = array_pop( $this->stack );
		if ( in_array( $element, self::FOREIGN_CONTEXT_ELEMENTS, true ) || in_array( $element, self::HTML_INTEGRATION_ELEMENTS, true ) ) {
			array_pop( $this->foreign );
		}
		$this->tree_close_tag();
	}

	/**
	 * Ends the current opening tag and closes its element.
	 */
	private function close_current_tag(): void {
		$name = $this->tagname;
		$this->end_open_tag();
		if ( count( $this->stack ) > 0 && $this->stack[ count( $this->stack ) - 1 ] === $name ) {
			$this->pop_element();
		}
	}

	/**
	 * A doctype.
	 *
	 * @param int $start First byte after `<!`.
	 * @param int $end   The index of `>`.
	 */
	private function on_declaration( int $start, int $end ): void {
		$this->end_index = $end;
		$this->tree_add( new HtmlNode( 'directive', '!doctype' ) );
		$this->start_index = $end + 1;
	}

	/**
	 * A comment.
	 *
	 * @param int $start  First byte of its data.
	 * @param int $end    The index of its last byte.
	 * @param int $offset Bytes of the end sequence.
	 */
	private function on_comment( int $start, int $end, int $offset ): void {
		$this->end_index = $end;
		if ( null === $this->last_node || 'comment' !== $this->last_node->type ) {
			$node = new HtmlNode( 'comment' );
			$this->tree_add( $node );
		}
		$this->last_node   = null;
		$this->start_index = $end + 1;
	}

	/**
	 * A CDATA section: text in SVG and MathML, a comment elsewhere.
	 *
	 * @param int $start  First byte of its data.
	 * @param int $end    The index of its last byte.
	 * @param int $offset Bytes of the end sequence.
	 */
	private function on_cdata( int $start, int $end, int $offset ): void {
		$this->end_index = $end;
		if ( $this->is_in_foreign_context() ) {
			$this->tree_text( substr( $this->buffer, $start, $end - $offset - $start ) );
		} else {
			if ( null === $this->last_node || 'comment' !== $this->last_node->type ) {
				$this->tree_add( new HtmlNode( 'comment' ) );
			}
			$this->last_node = null;
		}
		$this->start_index = $end + 1;
	}

	/**
	 * The end: every element still open is closed at the current index.
	 */
	private function on_end(): void {
		$this->end_index = $this->start_index;
		for ( $i = count( $this->stack ) - 1; $i >= 0; $i-- ) {
			$this->tree_close_tag();
		}
	}

	/**
	 * Tree: adds a node under the innermost open element.
	 *
	 * @param HtmlNode $node The node.
	 */
	private function tree_add( HtmlNode $node ): void {
		$node->start = $this->start_index;
		$node->end   = $this->end_index;
		$this->tag_stack[ count( $this->tag_stack ) - 1 ]->children[] = $node;
		$this->last_node = null;
	}

	/**
	 * Tree: an element opens.
	 *
	 * @param string $name Its name.
	 */
	private function tree_open_tag( string $name ): void {
		$element = new HtmlNode( 'tag', $name );
		$this->tree_add( $element );
		$this->tag_stack[] = $element;
	}

	/**
	 * Tree: the innermost element closes (the document itself, when none is open).
	 */
	private function tree_close_tag(): void {
		$this->last_node = null;
		$element         = count( $this->tag_stack ) > 1 ? array_pop( $this->tag_stack ) : $this->tag_stack[0];
		$element->end    = $this->end_index;
	}

	/**
	 * Tree: text, merged into the text node just before it.
	 *
	 * @param string $data The text.
	 */
	private function tree_text( string $data ): void {
		if ( null !== $this->last_node && 'text' === $this->last_node->type ) {
			$this->last_node->data .= $data;
			$this->last_node->end   = $this->end_index;
			return;
		}
		$node       = new HtmlNode( 'text' );
		$node->data = $data;
		$this->tree_add( $node );
		$this->last_node = $node;
	}
}
