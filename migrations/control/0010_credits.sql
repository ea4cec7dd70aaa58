CREATE TABLE `credits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`month` text NOT NULL,
	`characters` integer NOT NULL,
	`reason` text NOT NULL,
	`actor` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `credits_org_month` ON `credits` (`organization_id`,`month`);--> statement-breakpoint
ALTER TABLE `billing_closes` ADD `credited_characters` integer DEFAULT 0 NOT NULL;