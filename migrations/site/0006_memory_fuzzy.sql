ALTER TABLE `memory` ADD `source_text` text;--> statement-breakpoint
-- Hand-written (drizzle-kit knows neither virtual tables nor triggers; its snapshots leave them alone).
-- The fuzzy index (src/site/fuzzy.ts): the memory's source texts, trigram-tokenized; its rowid is the memory row's
-- rowid. Triggers keep it in step with every write to `memory` (new entries, edits, deletions), whoever writes;
-- writes to `memory` must be upserts or plain UPDATE/DELETE (a REPLACE would skip the delete trigger). A migration
-- that rebuilds `memory` must rebuild this index too (rowids may change).
CREATE VIRTUAL TABLE `memory_fts` USING fts5(`source_text`, tokenize = 'trigram');--> statement-breakpoint
CREATE TRIGGER `memory_fts_insert` AFTER INSERT ON `memory` WHEN new.`source_text` IS NOT NULL BEGIN
  INSERT INTO `memory_fts` (rowid, `source_text`) VALUES (new.rowid, new.`source_text`);
END;--> statement-breakpoint
CREATE TRIGGER `memory_fts_delete` AFTER DELETE ON `memory` BEGIN
  DELETE FROM `memory_fts` WHERE rowid = old.rowid;
END;--> statement-breakpoint
CREATE TRIGGER `memory_fts_update` AFTER UPDATE OF `source_text` ON `memory` WHEN old.`source_text` IS NOT new.`source_text` BEGIN
  DELETE FROM `memory_fts` WHERE rowid = old.rowid;
  INSERT INTO `memory_fts` (rowid, `source_text`) SELECT new.rowid, new.`source_text` WHERE new.`source_text` IS NOT NULL;
END;--> statement-breakpoint
-- Entries written before have no source text: the back-fill (need memory_index, src/site/alarms.ts) finds it among the
-- segments and indexes it in steps. Due now (ms since the epoch; the object arms its alarm after migrating), and so is
-- any need 0005 left due at 0 (an alarm cannot be set to 0).
UPDATE `alarms` SET `due_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE `due_at` = 0;--> statement-breakpoint
INSERT INTO `alarms` (`need`, `due_at`, `version`) SELECT 'memory_index', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 1 WHERE EXISTS (SELECT 1 FROM `memory`);
