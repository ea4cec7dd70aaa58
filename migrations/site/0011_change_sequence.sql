ALTER TABLE `jobs` ADD `watermark` integer;--> statement-breakpoint
ALTER TABLE `segments` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `translations` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `units` ADD `seq` integer DEFAULT 0 NOT NULL;