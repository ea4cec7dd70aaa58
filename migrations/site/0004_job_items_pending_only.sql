-- job_items holds only pending work, keyed (job, language, segment), WITHOUT ROWID (drizzle's
-- schema cannot say so; written by hand after drizzle-kit generate). Pending items of a running
-- job are kept; finished and failed ones are tallied in jobs already.
CREATE TABLE `__new_job_items` (
	`job_id` integer NOT NULL,
	`language` text NOT NULL,
	`segment_id` integer NOT NULL,
	PRIMARY KEY(`job_id`, `language`, `segment_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_job_items`("job_id", "language", "segment_id") SELECT "job_id", "language", "segment_id" FROM `job_items` WHERE "status" = 'pending';--> statement-breakpoint
DROP TABLE `job_items`;--> statement-breakpoint
ALTER TABLE `__new_job_items` RENAME TO `job_items`;
