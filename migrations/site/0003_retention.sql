ALTER TABLE `units` ADD `deleted_at` text;--> statement-breakpoint
CREATE INDEX `units_deleted` ON `units` (`deleted_at`) WHERE deleted = 1;--> statement-breakpoint
CREATE INDEX `results_superseded` ON `results` (`id`) WHERE superseded = 1;--> statement-breakpoint
-- Units deleted before this migration start their 30 days now.
UPDATE `units` SET `deleted_at` = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE `deleted` = 1;
