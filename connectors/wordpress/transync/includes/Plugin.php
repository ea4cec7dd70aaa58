<?php
/**
 * The plugin's wiring: without Polylang an admin notice and nothing else; with it the hooks
 * that queue changes, the scheduled pass, the REST routes and the admin screens.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * Start-up, activation and the schedule.
 */
final class Plugin {

	const CRON_HOOK     = 'transync_sync';
	const CRON_SCHEDULE = 'transync_minute';

	/**
	 * Activation: the queue table and the scheduled pass.
	 */
	public static function activate(): void {
		Queue::install();
		add_filter( 'cron_schedules', array( self::class, 'schedules' ) ); // phpcs:ignore WordPress.WP.CronInterval -- once a minute, as documented.
		if ( ! wp_next_scheduled( self::CRON_HOOK ) ) {
			wp_schedule_event( time() + 60, self::CRON_SCHEDULE, self::CRON_HOOK );
		}
	}

	/**
	 * Deactivation: the schedule stops; the queue stays (nothing is lost on reactivation).
	 */
	public static function deactivate(): void {
		wp_clear_scheduled_hook( self::CRON_HOOK );
	}

	/**
	 * Adds the once-a-minute schedule.
	 *
	 * @param array<string, array{interval:int, display:string}> $schedules WordPress's schedules.
	 * @return array<string, array{interval:int, display:string}>
	 */
	public static function schedules( array $schedules ): array {
		$schedules[ self::CRON_SCHEDULE ] = array(
			'interval' => 60,
			'display'  => __( 'Every minute (Transync)', 'transync' ),
		);
		return $schedules;
	}

	/**
	 * The languages' seam: Polylang today (WPML would be another implementation).
	 */
	public static function languages(): ?Languages {
		static $languages = false;
		if ( false === $languages ) {
			$languages = Polylang::available() ? new Polylang() : null;
		}
		return $languages;
	}

	/**
	 * On `plugins_loaded` (after Polylang's own start).
	 */
	public static function boot(): void {
		add_filter( 'cron_schedules', array( self::class, 'schedules' ) ); // phpcs:ignore WordPress.WP.CronInterval
		if ( null === self::languages() ) {
			add_action( 'admin_notices', array( self::class, 'without_polylang' ) );
			return;
		}
		Queue::maybe_upgrade();
		Hooks::register();
		Rest::register();
		add_action( self::CRON_HOOK, array( self::class, 'scheduled_pass' ) );
		if ( ! wp_next_scheduled( self::CRON_HOOK ) ) {
			wp_schedule_event( time() + 60, self::CRON_SCHEDULE, self::CRON_HOOK );
		}
		if ( is_admin() ) {
			Admin::register();
			Settings::register();
			if ( self::languages() instanceof Polylang ) {
				Links::register();
			}
		}
	}

	/**
	 * The scheduled pass (WP-Cron): it handshakes too, so new languages are noticed.
	 */
	public static function scheduled_pass(): void {
		Sync::instance()->run( Sync::SCHEDULED );
	}

	/**
	 * The only thing the plugin does without Polylang.
	 */
	public static function without_polylang(): void {
		if ( ! current_user_can( 'activate_plugins' ) ) {
			return;
		}
		printf(
			'<div class="notice notice-error"><p>%s</p></div>',
			esc_html__( 'Transync needs Polylang: install and activate Polylang (Plugins → Add New), add your languages in Languages, then Transync starts. Until then it does nothing.', 'transync' )
		);
	}
}
