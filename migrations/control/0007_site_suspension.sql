ALTER TABLE `sites` ADD `suspended_reason` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `suspended_at` text;