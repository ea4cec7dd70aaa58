<?php
/**
 * The service's API over WordPress's HTTP API. The key and the address come from wp-config.php
 * (TRANSYNC_KEY, TRANSYNC_URL), read at every call, never stored.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Calls to the service.
 */
final class Client {

	const DEFAULT_URL = 'https://api.transync.dev';

	/**
	 * The service's address.
	 */
	public static function url(): string {
		$url = defined( 'TRANSYNC_URL' ) ? (string) constant( 'TRANSYNC_URL' ) : self::DEFAULT_URL;
		return untrailingslashit( '' === $url ? self::DEFAULT_URL : $url );
	}

	/**
	 * The site's API key, or '' when wp-config.php has none.
	 */
	public static function key(): string {
		return defined( 'TRANSYNC_KEY' ) ? trim( (string) constant( 'TRANSYNC_KEY' ) ) : '';
	}

	/**
	 * A fingerprint of the address and the key, to notice that either changed (a hash: the key itself is never stored).
	 */
	public static function fingerprint(): string {
		return hash( 'sha256', self::url() . "\n" . self::key() );
	}

	/**
	 * One call. Answers the decoded body; throws Service_Error when the service refuses it
	 * (with its status and `detail`) or cannot be reached (status 0). A 429 or 503 with a short
	 * Retry-After is waited for and tried once more.
	 *
	 * @param string                    $method GET, POST, PUT, DELETE.
	 * @param string                    $path   The path (`/v1/…`), query included.
	 * @param array<string, mixed>|null $body   The JSON body.
	 * @return mixed
	 * @throws Service_Error When the call fails.
	 */
	public static function call( string $method, string $path, ?array $body = null ) {
		$key = self::key();
		if ( '' === $key ) {
			throw new Service_Error( 'no API key: define TRANSYNC_KEY in wp-config.php', -1 );
		}
		for ( $attempt = 1; ; $attempt++ ) {
			$response = wp_remote_request(
				self::url() . $path,
				array(
					'method'      => $method,
					'timeout'     => 20,
					'redirection' => 0,
					'headers'     => array_filter(
						array(
							'Authorization' => 'Bearer ' . $key,
							'Content-Type'  => null === $body ? null : 'application/json',
							'User-Agent'    => 'transync-wordpress/' . TRANSYNC_VERSION,
						)
					),
					'body'        => null === $body ? null : wp_json_encode( $body ),
				)
			);
			if ( is_wp_error( $response ) ) {
				throw new Service_Error( $response->get_error_message(), 0 );
			}
			$status = (int) wp_remote_retrieve_response_code( $response );
			$retry  = (int) wp_remote_retrieve_header( $response, 'retry-after' );
			if ( ( 429 === $status || 503 === $status ) && 1 === $attempt && $retry <= 5 ) {
				sleep( max( 1, $retry ) );
				continue;
			}
			$text = (string) wp_remote_retrieve_body( $response );
			$data = '' === $text ? null : json_decode( $text, true );
			if ( $status >= 200 && $status < 300 ) {
				return $data;
			}
			$detail = is_array( $data ) && isset( $data['detail'] ) ? (string) $data['detail'] : (string) wp_remote_retrieve_response_message( $response );
			throw new Service_Error( $detail, $status, is_array( $data ) ? $data : array() );
		}
	}
}
