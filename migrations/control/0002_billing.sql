CREATE TABLE `billing_closes` (
	`organization_id` integer NOT NULL,
	`month` text NOT NULL,
	`plan` text,
	`used_characters` integer NOT NULL,
	`overage_characters` integer NOT NULL,
	`overage_cents` integer NOT NULL,
	`provider` text NOT NULL,
	`invoice_item_id` text,
	`closed_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `month`)
);
--> statement-breakpoint
CREATE INDEX `billing_closes_month` ON `billing_closes` (`month`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stripe_subscriptions` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`status` text NOT NULL,
	`plan` text,
	`price_id` text,
	`quantity` integer DEFAULT 1 NOT NULL,
	`cancel_at_period_end` integer DEFAULT false NOT NULL,
	`current_period_end` text,
	`synced_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stripe_subscriptions_subscription` ON `stripe_subscriptions` (`subscription_id`);--> statement-breakpoint
CREATE INDEX `stripe_subscriptions_customer` ON `stripe_subscriptions` (`customer_id`);--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `provider` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `site_limit` integer;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `past_due_since` text;