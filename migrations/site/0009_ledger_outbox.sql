CREATE TABLE `ledger_outbox` (
	`job_id` integer NOT NULL,
	`n` integer NOT NULL,
	`characters` integer NOT NULL,
	`month` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`job_id`, `n`)
);
