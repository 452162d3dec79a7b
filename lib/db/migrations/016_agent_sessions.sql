-- Agent sessions (issue 18): a token that an AI agent uses on /mcp, scoped to some connections and
-- optionally some tools, expiring, revocable. Only the token's SHA-256 is stored. Action runs record
-- the session that made them.
CREATE TABLE agent_sessions (
  id             uuid PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  token_hash     text NOT NULL UNIQUE,
  end_user       jsonb NOT NULL,
  connections    jsonb NOT NULL,
  tools          jsonb,
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_sessions_env ON agent_sessions (environment_id, created_at);

ALTER TABLE action_runs ADD COLUMN agent_session_id uuid;
CREATE INDEX action_runs_agent_session ON action_runs (agent_session_id) WHERE agent_session_id IS NOT NULL;
