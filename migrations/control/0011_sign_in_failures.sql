CREATE TABLE `sign_in_failures` (
	`user_id` integer NOT NULL,
	`client` text NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`locked_until` text,
	`last_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `client`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sign_in_failures_last` ON `sign_in_failures` (`last_at`);