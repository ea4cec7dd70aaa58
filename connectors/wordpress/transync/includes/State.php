<?php
/**
 * What the plugin remembers between passes, in options (never the key): the settings, the
 * connection's state, the last handshake, the webhook, the last errors.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Options.
 */
final class State {

	const SETTINGS   = 'transync_settings';
	const CONNECTION = 'transync_connection';
	const HANDSHAKE  = 'transync_handshake';
	const WEBHOOK    = 'transync_webhook';
	const ERRORS     = 'transync_errors';
	const DELIVERIES = 'transync_webhook_ids';
	const JOBS       = 'transync_jobs';

	/**
	 * The settings, with their defaults.
	 *
	 * @return array{post_types: string[], fields: string[], jobs: string, confirm_jobs: bool}
	 */
	public static function settings(): array {
		$saved = get_option( self::SETTINGS, array() );
		$saved = is_array( $saved ) ? $saved : array();
		return array(
			'post_types'   => array_values( array_map( 'strval', (array) ( $saved['post_types'] ?? array( 'post', 'page' ) ) ) ),
			'fields'       => array_values( array_intersect( Mapping::FIELDS, (array) ( $saved['fields'] ?? Mapping::FIELDS ) ) ),
			'jobs'         => 'on_demand' === ( $saved['jobs'] ?? '' ) ? 'on_demand' : 'on_publish',
			'confirm_jobs' => ! empty( $saved['confirm_jobs'] ),
		);
	}

	/**
	 * An option as an array.
	 *
	 * @param string $name The option.
	 * @return array<string, mixed>
	 */
	public static function get( string $name ): array {
		$value = get_option( $name, array() );
		return is_array( $value ) ? $value : array();
	}

	/**
	 * Stores an option (not autoloaded).
	 *
	 * @param string               $name  The option.
	 * @param array<string, mixed> $value Its value.
	 */
	public static function set( string $name, array $value ): void {
		update_option( $name, $value, false );
	}

	/**
	 * Records a problem for the settings page (the last 20; never a key or a text).
	 *
	 * @param string $message What happened.
	 */
	public static function error( string $message ): void {
		$errors = self::get( self::ERRORS );
		array_unshift(
			$errors,
			array(
				'at'      => time(),
				'message' => mb_substr( $message, 0, 500 ),
			)
		);
		self::set( self::ERRORS, array_slice( $errors, 0, 20 ) );
		if ( defined( 'WP_DEBUG_LOG' ) && WP_DEBUG_LOG ) {
			error_log( 'transync: ' . $message ); // phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
		}
	}
}
