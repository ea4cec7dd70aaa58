<?php
/**
 * One pass: handshake, push the queued units and deletes, start a job by the policy (and one
 * for a language the site gained), pull the results and write them, acknowledge what is
 * written, report editors' decisions, refresh the states editors see. A pass the service
 * refuses (the key) or cannot be reached for stops where it is and leaves the queue as it is;
 * automatic passes then wait (10 s, doubling, at most 10 minutes) unless the key or the address
 * changes. Passes never overlap: one asked for while another runs makes that one run again.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The pass.
 */
final class Sync {

	const SCHEDULED = 'scheduled';
	const PROMPT    = 'prompt';
	const MANUAL    = 'manual';

	const ADAPTER   = 'wordpress';
	const BATCH     = 100;
	const LOCK      = 'transync_lock';
	const LOCK_TTL  = 300;

	/**
	 * Units touched in this pass (their states are refreshed at its end).
	 *
	 * @var array<string, true>
	 */
	private array $touched = array();

	/**
	 * The one instance.
	 */
	public static function instance(): self {
		static $instance = null;
		return $instance ??= new self();
	}

	/**
	 * The connector's version as the handshake sends it.
	 */
	public static function connector_version(): string {
		return 'transync-wordpress/' . TRANSYNC_VERSION;
	}

	/**
	 * Runs a pass, or asks the running one for another round. Answers whether a pass ran.
	 *
	 * @param string $why SCHEDULED (it handshakes), PROMPT (after a save or a webhook) or MANUAL (ignores the back-off).
	 */
	public function run( string $why ): bool {
		$connection = State::get( State::CONNECTION );
		$changed    = ( $connection['fingerprint'] ?? '' ) !== Client::fingerprint();
		if ( self::MANUAL !== $why && ! $changed && (int) ( $connection['retry_at'] ?? 0 ) > time() ) {
			return false;
		}
		if ( ! $this->lock() ) {
			// The running pass makes another round for this one (a scheduled one handshakes).
			if ( self::SCHEDULED === $why || self::MANUAL === $why || ! get_option( 'transync_again' ) ) {
				update_option( 'transync_again', $why, false );
			}
			return false;
		}
		try {
			$rounds = 0;
			do {
				delete_option( 'transync_again' );
				$this->pass( self::SCHEDULED === $why || self::MANUAL === $why || $changed );
				$changed = false;
				wp_cache_delete( 'transync_again', 'options' );
				$why = (string) get_option( 'transync_again', '' );
			} while ( '' !== $why && ++$rounds < 3 );
		} finally {
			$this->unlock();
		}
		return true;
	}

