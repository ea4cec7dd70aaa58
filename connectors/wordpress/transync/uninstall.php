<?php
/**
 * Deleting the plugin removes what it stored: its queue table, its options, its post meta and
 * its scheduled events. Translated posts stay: they are the site's content.
 *
 * @package Transync
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

global $wpdb;

// phpcs:disable WordPress.DB.DirectDatabaseQuery -- a table and meta of this plugin only, once.
$wpdb->query( "DROP TABLE IF EXISTS {$wpdb->prefix}transync_queue" );
$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->postmeta} WHERE meta_key LIKE %s", $wpdb->esc_like( '_transync_' ) . '%' ) );
$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like( 'transync_' ) . '%' ) );
// phpcs:enable

wp_clear_scheduled_hook( 'transync_sync' );
