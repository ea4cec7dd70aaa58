<?php
/**
 * Standard Webhooks verification (Transync\Webhook), with deliveries signed as the service signs them.
 *
 * @package Transync
 */

use PHPUnit\Framework\TestCase;
use Transync\Webhook;

final class WebhookTest extends TestCase {

	const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
	const BODY   = '{"type":"results.available","timestamp":"2026-12-06T00:00:00.000Z","data":{"pending":2,"languages":["de"]}}';

	private static function sign( string $secret, string $id, int $ts, string $body ): string {
		return 'v1,' . base64_encode( hash_hmac( 'sha256', "{$id}.{$ts}.{$body}", base64_decode( substr( $secret, 6 ) ), true ) );
	}

	public function test_a_genuine_delivery_is_answered_with_its_event(): void {
		$now   = 1796500000;
		$event = Webhook::verify( self::SECRET, 'msg_1', (string) $now, self::sign( self::SECRET, 'msg_1', $now, self::BODY ), self::BODY, $now + 10 );
		$this->assertSame( 'results.available', $event['type'] );
	}

	public function test_the_library_s_own_example_verifies(): void {
		// The example of the Standard Webhooks specification (its reference libraries' tests).
		$body = '{"test": 2432232314}';
		$this->assertNotNull( Webhook::verify( 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', $body, 1614265330 ) );
	}

	public function test_forged_altered_or_stale_deliveries_are_refused(): void {
		$now  = 1796500000;
		$good = self::sign( self::SECRET, 'msg_1', $now, self::BODY );
		$this->assertNull( Webhook::verify( self::SECRET, 'msg_1', (string) $now, 'v1,AAAA', self::BODY, $now ), 'forged' );
		$this->assertNull( Webhook::verify( self::SECRET, 'msg_1', (string) $now, $good, str_replace( '2', '3', self::BODY ), $now ), 'body altered' );
		$this->assertNull( Webhook::verify( self::SECRET, 'msg_2', (string) $now, $good, self::BODY, $now ), 'another id' );
		$this->assertNull( Webhook::verify( self::SECRET, 'msg_1', (string) $now, $good, self::BODY, $now + 301 ), 'more than 5 minutes old' );
		$this->assertNull( Webhook::verify( self::SECRET, 'msg_1', (string) $now, $good, self::BODY, $now - 301 ), 'more than 5 minutes ahead' );
		$this->assertNull( Webhook::verify( 'whsec_' . base64_encode( 'another secret' ), 'msg_1', (string) $now, $good, self::BODY, $now ), 'another secret' );
		$this->assertNull( Webhook::verify( self::SECRET, '', (string) $now, $good, self::BODY, $now ), 'no id' );
	}

	public function test_during_a_rotation_either_signature_verifies(): void {
		$now = 1796500000;
		$old = 'whsec_' . base64_encode( 'the old secret, 24 bytes' );
		$both = self::sign( $old, 'msg_1', $now, self::BODY ) . ' ' . self::sign( self::SECRET, 'msg_1', $now, self::BODY );
		$this->assertNotNull( Webhook::verify( self::SECRET, 'msg_1', (string) $now, $both, self::BODY, $now ) );
		$this->assertNotNull( Webhook::verify( $old, 'msg_1', (string) $now, $both, self::BODY, $now ) );
	}
}
