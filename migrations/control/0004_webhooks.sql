-- Webhooks (issue 21, DESIGN.md "Webhooks"): one endpoint per site, its delivery log, and
-- per-site marks (results.available's 10-second window, usage.threshold once a month).
CREATE TABLE `webhook_endpoints` (
	`site_id` integer PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`events` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_until` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`failing_since` text,
	`disabled_at` text
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` integer NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`status_code` integer,
	`duration_ms` integer,
	`error` text,
	`next_attempt_at` text
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_site` ON `webhook_deliveries` (`site_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_marks` (
	`site_id` integer NOT NULL,
	`mark` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`site_id`, `mark`)
);
