<?php
/**
 * PHPUnit: the splitter, the mapping and the webhook check need no WordPress; the classes are
 * loaded as the plugin loads them (TRANSYNC_TESTING lets them load outside WordPress).
 *
 * @package Transync
 */

define( 'TRANSYNC_TESTING', true );
spl_autoload_register(
	static function ( string $class ): void {
		if ( 0 === strpos( $class, 'Transync\\' ) ) {
			$file = dirname( __DIR__ ) . '/transync/includes/' . str_replace( '\\', '/', substr( $class, 9 ) ) . '.php';
			if ( is_readable( $file ) ) {
				require $file;
			}
		}
	}
);
