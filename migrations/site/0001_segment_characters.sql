ALTER TABLE `segments` ADD `characters` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing rows: SQLite counts a text's characters as code points (up to a NUL, which requests can no longer carry).
UPDATE `segments` SET `characters` = length(`text`);