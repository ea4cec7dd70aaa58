<?php
/**
 * A call the service refused or that did not reach it.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Status 0: unreachable; -1: not configured; otherwise the HTTP status, with the service's `detail`.
 */
final class Service_Error extends \Exception {

	/**
	 * The HTTP status (0: unreachable, -1: no key).
	 *
	 * @var int
	 */
	public int $status;

	/**
	 * The service's answer (for 402 and 409: its `code` and `estimate`).
	 *
	 * @var array<string, mixed>
	 */
	public array $body;

	/**
	 * An error.
	 *
	 * @param string               $detail The service's detail, or the network error.
	 * @param int                  $status The status.
	 * @param array<string, mixed> $body   The answer.
	 */
	public function __construct( string $detail, int $status, array $body = array() ) {
		parent::__construct( $detail );
		$this->status = $status;
		$this->body   = $body;
	}

	/**
	 * Whether the whole pass must stop (the key, the network, the service itself), rather than one task.
	 */
	public function stops_pass(): bool {
		return $this->status <= 0 || 401 === $this->status || 403 === $this->status || 429 === $this->status || $this->status >= 500;
	}

	/**
	 * The connection state it means: `no_key`, `wrong_key`, `unreachable` or `error`.
	 */
	public function state(): string {
		if ( -1 === $this->status ) {
			return 'no_key';
		}
		if ( 401 === $this->status ) {
			return 'wrong_key';
		}
		return 0 === $this->status ? 'unreachable' : 'error';
	}

	/**
	 * In words an administrator can act on (never the key or any text).
	 */
	public function describe(): string {
		$url = Client::url();
		switch ( $this->state() ) {
			case 'no_key':
				return __( 'No API key: add define( \'TRANSYNC_KEY\', \'tsk_…\' ); to wp-config.php (the key is on the site\'s API keys page in the Transync dashboard).', 'transync' );
			case 'wrong_key':
				/* translators: %s: the service's address. */
				return sprintf( __( 'The service at %s refused the API key (401): check TRANSYNC_KEY in wp-config.php.', 'transync' ), $url );
			case 'unreachable':
				/* translators: 1: the service's address, 2: the network error. */
				return sprintf( __( 'The service at %1$s is unreachable (%2$s).', 'transync' ), $url, $this->getMessage() );
		}
		/* translators: 1: the service's address, 2: the HTTP status, 3: the service's explanation. */
		return sprintf( __( 'The service at %1$s answered %2$d: %3$s', 'transync' ), $url, $this->status, $this->getMessage() );
	}
}
