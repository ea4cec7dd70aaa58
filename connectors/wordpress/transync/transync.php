<?php
/**
 * Plugin Name:       Transync
 * Plugin URI:        https://transync.dev/
 * Description:       Keeps your posts and pages translated with Transync: English posts are sent when published, translations come back as Polylang drafts for your editors to review and publish.
 * Version:           0.1.0
 * Requires at least: 6.2
 * Requires PHP:      8.1
 * Author:            Transync
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       transync
 *
 * @package Transync
 */

defined( 'ABSPATH' ) || exit;

define( 'TRANSYNC_VERSION', '0.1.0' );
define( 'TRANSYNC_FILE', __FILE__ );
define( 'TRANSYNC_DIR', __DIR__ );

/*
 * Classes under includes/: Transync\Split\Html is includes/Split/Html.php.
 */
spl_autoload_register(
	static function ( string $class ): void {
		if ( 0 !== strpos( $class, 'Transync\\' ) ) {
			return;
		}
		$file = TRANSYNC_DIR . '/includes/' . str_replace( '\\', '/', substr( $class, strlen( 'Transync\\' ) ) ) . '.php';
		if ( is_readable( $file ) ) {
			require $file;
		}
	}
);

register_activation_hook( __FILE__, array( 'Transync\\Plugin', 'activate' ) );
register_deactivation_hook( __FILE__, array( 'Transync\\Plugin', 'deactivate' ) );
add_action( 'plugins_loaded', array( 'Transync\\Plugin', 'boot' ), 20 );
