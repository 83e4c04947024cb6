-- Hermes's table sessions in ~/.hermes/state.db (NousResearch/hermes-agent
-- hermes_state.py, as kenn-io/agentsview internal/parser/hermes_test.go
-- @538600744d1b reproduces it).
CREATE TABLE sessions (
	id TEXT PRIMARY KEY,
	source TEXT NOT NULL,
	user_id TEXT,
	model TEXT,
	model_config TEXT,
	system_prompt TEXT,
	parent_session_id TEXT,
	started_at REAL NOT NULL,
	ended_at REAL,
	end_reason TEXT,
	message_count INTEGER DEFAULT 0,
	tool_call_count INTEGER DEFAULT 0,
	input_tokens INTEGER DEFAULT 0,
	output_tokens INTEGER DEFAULT 0,
	title TEXT,
	api_call_count INTEGER DEFAULT 0
);
INSERT INTO sessions (id, source, model, started_at, title)
	VALUES ('20261102_090000_a1b2c3', 'cli', 'hermes-4', 1793610000.0, NULL);
