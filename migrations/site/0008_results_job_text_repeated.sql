-- results_job_text holds only results of repeated texts (results.repeated = 1): only those can be reused later in their
-- job. Results of jobs still queued or running are marked repeated first (read through the old index), so their reuse
-- goes on across the deploy. Written by hand after drizzle-kit generate, which quotes each piece of substr(…) (0007).
ALTER TABLE `results` ADD `repeated` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `results` SET `repeated` = 1 WHERE `job_id` IN (SELECT `id` FROM `jobs` WHERE `status` IN ('queued', 'running'));--> statement-breakpoint
DROP INDEX `results_job_text`;--> statement-breakpoint
CREATE INDEX `results_job_text` ON `results` (`job_id`,`language`,substr(`source_fingerprint`, 1, 8)) WHERE repeated = 1;
