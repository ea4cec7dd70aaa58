<?php
/**
 * Standard Webhooks verification, as the kit's verifyWebhook (the `standardwebhooks` library)
 * does it: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the secret (`whsec_`
 * and base64), compared with each `v1,<base64>` of `webhook-signature`; a timestamp more than
 * 5 minutes off is refused.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || defined( 'TRANSYNC_TESTING' ) || exit;

/**
 * The verification.
 */
final class Webhook {

	const TOLERANCE = 300;

	/**
	 * The delivery's event when it is genuine, else null.
	 *
	 * @param string $secret    The endpoint's secret (`whsec_…`).
	 * @param string $id        `webhook-id`.
	 * @param string $timestamp `webhook-timestamp` (seconds).
	 * @param string $signature `webhook-signature` (space-separated `v1,<base64>`).
	 * @param string $body      The body as received.
	 * @param int    $now       The time now.
	 * @return array<string, mixed>|null
	 */
	public static function verify( string $secret, string $id, string $timestamp, string $signature, string $body, int $now ): ?array {
		if ( '' === $id || ! preg_match( '/^\d+$/', $timestamp ) || abs( $now - (int) $timestamp ) > self::TOLERANCE ) {
			return null;
		}
		$key = base64_decode( 0 === strpos( $secret, 'whsec_' ) ? substr( $secret, 6 ) : $secret, true ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_decode
		if ( false === $key || '' === $key ) {
			return null;
		}
		$expected = base64_encode( hash_hmac( 'sha256', $id . '.' . $timestamp . '.' . $body, $key, true ) ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_encode
		foreach ( preg_split( '/\s+/', trim( $signature ) ) as $candidate ) {
			$parts = explode( ',', $candidate, 2 );
			if ( 2 === count( $parts ) && 'v1' === $parts[0] && hash_equals( $expected, $parts[1] ) ) {
				$event = json_decode( $body, true );
				return is_array( $event ) ? $event : null;
			}
		}
		return null;
	}
}
