CREATE TABLE `job_items` (
	`job_id` integer NOT NULL,
	`segment_id` integer NOT NULL,
	`language` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	PRIMARY KEY(`job_id`, `segment_id`, `language`)
);
--> statement-breakpoint
CREATE INDEX `job_items_pending` ON `job_items` (`job_id`,`language`,`segment_id`) WHERE status = 'pending';--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`request` text NOT NULL,
	`languages` text NOT NULL,
	`estimated_segments` integer DEFAULT 0 NOT NULL,
	`estimated_characters` integer DEFAULT 0 NOT NULL,
	`estimated_tm_segments` integer DEFAULT 0 NOT NULL,
	`confirmed_characters` integer,
	`done_segments` integer DEFAULT 0 NOT NULL,
	`failed_segments` integer DEFAULT 0 NOT NULL,
	`characters` integer DEFAULT 0 NOT NULL,
	`qa_failed_segments` integer DEFAULT 0 NOT NULL,
	`tm_segments` integer DEFAULT 0 NOT NULL,
	`tm_characters` integer DEFAULT 0 NOT NULL,
	`reused_segments` integer DEFAULT 0 NOT NULL,
	`reused_characters` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`slices` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `jobs_active` ON `jobs` (`id`) WHERE status IN ('queued', 'running');--> statement-breakpoint
CREATE TABLE `memory` (
	`source_fingerprint` text NOT NULL,
	`source_language` text NOT NULL,
	`target_language` text NOT NULL,
	`text` text NOT NULL,
	`origin` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`source_fingerprint`, `source_language`, `target_language`)
);
--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`segment_id` integer NOT NULL,
	`unit_id` integer NOT NULL,
	`language` text NOT NULL,
	`text` text NOT NULL,
	`source_fingerprint` text NOT NULL,
	`origin` text NOT NULL,
	`engine` text NOT NULL,
	`job_id` integer,
	`qa` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`acknowledged` integer DEFAULT 0 NOT NULL,
	`superseded` integer DEFAULT 0 NOT NULL,
	`held` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `results_pending` ON `results` (`id`) WHERE pending = 1;--> statement-breakpoint
CREATE INDEX `results_pending_unit` ON `results` (`unit_id`,`language`,`id`) WHERE pending = 1;--> statement-breakpoint
CREATE INDEX `results_held` ON `results` (`id`) WHERE held = 1;--> statement-breakpoint
CREATE INDEX `results_segment` ON `results` (`segment_id`,`language`);--> statement-breakpoint
CREATE INDEX `results_job_text` ON `results` (`job_id`,`language`,`source_fingerprint`);--> statement-breakpoint
CREATE TABLE `segments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`unit_id` integer NOT NULL,
	`key` text NOT NULL,
	`text` text NOT NULL,
	`fingerprint` text NOT NULL,
	`format` text NOT NULL,
	`field` text,
	`kind` text,
	`max_length` integer,
	`position` integer NOT NULL,
	`parent_key` text,
	`removed` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `segments_unit_key` ON `segments` (`unit_id`,`key`);--> statement-breakpoint
CREATE INDEX `segments_fingerprint` ON `segments` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `site_counts` (
	`language` text PRIMARY KEY NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`ok` integer DEFAULT 0 NOT NULL,
	`stale` integer DEFAULT 0 NOT NULL,
	`review` integer DEFAULT 0 NOT NULL,
	`attention` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `translations` (
	`segment_id` integer NOT NULL,
	`language` text NOT NULL,
	`text` text,
	`source_fingerprint` text NOT NULL,
	`status` text NOT NULL,
	`origin` text,
	`engine` text,
	`result_id` integer,
	`qa` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`segment_id`, `language`)
);
--> statement-breakpoint
CREATE TABLE `unit_counts` (
	`unit_id` integer NOT NULL,
	`language` text NOT NULL,
	`unit_key` text NOT NULL,
	`total` integer NOT NULL,
	`ok` integer NOT NULL,
	`stale` integer NOT NULL,
	`review` integer NOT NULL,
	`attention` integer NOT NULL,
	PRIMARY KEY(`unit_id`, `language`)
);
--> statement-breakpoint
CREATE INDEX `unit_counts_key` ON `unit_counts` (`unit_key`);--> statement-breakpoint
CREATE INDEX `unit_counts_work` ON `unit_counts` (`language`,`unit_key`) WHERE total > ok;--> statement-breakpoint
CREATE TABLE `units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`external_key` text NOT NULL,
	`adapter` text NOT NULL,
	`label` text,
	`path` text,
	`source_language` text,
	`writable_languages` text,
	`metadata` text,
	`last_synced_at` text,
	`deleted` integer DEFAULT 0 NOT NULL,
	`segment_count` integer DEFAULT 0 NOT NULL,
	`needs_work` integer DEFAULT 0 NOT NULL,
	`counted` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `units_external_key_unique` ON `units` (`external_key`);--> statement-breakpoint
CREATE INDEX `units_work` ON `units` (`external_key`) WHERE needs_work = 1 AND deleted = 0;