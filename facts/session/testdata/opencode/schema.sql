-- OpenCode's tables project and session as its drizzle migrations make
-- them (anomalyco/opencode packages/opencode/src/session/session.sql.ts
-- @063e8306d989); Kilo's are the same.
CREATE TABLE `project` (
	`id` text PRIMARY KEY,
	`worktree` text NOT NULL,
	`vcs` text,
	`name` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`sandboxes` text NOT NULL
);
CREATE TABLE `session` (
	`id` text PRIMARY KEY,
	`project_id` text NOT NULL,
	`workspace_id` text,
	`parent_id` text,
	`slug` text NOT NULL,
	`directory` text NOT NULL,
	`path` text,
	`title` text NOT NULL,
	`version` text NOT NULL,
	`share_url` text,
	`summary_additions` integer,
	`summary_deletions` integer,
	`summary_files` integer,
	`summary_diffs` text,
	`cost` real DEFAULT 0 NOT NULL,
	`revert` text,
	`permission` text,
	`agent` text,
	`model` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`time_compacting` integer,
	`time_archived` integer,
	CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
INSERT INTO `project` VALUES ('4f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d', '/home/u/src/api', 'git', NULL, 1793610000000, 1793610000000, '[]');
INSERT INTO `session` (`id`, `project_id`, `slug`, `directory`, `title`, `version`, `time_created`, `time_updated`)
	VALUES ('ses_7b2f0c1d9ffeAbCdEfGh123456', '4f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d', 'brave-otter', '/home/u/src/api', 'New session - 2026-11-02T09:00:00.123Z', '1.14.2', 1793610000000, 1793610000000);