	/**
	 * Takes the pass lock: an insert that only one request can make (the options table's unique
	 * name); a lock older than LOCK_TTL (a pass that died) is taken over.
	 */
	private function lock(): bool {
		global $wpdb;
		$suppress = $wpdb->suppress_errors( true );
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$taken = $wpdb->query( $wpdb->prepare( "INSERT INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::LOCK, (string) time() ) );
		if ( ! $taken ) {
			$since = (int) $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::LOCK ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			if ( $since < time() - self::LOCK_TTL ) {
				// phpcs:ignore WordPress.DB.DirectDatabaseQuery
				$taken = $wpdb->query( $wpdb->prepare( "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", (string) time(), self::LOCK, (string) $since ) );
			}
		}
		$wpdb->suppress_errors( $suppress );
		return (bool) $taken;
	}

	/**
	 * Releases the pass lock.
	 */
	private function unlock(): void {
		global $wpdb;
		$wpdb->delete( $wpdb->options, array( 'option_name' => self::LOCK ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		wp_cache_delete( self::LOCK, 'options' );
	}

	/**
	 * One pass.
	 *
	 * @param bool $handshake Whether to handshake even when nothing the handshake sends changed.
	 */
	private function pass( bool $handshake ): void {
		$this->touched = array();
		try {
			$this->handshake( $handshake );
			if ( $this->push() ) {
				update_option( 'transync_job_wanted', 1, false );
			}
			if ( 'on_publish' === State::settings()['jobs'] && get_option( 'transync_job_wanted' ) ) {
				$this->start_job( array() );
			}
			$this->pull();
			$this->reviews();
			$this->refresh_states();
			$this->connected();
		} catch ( Service_Error $e ) {
			$this->problem( $e );
		} catch ( \Throwable $e ) {
			// A fault of this plugin or of WordPress: recorded, the queue kept for the next pass.
			/* translators: 1: the error, 2: file and line. */
			State::error( sprintf( __( 'The pass stopped: %1$s (%2$s).', 'transync' ), $e->getMessage(), basename( $e->getFile() ) . ':' . $e->getLine() ) );
		}
	}

	/**
	 * The connection works: the state shown in the admin says so.
	 */
	private function connected(): void {
		$before = State::get( State::CONNECTION );
		State::set(
			State::CONNECTION,
			array(
				'state'       => 'ok',
				'message'     => '',
				'at'          => time(),
				'fingerprint' => Client::fingerprint(),
				'failures'    => 0,
				'retry_at'    => 0,
			) + array( 'since' => ( 'ok' === ( $before['state'] ?? '' ) ? ( $before['since'] ?? time() ) : time() ) )
		);
	}

	/**
	 * Why the pass stopped, once per distinct problem in the errors; automatic passes wait.
	 *
	 * @param Service_Error $e The error.
	 */
	private function problem( Service_Error $e ): void {
		$before   = State::get( State::CONNECTION );
		$message  = $e->describe();
		$failures = (int) ( $before['failures'] ?? 0 ) + 1;
		if ( ( $before['message'] ?? '' ) !== $message ) {
			/* translators: %s: the problem. */
			State::error( sprintf( __( '%s Nothing is lost: the queued changes are sent at the next pass.', 'transync' ), $message ) );
		}
		State::set(
			State::CONNECTION,
			array(
				'state'       => $e->state(),
				'message'     => $message,
				'at'          => time(),
				'since'       => ( $before['message'] ?? '' ) === $message ? ( $before['since'] ?? time() ) : time(),
				'fingerprint' => Client::fingerprint(),
				'failures'    => $failures,
				'retry_at'    => time() + (int) min( 10 * 2 ** ( $failures - 1 ), 600 ),
			)
		);
	}

	/**
	 * The handshake, when asked for or when what it sends changed; a language the site gained
	 * (writable now, not at the last handshake) starts a delta job for it.
	 *
	 * @param bool $always Whether to handshake even when nothing changed.
	 * @throws Service_Error When the service refuses it.
	 */
	private function handshake( bool $always ): void {
		$languages = Plugin::languages();
		$source    = $languages->source();
		$body      = array(
			'connector_version' => self::connector_version(),
			'source_language'   => $source,
			'languages'         => array_values( array_diff( $languages->all(), array( $source ) ) ),
			'adapters'          => array( self::ADAPTER ),
			'capabilities'      => array( 'whole_unit' ),
		);
		$last      = State::get( State::HANDSHAKE );
		$signature = md5( (string) wp_json_encode( $body ) . Client::fingerprint() );
		if ( ! $always && ( $last['signature'] ?? '' ) === $signature ) {
			return;
		}
		$site     = (array) Client::call( 'POST', '/v1/handshake', $body );
		$writable = array();
		foreach ( (array) ( $site['target_languages'] ?? array() ) as $t ) {
			if ( ! empty( $t['writable'] ) ) {
				$writable[] = (string) $t['code'];
			}
		}
		sort( $writable );
		$seen   = $last['writable'] ?? null;
		$gained = is_array( $seen ) && ( $last['site'] ?? null ) === ( $site['id'] ?? null ) ? array_values( array_diff( $writable, $seen ) ) : array();
		if ( $gained && 'on_publish' === State::settings()['jobs'] ) {
			$this->start_job( array( 'languages' => $gained ) ); // Throws before the new languages are recorded: tried again.
		}
		State::set(
			State::HANDSHAKE,
			array(
				'signature'     => $signature,
				'at'            => time(),
				'site'          => $site['id'] ?? null,
				'name'          => (string) ( $site['name'] ?? '' ),
				'source'        => (string) ( $site['source_language'] ?? '' ),
				'languages'     => $body['languages'],
				'targets'       => array_map(
					static fn( $t ) => array(
						'code'     => (string) ( $t['code'] ?? '' ),
						'writable' => ! empty( $t['writable'] ),
						'engine'   => (string) ( $t['engine'] ?? '' ),
					),
					(array) ( $site['target_languages'] ?? array() )
				),
				'writable'      => $writable,
				'gained'        => $gained ? $gained : ( $last['gained'] ?? array() ),
				'review_mode'   => (string) ( $site['review_mode'] ?? '' ),
				'warnings'      => array_values( array_map( 'strval', (array) ( $site['warnings'] ?? array() ) ) ),
				'adapters'      => (array) ( $site['enabled_adapters'] ?? array() ),
			)
		);
		$this->register_webhook();
	}

	/**
	 * Registers the REST route as the site's webhook, when it is not registered at this address yet.
	 */
	private function register_webhook(): void {
		$url    = rest_url( 'transync/v1/webhook' );
		$stored = State::get( State::WEBHOOK );
		if ( ( $stored['url'] ?? '' ) === $url && ! empty( $stored['secret'] ) && ( $stored['fingerprint'] ?? '' ) === Client::fingerprint() ) {
			return;
		}
		try {
			$answer = (array) Client::call(
				'PUT',
				'/v1/webhook',
				array(
					'url'    => $url,
					'events' => array( 'results.available', 'job.finished' ),
				)
			);
			State::set(
				State::WEBHOOK,
				array(
					'url'         => $url,
					'secret'      => (string) ( $answer['secret'] ?? '' ),
					'at'          => time(),
					'error'       => '',
					'fingerprint' => Client::fingerprint(),
				)
			);
		} catch ( Service_Error $e ) {
			if ( $e->stops_pass() ) {
				throw $e;
			}
			State::set(
				State::WEBHOOK,
				array(
					'url'         => $url,
					'secret'      => '',
					'at'          => time(),
					/* translators: %s: the service's reason. */
					'error'       => sprintf( __( 'The service did not take this site\'s webhook address (%s): results are pulled every minute by WP-Cron instead.', 'transync' ), $e->getMessage() ),
					'fingerprint' => Client::fingerprint(),
				)
			);
		}
	}

	/**
	 * Sends the queued deletes and pushes. Answers whether the service saw a change.
	 *
	 * @throws Service_Error When the whole pass must stop.
	 */
	private function push(): bool {
		$changed = false;
		$pushes  = array();
		foreach ( Queue::due( array( 'delete', 'push' ) ) as $task ) {
			if ( 'delete' === $task['kind'] ) {
				try {
					Client::call( 'DELETE', '/v1/units/' . rawurlencode( $task['unit'] ) );
				} catch ( Service_Error $e ) {
					if ( $e->stops_pass() ) {
						throw $e;
					}
					Queue::failed( $task, $e->describe() );
					continue;
				}
				delete_post_meta( $task['post_id'], '_transync_pushed' );
				delete_post_meta( $task['post_id'], '_transync_state' );
				Queue::done( $task );
				continue;
			}
			$post = get_post( $task['post_id'] );
			if ( ! $post instanceof \WP_Post || 'publish' !== $post->post_status || ! Content::is_source( $post ) ) {
				Queue::done( $task ); // Not published, or no longer translated: nothing to send.
				continue;
			}
			$unit = Content::unit( $post );
			if ( $unit['problems'] ) {
				Queue::failed( $task, implode( '; ', array_column( $unit['problems'], 'message' ) ) );
				continue;
			}
			$pushes[] = array(
				'task' => $task,
				'unit' => array(
					'external_key'    => $task['unit'],
					'adapter'         => self::ADAPTER,
					'label'           => mb_substr( '' !== $post->post_title ? $post->post_title : '#' . $post->ID, 0, 500 ),
					'path'            => mb_substr( (string) wp_make_link_relative( (string) get_permalink( $post ) ), 0, 2000 ),
					'source_language' => Plugin::languages()->source(),
					'metadata'        => array(
						'post_type' => $post->post_type,
						'post_id'   => $post->ID,
					),
					'segments'        => $unit['segments'],
				),
			);
		}
		foreach ( array_chunk( $pushes, self::BATCH ) as $batch ) {
			$answer = (array) Client::call( 'PUT', '/v1/units/batch', array( 'units' => array_column( $batch, 'unit' ) ) );
			foreach ( (array) ( $answer['results'] ?? array() ) as $i => $item ) {
				$sent = $batch[ $i ] ?? null;
				if ( null === $sent ) {
					continue;
				}
				if ( empty( $item['ok'] ) ) {
					/* translators: 1: the unit key, 2: the service's reason. */
					$why = sprintf( __( 'The service refused %1$s: %2$s', 'transync' ), $sent['unit']['external_key'], (string) ( $item['error'] ?? '' ) );
					State::error( $why );
					Queue::failed( $sent['task'], $why );
					continue;
				}
				$pushed = array_map(
					static fn( $s ) => array(
						'key'  => $s['key'],
						'text' => $s['text'],
					),
					$sent['unit']['segments']
				);
				Content::set_meta( $sent['task']['post_id'], '_transync_pushed', $pushed );
				Queue::done( $sent['task'] );
				$this->touched[ $sent['unit']['external_key'] ] = true;
				$r = (array) ( $item['result'] ?? array() );
				if ( ! empty( $r['unit_created'] ) || ! empty( $r['added'] ) || ! empty( $r['changed'] ) || ! empty( $r['removed'] ) ) {
					$changed = true;
				}
			}
		}
		return $changed;
	}

	/**
	 * Starts a delta job (unless one is queued already and no languages are named: it sees the
	 * changes too). Answers the job, or null when the service wants a confirmation or refuses.
	 *
	 * @param array<string, mixed> $job     Fields of JobIn (`languages`, `units`, `type`).
	 * @param bool                 $confirm Whether to confirm (a person asked for it).
	 * @return array<string, mixed>|null
	 * @throws Service_Error When the whole pass must stop.
	 */
	public function start_job( array $job, bool $confirm = false ): ?array {
		if ( ! isset( $job['languages'] ) && ! isset( $job['units'] ) ) {
			$active = (array) Client::call( 'GET', '/v1/jobs?active=true' );
			foreach ( $active as $a ) {
				if ( 'queued' === ( $a['status'] ?? '' ) ) {
					delete_option( 'transync_job_wanted' );
					return $a;
				}
			}
		}
		try {
			$started = (array) Client::call( 'POST', '/v1/jobs', $job + array( 'type' => 'delta', 'confirm' => $confirm || State::settings()['confirm_jobs'] ) );
		} catch ( Service_Error $e ) {
			if ( $e->stops_pass() ) {
				throw $e;
			}
			delete_option( 'transync_job_wanted' );
			$why = 409 === $e->status
				/* translators: %d: billable characters. */
				? sprintf( __( 'No translation job was started: it needs a confirmation (%d billable characters). Start it with “Translate now” below, or in the dashboard.', 'transync' ), (int) ( $e->body['estimate']['characters'] ?? 0 ) )
				/* translators: %s: the service's reason. */
				: sprintf( __( 'No translation job was started: %s', 'transync' ), $e->describe() );
			State::error( $why );
			return null;
		}
		delete_option( 'transync_job_wanted' );
		State::set(
			State::JOBS,
			array(
				'active' => 1,
				'last'   => (int) ( $started['id'] ?? 0 ),
				'at'     => time(),
			)
		);
		return $started;
	}

	/**
	 * Pulls pending results a unit and a language at a time, writes each, then acknowledges.
	 *
	 * @throws Service_Error When the whole pass must stop.
	 */
	private function pull(): void {
		$cursor = null;
		$pages  = 0;
		do {
			$page   = (array) Client::call( 'GET', '/v1/results?limit=200' . ( $cursor ? '&cursor=' . rawurlencode( $cursor ) : '' ) );
			$groups = array();
			foreach ( (array) ( $page['results'] ?? array() ) as $r ) {
				$groups[ $r['unit'] . "\n" . $r['language'] ][] = $r;
			}
			$written = array();
			foreach ( $groups as $results ) {
				$unit     = (string) $results[0]['unit'];
				$language = (string) $results[0]['language'];
				try {
					if ( $this->write( $unit, $language, $results ) ) {
						array_push( $written, ...array_column( $results, 'id' ) );
					}
				} catch ( \Throwable $e ) {
					if ( $e instanceof Service_Error && $e->stops_pass() ) {
						throw $e;
					}
					/* translators: 1: language, 2: unit key, 3: the reason. */
					State::error( sprintf( __( 'The %1$s translation of %2$s could not be written (%3$s); its results stay pending.', 'transync' ), $language, $unit, $e->getMessage() ) );
				}
			}
			foreach ( array_chunk( $written, 1000 ) as $ids ) {
				Client::call( 'POST', '/v1/results/ack', array( 'ids' => $ids ) );
			}
			$cursor = $page['next_cursor'] ?? null;
		} while ( $cursor && ++$pages < 50 );
		$active = (array) Client::call( 'GET', '/v1/jobs?active=true' );
		State::set( State::JOBS, array( 'active' => count( $active ) ) + State::get( State::JOBS ) );
	}

	/**
	 * Writes one unit's results in one language. Answers whether they may be acknowledged.
	 *
	 * @param string                          $unit     The unit key.
	 * @param string                          $language The language.
	 * @param array<int, array<string,mixed>> $results  Its results.
	 */
	private function write( string $unit, string $language, array $results ): bool {
		$languages = Plugin::languages();
		if ( ! in_array( $language, $languages->all(), true ) || $language === $languages->source() ) {
			/* translators: 1: unit key, 2: language. */
			State::error( sprintf( __( 'Results for %1$s in %2$s have no place here: Polylang has no such language. They stay pending.', 'transync' ), $unit, $language ) );
			return false;
		}
		$source = get_post( Content::post_id( $unit ) );
		if ( ! $source instanceof \WP_Post || ! Content::is_source( $source ) || Content::unit_key( $source ) !== $unit ) {
			return true; // The source is gone: nothing to write, nothing to keep.
		}
		$texts = array();
		$ids   = array();
		foreach ( $results as $r ) {
			$texts[ (string) $r['key'] ] = (string) $r['text'];
			$ids[ (string) $r['key'] ]   = (string) $r['id'];
		}
		Content::write(
			$source,
			$language,
			$texts,
			$ids,
			static function () use ( $unit, $language ): array {
				$status = (array) Client::call( 'GET', '/v1/units/' . rawurlencode( $unit ) . '/status?include=results' );
				$out    = array();
				foreach ( (array) ( $status['segments'] ?? array() ) as $s ) {
					$state = $s['states'][ $language ] ?? 'missing';
					if ( isset( $s['results'][ $language ]['text'] ) && 'stale' !== $state && 'missing' !== $state ) {
						$out[ (string) $s['key'] ] = (string) $s['results'][ $language ]['text'];
					}
				}
				return $out;
			}
		);
		$this->touched[ $unit ] = true;
		return true;
	}

	/**
	 * Reports queued editors' decisions for the results waiting for review in that language.
	 *
	 * @throws Service_Error When the whole pass must stop.
	 */
	private function reviews(): void {
		foreach ( Queue::due( array( 'review' ) ) as $task ) {
			$payload  = $task['payload'];
			$language = (string) ( $payload['language'] ?? '' );
			try {
				$status = (array) Client::call( 'GET', '/v1/units/' . rawurlencode( $task['unit'] ) . '/status?include=text,results' );
			} catch ( Service_Error $e ) {
				if ( 404 === $e->status ) {
					Queue::done( $task );
					continue;
				}
				throw $e;
			}
			$edited = array();
			$source = get_post( Content::post_id( $task['unit'] ) );
			if ( 'approved' === ( $payload['outcome'] ?? '' ) && ! empty( $payload['fields'] ) && $source instanceof \WP_Post ) {
				$edited = Mapping::editor_texts( Content::unit( $source ), (array) $payload['fields'] );
			}
			$reviews = array();
			foreach ( (array) ( $status['segments'] ?? array() ) as $s ) {
				$delivered = $s['results'][ $language ] ?? null;
				if ( ! $delivered || 'pending_review' !== ( $delivered['status'] ?? '' ) || 'review' !== ( $s['states'][ $language ] ?? '' ) || empty( $delivered['id'] ) ) {
					continue;
				}
				$review = array(
					'id'      => (string) $delivered['id'],
					'outcome' => (string) $payload['outcome'],
				);
				$text   = $edited[ $s['key'] ] ?? null;
				if ( 'approved' === $payload['outcome'] && null !== $text && Split\Keys::normalize( $text ) !== Split\Keys::normalize( (string) $delivered['text'] ) && '' !== Split\Keys::js_trim( $text ) ) {
					$review['text'] = $text;
				}
				if ( ! empty( $payload['reviewer'] ) ) {
					$review['reviewer'] = mb_substr( (string) $payload['reviewer'], 0, 200 );
				}
				$reviews[] = $review;
			}
			foreach ( array_chunk( $reviews, 500 ) as $chunk ) {
				Client::call( 'POST', '/v1/reviews', array( 'reviews' => $chunk ) );
			}
			Queue::done( $task );
			$this->touched[ $task['unit'] ] = true;
		}
	}

	/**
	 * The states editors see, for the units this pass touched: the service's counts per language.
	 *
	 * @throws Service_Error When the whole pass must stop.
	 */
	private function refresh_states(): void {
		foreach ( array_keys( $this->touched ) as $unit ) {
			try {
				$status = (array) Client::call( 'GET', '/v1/units/' . rawurlencode( $unit ) . '/status' );
			} catch ( Service_Error $e ) {
				if ( $e->stops_pass() ) {
					throw $e;
				}
				continue;
			}
			$languages = array();
			foreach ( (array) ( $status['languages'] ?? array() ) as $l ) {
				$languages[ (string) $l['code'] ] = array(
					'ok'        => (int) $l['ok'],
					'stale'     => (int) $l['stale'],
					'review'    => (int) $l['review'],
					'missing'   => (int) $l['missing'],
					'attention' => (int) $l['attention'],
				);
			}
			Content::set_meta(
				Content::post_id( $unit ),
				'_transync_state',
				array(
					'languages' => $languages,
					'dashboard' => (string) ( $status['dashboard_url'] ?? '' ),
					'at'        => time(),
				)
			);
			if ( ! empty( $status['dashboard_url'] ) ) {
				$base = preg_replace( '#/units/.*$#', '', (string) $status['dashboard_url'] );
				update_option( 'transync_dashboard', $base, false );
			}
		}
	}
}
