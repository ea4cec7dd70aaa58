CREATE TABLE `glossary` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`language` text NOT NULL,
	`source` text NOT NULL,
	`target` text NOT NULL,
	`case_sensitive` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `glossary_language` ON `glossary` (`language`);--> statement-breakpoint
CREATE TABLE `prefix_counts` (
	`prefix` text NOT NULL,
	`language` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`ok` integer DEFAULT 0 NOT NULL,
	`stale` integer DEFAULT 0 NOT NULL,
	`review` integer DEFAULT 0 NOT NULL,
	`attention` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`prefix`, `language`)
);
--> statement-breakpoint
ALTER TABLE `segments` ADD `characters` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `units` ADD `snapshot_digest` text;--> statement-breakpoint
ALTER TABLE `units` ADD `snapshot_mismatches` text;--> statement-breakpoint
-- Existing rows: SQLite counts a text's characters as code points (up to a NUL, which requests can no longer carry).
UPDATE `segments` SET `characters` = length(`text`);--> statement-breakpoint
INSERT INTO `prefix_counts` (`prefix`, `language`, `total`, `ok`, `stale`, `review`, `attention`)
SELECT substr(`unit_key`, 1, instr(`unit_key`, ':')), `language`, sum(`total`), sum(`ok`), sum(`stale`), sum(`review`), sum(`attention`)
FROM `unit_counts` WHERE instr(`unit_key`, ':') > 0 GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO `prefix_counts` (`prefix`, `language`, `total`, `ok`)
SELECT substr(`external_key`, 1, instr(`external_key`, ':')), '', sum(`segment_count`), count(*)
FROM `units` WHERE `counted` = 1 AND instr(`external_key`, ':') > 0 GROUP BY 1;
