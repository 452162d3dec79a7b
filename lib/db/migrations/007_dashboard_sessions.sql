-- Dashboard sign-ins: one row per browser session of one environment. The cookie carries a random
-- id; only its SHA-256 is stored, with the environment's key hash at sign-in (rotating the key
-- ends the session), the CSRF token of the session's forms, and an absolute expiry.
CREATE TABLE dashboard_sessions (
  id_hash         text PRIMARY KEY,
  environment_id  int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  secret_key_hash text NOT NULL,
  csrf_token      text NOT NULL,
  expires_at      timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);
