DROP INDEX `results_job_text`;--> statement-breakpoint
CREATE INDEX `results_job_text` ON `results` (`job_id`,`language`,substr(`source_fingerprint`, 1, 8));
