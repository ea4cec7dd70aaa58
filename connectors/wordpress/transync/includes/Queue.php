<?php
/**
 * The queue: what the service must hear, in a table of the site's own database, written before
 * anything is sent. One row per unit and kind (a second change before the next pass refreshes
 * the row: coalesced); a row leaves only once the service took it, and only if it did not change
 * meanwhile (its `version`); a row the service refused waits with its error, retried with growing
 * waits. An outage, a wrong key or a restart leaves the rows as they are.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The queue table.
 */
final class Queue {

	const DB_VERSION = '1';

	/**
	 * The table's name.
	 */
	public static function table(): string {
		global $wpdb;
		return $wpdb->prefix . 'transync_queue';
	}

	/**
	 * Creates or upgrades the table.
	 */
	public static function install(): void {
		global $wpdb;
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		$table   = self::table();
		$charset = $wpdb->get_charset_collate();
		dbDelta(
			"CREATE TABLE {$table} (
			id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
			name varchar(191) NOT NULL,
			kind varchar(20) NOT NULL,
			unit varchar(255) NOT NULL,
			post_id bigint(20) unsigned NOT NULL DEFAULT 0,
			payload longtext NULL,
			attempts int(11) NOT NULL DEFAULT 0,
			last_error text NULL,
			due bigint(20) NOT NULL DEFAULT 0,
			version int(11) NOT NULL DEFAULT 1,
			PRIMARY KEY  (id),
			UNIQUE KEY name (name)
			) {$charset};"
		);
		update_option( 'transync_db_version', self::DB_VERSION, false );
	}

	/**
	 * An update by upload runs no activation hook: the table is checked at start-up.
	 */
	public static function maybe_upgrade(): void {
		if ( get_option( 'transync_db_version' ) !== self::DB_VERSION ) {
			self::install();
		}
	}

	/**
	 * Retry waits of a task the service refused: 2 s, doubling, at most 10 minutes.
	 *
	 * @param int $attempts Attempts so far.
	 */
	public static function retry_delay( int $attempts ): int {
		return (int) min( 2 * ( 2 ** max( 0, $attempts - 1 ) ), 600 );
	}

	/**
	 * Queues (or refreshes) a task. A push replaces a queued delete of the same unit and the other way round.
	 *
	 * @param string               $kind     `push`, `delete` or `review`.
	 * @param string               $unit     The unit key.
	 * @param int                  $post_id  The post (the source for push and delete, the translation for a review).
	 * @param array<string, mixed> $payload  What the task needs.
	 * @param string               $language A review's language.
	 */
	public static function enqueue( string $kind, string $unit, int $post_id, array $payload = array(), string $language = '' ): void {
		global $wpdb;
		$table = self::table();
		$name  = 'review' === $kind ? "review:{$unit}:{$language}" : "{$kind}:{$unit}";
		self::$queued = true;
		// phpcs:disable WordPress.DB.DirectDatabaseQuery -- the plugin's own table.
		if ( 'push' === $kind || 'delete' === $kind ) {
			$wpdb->delete( $table, array( 'name' => ( 'push' === $kind ? 'delete:' : 'push:' ) . $unit ) );
		}
		$data     = array(
			'kind'       => $kind,
			'unit'       => $unit,
			'post_id'    => $post_id,
			'payload'    => wp_json_encode( $payload ),
			'attempts'   => 0,
			'last_error' => null,
			'due'        => time(),
		);
		$existing = $wpdb->get_row( $wpdb->prepare( "SELECT id, version FROM {$table} WHERE name = %s", $name ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( $existing ) {
			$wpdb->update( $table, $data + array( 'version' => (int) $existing['version'] + 1 ), array( 'id' => (int) $existing['id'] ) );
			return;
		}
		$suppress = $wpdb->suppress_errors( true );
		$inserted = $wpdb->insert( $table, $data + array( 'name' => $name, 'version' => 1 ) );
		$wpdb->suppress_errors( $suppress );
		if ( false === $inserted ) {
			// Inserted meanwhile by another request: refresh that row.
			$wpdb->query( $wpdb->prepare( "UPDATE {$table} SET payload = %s, attempts = 0, last_error = NULL, due = %d, version = version + 1 WHERE name = %s", $data['payload'], $data['due'], $name ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		}
		// phpcs:enable
	}

	/**
	 * Whether this request queued something (the pass is then started at its end).
	 *
	 * @var bool
	 */
	public static bool $queued = false;

	/**
	 * Due tasks of these kinds, oldest first.
	 *
	 * @param string[] $kinds The kinds.
	 * @param int      $limit At most.
	 * @return array<int, array<string, mixed>>
	 */
	public static function due( array $kinds, int $limit = 500 ): array {
		global $wpdb;
		$table        = self::table();
		$placeholders = implode( ',', array_fill( 0, count( $kinds ), '%s' ) );
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared, WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
		$rows = $wpdb->get_results( $wpdb->prepare( "SELECT * FROM {$table} WHERE kind IN ({$placeholders}) AND due <= %d ORDER BY id ASC LIMIT %d", array_merge( $kinds, array( time(), $limit ) ) ), ARRAY_A );
		return array_map( array( self::class, 'decode' ), (array) $rows );
	}

	/**
	 * A row with its payload decoded.
	 *
	 * @param array<string, mixed> $row The row.
	 * @return array<string, mixed>
	 */
	private static function decode( array $row ): array {
		$row['payload']  = json_decode( (string) $row['payload'], true ) ?: array();
		$row['id']       = (int) $row['id'];
		$row['post_id']  = (int) $row['post_id'];
		$row['attempts'] = (int) $row['attempts'];
		$row['version']  = (int) $row['version'];
		$row['due']      = (int) $row['due'];
		return $row;
	}

	/**
	 * Removes a task the service has taken, unless it changed since it was read.
	 *
	 * @param array<string, mixed> $task The task as read.
	 */
	public static function done( array $task ): void {
		global $wpdb;
		$wpdb->delete( self::table(), array( 'id' => $task['id'], 'version' => $task['version'] ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
	}

	/**
	 * Keeps a task for later, with its error and its next try.
	 *
	 * @param array<string, mixed> $task  The task as read.
	 * @param string               $error Why (never a key or a text).
	 */
	public static function failed( array $task, string $error ): void {
		global $wpdb;
		$attempts = $task['attempts'] + 1;
		$wpdb->update( // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			self::table(),
			array(
				'attempts'   => $attempts,
				'last_error' => mb_substr( $error, 0, 1000 ),
				'due'        => time() + self::retry_delay( $attempts ),
			),
			array(
				'id'      => $task['id'],
				'version' => $task['version'],
			)
		);
	}

	/**
	 * Every task (for the settings page and the status route), oldest first.
	 *
	 * @param int $limit At most.
	 * @return array<int, array<string, mixed>>
	 */
	public static function all( int $limit = 200 ): array {
		global $wpdb;
		$table = self::table();
		$rows  = $wpdb->get_results( $wpdb->prepare( "SELECT * FROM {$table} ORDER BY id ASC LIMIT %d", $limit ), ARRAY_A ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return array_map( array( self::class, 'decode' ), (array) $rows );
	}

	/**
	 * How many tasks wait.
	 */
	public static function count(): int {
		global $wpdb;
		$table = self::table();
		return (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$table}" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/**
	 * Whether a push of this unit waits.
	 *
	 * @param string $unit The unit key.
	 */
	public static function has_push( string $unit ): bool {
		global $wpdb;
		$table = self::table();
		return (bool) $wpdb->get_var( $wpdb->prepare( "SELECT 1 FROM {$table} WHERE name = %s", 'push:' . $unit ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}
}
