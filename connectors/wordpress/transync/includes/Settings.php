<?php
/**
 * Settings → Transync: the connection's state (wrong key, unreachable, handshake warnings such as
 * a language the site lacks), the languages, the queue and the last errors, a link to the
 * dashboard, the settings (Settings API) and the owner's actions (sync now, translate now, send
 * all content, register the webhook again), each behind a nonce and `manage_options`.
 *
 * @package Transync
 */

namespace Transync;

defined( 'ABSPATH' ) || exit;

/**
 * The settings page.
 */
final class Settings {

	/**
	 * Registers the page, the setting and the actions.
	 */
	public static function register(): void {
		add_action( 'admin_menu', array( self::class, 'menu' ) );
		add_action( 'admin_init', array( self::class, 'setting' ) );
		add_action( 'admin_post_transync_action', array( self::class, 'action' ) );
		add_action( 'update_option_' . State::SETTINGS, array( self::class, 'changed' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( TRANSYNC_FILE ), array( self::class, 'link' ) );
	}

	/**
	 * Settings → Transync.
	 */
	public static function menu(): void {
		add_options_page( __( 'Transync', 'transync' ), __( 'Transync', 'transync' ), 'manage_options', 'transync', array( self::class, 'page' ) );
	}

	/**
	 * “Settings” on the plugins list.
	 *
	 * @param string[] $links The plugin's links.
	 * @return string[]
	 */
	public static function link( array $links ): array {
		array_unshift( $links, sprintf( '<a href="%s">%s</a>', esc_url( admin_url( 'options-general.php?page=transync' ) ), esc_html__( 'Settings', 'transync' ) ) );
		return $links;
	}

	/**
	 * The setting and its fields.
	 */
	public static function setting(): void {
		register_setting(
			'transync',
			State::SETTINGS,
			array(
				'type'              => 'array',
				'sanitize_callback' => array( self::class, 'sanitize' ),
				'default'           => array(),
			)
		);
		add_settings_section( 'transync_content', __( 'What is translated', 'transync' ), '__return_false', 'transync' );
		add_settings_field( 'post_types', __( 'Post types', 'transync' ), array( self::class, 'field_post_types' ), 'transync', 'transync_content' );
		add_settings_field( 'fields', __( 'Fields', 'transync' ), array( self::class, 'field_fields' ), 'transync', 'transync_content' );
		add_settings_field( 'jobs', __( 'Translation jobs', 'transync' ), array( self::class, 'field_jobs' ), 'transync', 'transync_content' );
	}

	/**
	 * Keeps only known values.
	 *
	 * @param mixed $input The form's values.
	 * @return array<string, mixed>
	 */
	public static function sanitize( $input ): array {
		$input = is_array( $input ) ? $input : array();
		$types = array_keys( get_post_types( array( 'show_ui' => true ) ) );
		return array(
			'post_types'   => array_values( array_intersect( $types, array_map( 'sanitize_key', (array) ( $input['post_types'] ?? array() ) ) ) ),
			'fields'       => array_values( array_intersect( Mapping::FIELDS, array_map( 'sanitize_key', (array) ( $input['fields'] ?? array() ) ) ) ),
			'jobs'         => 'on_demand' === ( $input['jobs'] ?? '' ) ? 'on_demand' : 'on_publish',
			'confirm_jobs' => ! empty( $input['confirm_jobs'] ),
		);
	}

	/**
	 * Settings changed: the next pass handshakes again.
	 */
	public static function changed(): void {
		$handshake = State::get( State::HANDSHAKE );
		unset( $handshake['signature'] );
		State::set( State::HANDSHAKE, $handshake );
		Queue::$queued = true;
	}

	/**
	 * The post types field.
	 */
	public static function field_post_types(): void {
		$settings = State::settings();
		echo '<fieldset><legend class="screen-reader-text">' . esc_html__( 'Post types', 'transync' ) . '</legend>';
		foreach ( get_post_types( array( 'show_ui' => true ), 'objects' ) as $type ) {
			if ( in_array( $type->name, array( 'attachment', 'wp_block', 'wp_navigation' ), true ) ) {
				continue;
			}
			printf(
				'<label><input type="checkbox" name="%1$s[post_types][]" value="%2$s" %3$s> %4$s</label><br>',
				esc_attr( State::SETTINGS ),
				esc_attr( $type->name ),
				checked( in_array( $type->name, $settings['post_types'], true ), true, false ),
				esc_html( $type->labels->name )
			);
		}
		echo '</fieldset>';
	}

	/**
	 * The fields field.
	 */
	public static function field_fields(): void {
		$settings = State::settings();
		$labels   = array(
			'title'   => __( 'Title', 'transync' ),
			'content' => __( 'Content (each paragraph, heading, list item, quote, caption and table cell)', 'transync' ),
			'excerpt' => __( 'Excerpt', 'transync' ),
		);
		echo '<fieldset><legend class="screen-reader-text">' . esc_html__( 'Fields', 'transync' ) . '</legend>';
		foreach ( $labels as $field => $label ) {
			printf(
				'<label><input type="checkbox" name="%1$s[fields][]" value="%2$s" %3$s> %4$s</label><br>',
				esc_attr( State::SETTINGS ),
				esc_attr( $field ),
				checked( in_array( $field, $settings['fields'], true ), true, false ),
				esc_html( $label )
			);
		}
		echo '</fieldset>';
	}

	/**
	 * The job policy field.
	 */
	public static function field_jobs(): void {
		$settings = State::settings();
		echo '<fieldset><legend class="screen-reader-text">' . esc_html__( 'Translation jobs', 'transync' ) . '</legend>';
		foreach ( array(
			'on_publish' => __( 'Translate when a post is published or updated', 'transync' ),
			'on_demand'  => __( 'Only on demand (“Translate now”)', 'transync' ),
		) as $value => $label ) {
			printf(
				'<label><input type="radio" name="%1$s[jobs]" value="%2$s" %3$s> %4$s</label><br>',
				esc_attr( State::SETTINGS ),
				esc_attr( $value ),
				checked( $settings['jobs'], $value, false ),
				esc_html( $label )
			);
		}
		printf(
			'<label><input type="checkbox" name="%1$s[confirm_jobs]" value="1" %2$s> %3$s</label>',
			esc_attr( State::SETTINGS ),
			checked( $settings['confirm_jobs'], true, false ),
			esc_html__( 'Also start jobs that need a confirmation (over 100,000 billable characters, or beyond the plan’s included volume)', 'transync' )
		);
		echo '</fieldset>';
	}

	/**
	 * The page.
	 */
	public static function page(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		$connection = State::get( State::CONNECTION );
		$handshake  = State::get( State::HANDSHAKE );
		$webhook    = State::get( State::WEBHOOK );
		$dashboard  = (string) get_option( 'transync_dashboard', '' );
		$tasks      = Queue::all( 50 );
		$errors     = State::get( State::ERRORS );
		$languages  = Plugin::languages();
		echo '<div class="wrap transync-settings"><h1>' . esc_html__( 'Transync', 'transync' ) . '</h1>';

		echo '<h2>' . esc_html__( 'Connection', 'transync' ) . '</h2><table class="widefat striped transync-table"><tbody>';
		self::row( __( 'Service', 'transync' ), esc_html( Client::url() ) . ( defined( 'TRANSYNC_URL' ) ? '' : ' <span class="transync-muted">' . esc_html__( '(the default; TRANSYNC_URL in wp-config.php changes it)', 'transync' ) . '</span>' ) );
		self::row( __( 'API key', 'transync' ), '' === Client::key() ? self::badge_text( 'conflict', __( 'Missing: define TRANSYNC_KEY in wp-config.php', 'transync' ) ) : esc_html__( 'Set in wp-config.php (TRANSYNC_KEY)', 'transync' ) );
		$state = (string) ( $connection['state'] ?? '' );
		if ( 'ok' === $state ) {
			/* translators: %s: time since. */
			$status = self::badge_text( 'ok', sprintf( __( 'Connected (last contact %s ago)', 'transync' ), human_time_diff( (int) $connection['at'] ) ) );
		} elseif ( '' === $state ) {
			$status = self::badge_text( 'none', __( 'Not contacted yet', 'transync' ) ) . ' <span class="transync-muted">' . esc_html(
				'' === Client::key()
					? __( 'The plugin contacts the service once TRANSYNC_KEY is set.', 'transync' )
					: __( 'The first pass runs within a minute (WP-Cron); Sync now tries at once.', 'transync' )
			) . '</span>';
		} else {
			$labels = array(
				'wrong_key'   => __( 'Wrong API key', 'transync' ),
				'unreachable' => __( 'Service unreachable', 'transync' ),
				'no_key'      => __( 'No API key', 'transync' ),
				'error'       => __( 'Error', 'transync' ),
			);
			/* translators: %s: time since. */
			$status = self::badge_text( 'conflict', $labels[ $state ] ?? $state ) . ' ' . esc_html( (string) $connection['message'] ) . ' <span class="transync-muted">' . esc_html( sprintf( __( 'Since %s ago; retried automatically.', 'transync' ), human_time_diff( (int) ( $connection['since'] ?? time() ) ) ) ) . '</span>';
		}
		self::row( __( 'State', 'transync' ), $status );
		if ( $handshake ) {
			self::row( __( 'Site', 'transync' ), esc_html( (string) ( $handshake['name'] ?? '' ) ) . ( $dashboard ? ' — <a href="' . esc_url( $dashboard ) . '" target="_blank" rel="noopener">' . esc_html__( 'Open the Transync dashboard', 'transync' ) . '</a>' : '' ) );
			self::row( __( 'Review mode', 'transync' ), esc_html( 'draft' === ( $handshake['review_mode'] ?? '' ) ? __( 'Drafts (translations arrive as drafts; publishing one approves it)', 'transync' ) : (string) ( $handshake['review_mode'] ?? '' ) . ' ' . __( '(this plugin writes drafts in every mode)', 'transync' ) ) );
		}
		self::row(
			__( 'Webhook', 'transync' ),
			! empty( $webhook['secret'] )
				? esc_html__( 'Registered: results are pulled as soon as they are ready.', 'transync' )
				: esc_html( (string) ( $webhook['error'] ?? __( 'Not registered yet: results are pulled every minute by WP-Cron.', 'transync' ) ) )
		);
		echo '</tbody></table>';

		$warnings = (array) ( $handshake['warnings'] ?? array() );
		if ( $warnings ) {
			echo '<div class="notice notice-warning inline transync-warnings"><p><strong>' . esc_html__( 'The service warns:', 'transync' ) . '</strong></p><ul>';
			foreach ( $warnings as $w ) {
				echo '<li>' . esc_html( (string) $w ) . '</li>';
			}
			echo '</ul></div>';
		}

		echo '<h2>' . esc_html__( 'Languages', 'transync' ) . '</h2><table class="widefat striped transync-table"><thead><tr><th scope="col">' . esc_html__( 'Language', 'transync' ) . '</th><th scope="col">' . esc_html__( 'In Polylang', 'transync' ) . '</th><th scope="col">' . esc_html__( 'Translated by the service', 'transync' ) . '</th></tr></thead><tbody>';
		$targets = array();
		foreach ( (array) ( $handshake['targets'] ?? array() ) as $t ) {
			$targets[ $t['code'] ] = $t;
		}
		$site_languages = $languages ? $languages->all() : array();
		foreach ( array_unique( array_merge( $site_languages, array_keys( $targets ) ) ) as $code ) {
			$source = $languages && $code === $languages->source();
			printf(
				'<tr><td>%s</td><td>%s</td><td>%s</td></tr>',
				esc_html( strtoupper( $code ) ),
				in_array( $code, $site_languages, true ) ? esc_html( $source ? __( 'Yes (the source)', 'transync' ) : __( 'Yes', 'transync' ) ) : esc_html__( 'No', 'transync' ),
				$source ? '—' : ( ! $handshake ? esc_html__( 'Not known yet (the service has not answered)', 'transync' ) : ( isset( $targets[ $code ] ) ? ( $targets[ $code ]['writable'] ? esc_html__( 'Yes', 'transync' ) : esc_html__( 'No (not writable in the dashboard)', 'transync' ) ) : esc_html__( 'No (not a language of the site in Transync)', 'transync' ) ) )
			);
		}
		echo '</tbody></table>';

		echo '<h2>' . esc_html__( 'Queue', 'transync' ) . '</h2>';
		if ( ! $tasks ) {
			echo '<p>' . esc_html__( 'Nothing waits: every change was sent.', 'transync' ) . '</p>';
		} else {
			$kinds = array(
				'push'   => __( 'Send changes', 'transync' ),
				'delete' => __( 'Delete', 'transync' ),
				'review' => __( 'Report a review', 'transync' ),
			);
			echo '<table class="widefat striped transync-table"><thead><tr><th scope="col">' . esc_html__( 'What', 'transync' ) . '</th><th scope="col">' . esc_html__( 'Post', 'transync' ) . '</th><th scope="col">' . esc_html__( 'Attempts', 'transync' ) . '</th><th scope="col">' . esc_html__( 'Last error', 'transync' ) . '</th></tr></thead><tbody>';
			foreach ( $tasks as $t ) {
				printf(
					'<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td></tr>',
					esc_html( $kinds[ $t['kind'] ] ?? $t['kind'] ),
					esc_html( get_the_title( $t['post_id'] ) ?: $t['unit'] ),
					(int) $t['attempts'],
					esc_html( (string) $t['last_error'] )
				);
			}
			echo '</tbody></table>';
		}

		echo '<h2>' . esc_html__( 'Last errors', 'transync' ) . '</h2>';
		if ( ! $errors ) {
			echo '<p>' . esc_html__( 'None.', 'transync' ) . '</p>';
		} else {
			echo '<ul class="transync-errors">';
			foreach ( array_slice( $errors, 0, 10 ) as $e ) {
				/* translators: %s: time since. */
				printf( '<li><span class="transync-muted">%s</span> %s</li>', esc_html( sprintf( __( '%s ago', 'transync' ), human_time_diff( (int) $e['at'] ) ) ), esc_html( (string) $e['message'] ) );
			}
			echo '</ul>';
		}

		echo '<h2>' . esc_html__( 'Actions', 'transync' ) . '</h2><div class="transync-actions">';
		self::action_button( 'sync', __( 'Sync now', 'transync' ), __( 'Sends what waits and pulls what is ready.', 'transync' ) );
		self::action_button( 'translate', __( 'Translate now', 'transync' ), __( 'Starts a job for everything missing or stale, confirmed.', 'transync' ) );
		self::action_button( 'send_all', __( 'Send all published content', 'transync' ), __( 'Queues every published post of the translated types (for a site that had content before the plugin).', 'transync' ) );
		self::action_button( 'webhook', __( 'Register the webhook again', 'transync' ), __( 'After a rotation of its secret in the dashboard.', 'transync' ) );
		echo '</div>';

		echo '<form method="post" action="options.php">';
		settings_fields( 'transync' );
		do_settings_sections( 'transync' );
		submit_button();
		echo '</form></div>';
	}

	/**
	 * A row of the connection table (its value is escaped by the caller).
	 *
	 * @param string $label The label.
	 * @param string $html  The value, escaped.
	 */
	private static function row( string $label, string $html ): void {
		printf( '<tr><th scope="row">%s</th><td>%s</td></tr>', esc_html( $label ), $html ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- escaped by the caller.
	}

	/**
	 * A state badge with a text of its own.
	 *
	 * @param string $state The state.
	 * @param string $text  The text.
	 */
	private static function badge_text( string $state, string $text ): string {
		return sprintf( '<span class="transync-badge transync-%s">%s</span>', esc_attr( $state ), esc_html( $text ) );
	}

	/**
	 * A form posting one action to admin-post.php.
	 *
	 * @param string $what  The action.
	 * @param string $label The button.
	 * @param string $help  What it does.
	 */
	private static function action_button( string $what, string $label, string $help ): void {
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '" class="transync-action">';
		wp_nonce_field( 'transync_action_' . $what );
		printf( '<input type="hidden" name="action" value="transync_action"><input type="hidden" name="what" value="%s">', esc_attr( $what ) );
		submit_button( $label, 'secondary', 'submit', false );
		printf( ' <span class="description">%s</span></form>', esc_html( $help ) );
	}

	/**
	 * An owner's action.
	 */
	public static function action(): void {
		$what = isset( $_POST['what'] ) ? sanitize_key( wp_unslash( $_POST['what'] ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification.Missing -- checked just below.
		check_admin_referer( 'transync_action_' . $what );
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You are not allowed to do this.', 'transync' ), 403 );
		}
		if ( 'webhook' === $what ) {
			delete_option( State::WEBHOOK );
		}
		if ( 'send_all' === $what ) {
			$ids = get_posts(
				array(
					'post_type'      => State::settings()['post_types'],
					'post_status'    => 'publish',
					'posts_per_page' => -1,
					'fields'         => 'ids',
					'lang'           => Plugin::languages()->source(),
				)
			);
			foreach ( $ids as $id ) {
				$post = get_post( $id );
				if ( $post && Content::is_source( $post ) ) {
					Queue::enqueue( 'push', Content::unit_key( $post ), $post->ID );
				}
			}
		}
		Sync::instance()->run( Sync::MANUAL );
		if ( 'translate' === $what ) {
			try {
				Sync::instance()->start_job( array(), true );
			} catch ( Service_Error $e ) {
				State::error( $e->describe() );
			}
		}
		wp_safe_redirect( admin_url( 'options-general.php?page=transync' ) );
		exit;
	}
}
