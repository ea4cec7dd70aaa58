<?php
/**
 * REST routes under /wp-json/transync/v1:
 * - POST /webhook: the service's signed webhook (Standard Webhooks), verified against the
 *   secret the service gave at registration; a replayed `webhook-id` is refused; a good one
 *   starts a pass at once (in a request of its own) and answers 204 within the service's 10 s;
 * - POST /run: that request (the site calling itself with a token only it knows);
 * - POST /sync and GET /status: for administrators (manage_options).
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The routes.
 */
final class Rest {

	const NS = 'transync/v1';
	/** How long a delivery's id is remembered: longer than the 5 minutes a timestamp is accepted. */
	const REPLAY_WINDOW = 600;

	/**
	 * Registers the routes.
	 */
	public static function register(): void {
		add_action( 'rest_api_init', array( self::class, 'routes' ) );
	}

	/**
	 * The routes.
	 */
	public static function routes(): void {
		register_rest_route(
			self::NS,
			'/webhook',
			array(
				'methods'             => 'POST',
				'callback'            => array( self::class, 'webhook' ),
				'permission_callback' => '__return_true', // The signature is the authentication.
			)
		);
		register_rest_route(
			self::NS,
			'/run',
			array(
				'methods'             => 'POST',
				'callback'            => array( self::class, 'run' ),
				'permission_callback' => static fn( \WP_REST_Request $r ) => hash_equals( self::token(), (string) $r->get_param( 'token' ) ),
			)
		);
		register_rest_route(
			self::NS,
			'/sync',
			array(
				'methods'             => 'POST',
				'callback'            => array( self::class, 'sync' ),
				'permission_callback' => static fn() => current_user_can( 'manage_options' ),
			)
		);
		register_rest_route(
			self::NS,
			'/status',
			array(
				'methods'             => 'GET',
				'callback'            => array( self::class, 'status' ),
				'permission_callback' => static fn() => current_user_can( 'manage_options' ),
			)
		);
	}

	/**
	 * The token of the site's own /run calls (derived from its salts, never sent elsewhere).
	 */
	public static function token(): string {
		return hash_hmac( 'sha256', 'transync-run', wp_salt( 'auth' ) );
	}

	/**
	 * Starts a pass in a request of its own, without waiting for it (as WordPress spawns WP-Cron).
	 */
	public static function kick(): void {
		wp_remote_post(
			rest_url( self::NS . '/run' ),
			array(
				'timeout'   => 0.01,
				'blocking'  => false,
				'sslverify' => apply_filters( 'https_local_ssl_verify', false ), // phpcs:ignore WordPress.NamingConventions.PrefixAllGlobals -- WordPress's own filter.
				'body'      => array( 'token' => self::token() ),
			)
		);
	}

	/**
	 * POST /run.
	 */
	public static function run(): \WP_REST_Response {
		ignore_user_abort( true );
		if ( function_exists( 'set_time_limit' ) ) {
			set_time_limit( 300 ); // phpcs:ignore Squiz.PHP.DiscouragedFunctions.Discouraged
		}
		$ran = Sync::instance()->run( Sync::PROMPT );
		return new \WP_REST_Response( array( 'ran' => $ran ), 200 );
	}

	/**
	 * POST /sync: a pass now (ignores the back-off).
	 */
	public static function sync(): \WP_REST_Response {
		$ran = Sync::instance()->run( Sync::MANUAL );
		return new \WP_REST_Response( array( 'ran' => $ran ) + self::state(), 200 );
	}

	/**
	 * GET /status.
	 */
	public static function status(): \WP_REST_Response {
		return new \WP_REST_Response( self::state(), 200 );
	}

	/**
	 * The connection, the queue and the last errors.
	 *
	 * @return array<string, mixed>
	 */
	public static function state(): array {
		$connection = State::get( State::CONNECTION );
		$handshake  = State::get( State::HANDSHAKE );
		unset( $connection['fingerprint'], $handshake['signature'] );
		return array(
			'connection' => $connection,
			'handshake'  => $handshake,
			'webhook'    => array_intersect_key( State::get( State::WEBHOOK ), array_flip( array( 'url', 'at', 'error' ) ) ) + array( 'registered' => '' !== ( State::get( State::WEBHOOK )['secret'] ?? '' ) ),
			'queue'      => array_map(
				static fn( $t ) => array(
					'kind'       => $t['kind'],
					'unit'       => $t['unit'],
					'attempts'   => $t['attempts'],
					'last_error' => $t['last_error'],
					'due'        => $t['due'],
				),
				Queue::all()
			),
			'errors'     => State::get( State::ERRORS ),
		);
	}

	/**
	 * POST /webhook.
	 *
	 * @param \WP_REST_Request $request The delivery.
	 */
	public static function webhook( \WP_REST_Request $request ): \WP_REST_Response {
		$secret = (string) ( State::get( State::WEBHOOK )['secret'] ?? '' );
		if ( '' === $secret ) {
			return new \WP_REST_Response( array( 'detail' => 'no webhook registered' ), 404 );
		}
		$id    = (string) $request->get_header( 'webhook-id' );
		$event = Webhook::verify( $secret, $id, (string) $request->get_header( 'webhook-timestamp' ), (string) $request->get_header( 'webhook-signature' ), $request->get_body(), time() );
		if ( null === $event ) {
			State::error( __( 'A webhook delivery with a wrong signature or an old timestamp was refused.', 'transync' ) );
			return new \WP_REST_Response( array( 'detail' => 'invalid signature' ), 401 );
		}
		if ( ! self::remember( $id ) ) {
			return new \WP_REST_Response( array( 'detail' => 'this delivery was received already' ), 409 );
		}
		if ( in_array( $event['type'] ?? '', array( 'results.available', 'job.finished' ), true ) ) {
			self::kick();
		}
		return new \WP_REST_Response( null, 204 );
	}

	/**
	 * Remembers a delivery's id; answers false when it was seen already (a replay).
	 *
	 * @param string $id The `webhook-id`.
	 */
	private static function remember( string $id ): bool {
		$now  = time();
		$seen = array_filter( State::get( State::DELIVERIES ), static fn( $at ) => (int) $at > $now - self::REPLAY_WINDOW );
		if ( isset( $seen[ $id ] ) ) {
			return false;
		}
		$seen[ $id ] = $now;
		State::set( State::DELIVERIES, $seen );
		return true;
	}
}
