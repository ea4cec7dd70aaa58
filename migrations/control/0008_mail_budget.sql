CREATE TABLE `mail_budget` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_budget_key_at` ON `mail_budget` (`key`,`at`);