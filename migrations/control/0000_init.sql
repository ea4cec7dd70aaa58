CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` integer NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_site` ON `api_keys` (`site_id`);--> statement-breakpoint
CREATE TABLE `glossary_terms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`source` text NOT NULL,
	`language` text NOT NULL,
	`target` text NOT NULL,
	`case_sensitive` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `glossary_terms_org` ON `glossary_terms` (`organization_id`,`language`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `reservations` (
	`site_id` integer NOT NULL,
	`job_id` integer NOT NULL,
	`organization_id` integer NOT NULL,
	`characters` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`site_id`, `job_id`)
);
--> statement-breakpoint
CREATE INDEX `reservations_org` ON `reservations` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`source_language` text NOT NULL,
	`target_languages` text NOT NULL,
	`enabled_adapters` text NOT NULL,
	`enabled_engines` text NOT NULL,
	`qa_mode` text DEFAULT 'editors' NOT NULL,
	`review_mode` text DEFAULT 'draft' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sites_organization` ON `sites` (`organization_id`);--> statement-breakpoint
CREATE TABLE `subscription_sites` (
	`organization_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `site_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `subscription_sites_site` ON `subscription_sites` (`site_id`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`plan` text NOT NULL,
	`status` text NOT NULL,
	`included_characters` integer,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `usage_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	`job_id` integer NOT NULL,
	`slice` integer NOT NULL,
	`characters` integer NOT NULL,
	`month` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `usage_ledger_slice` ON `usage_ledger` (`site_id`,`job_id`,`slice`);--> statement-breakpoint
CREATE INDEX `usage_ledger_org_month` ON `usage_ledger` (`organization_id`,`month`);--> statement-breakpoint
CREATE INDEX `usage_ledger_site_month` ON `usage_ledger` (`site_id`,`month`);