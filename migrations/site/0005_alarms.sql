CREATE TABLE `alarms` (
	`need` text PRIMARY KEY NOT NULL,
	`due_at` integer NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Work an object already had when it got the scheduler is due at once: its alarm (set by the code before) runs it.
INSERT INTO `alarms` (`need`, `due_at`, `version`) SELECT 'jobs', 0, 1 WHERE EXISTS (SELECT 1 FROM `jobs` WHERE `status` IN ('queued', 'running')) OR EXISTS (SELECT 1 FROM `meta` WHERE `key` = 'unsettled_jobs');--> statement-breakpoint
INSERT INTO `alarms` (`need`, `due_at`, `version`) SELECT 'retention', 0, 1 WHERE EXISTS (SELECT 1 FROM `units` WHERE `deleted` = 1) OR EXISTS (SELECT 1 FROM `results` WHERE `superseded` = 1);
