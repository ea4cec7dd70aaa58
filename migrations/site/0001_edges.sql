CREATE TABLE `glossary` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`language` text NOT NULL,
	`source` text NOT NULL,
	`target` text NOT NULL,
	`case_sensitive` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `glossary_language` ON `glossary` (`language`);--> statement-breakpoint
ALTER TABLE `segments` ADD `characters` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing rows: SQLite counts a text's characters as code points (up to a NUL, which requests can no longer carry).
UPDATE `segments` SET `characters` = length(`text`);