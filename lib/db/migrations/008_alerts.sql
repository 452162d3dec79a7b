-- Alerts: one row per occurrence streak of a failure cause (a sync of a connection, a connection's
-- check or token refresh, a webhook URL). At most one open alert per environment and cause; a
-- repeat of the same failure counts an occurrence on it, and the next success resolves it.
CREATE TABLE alerts (
  id             bigserial PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  -- e.g. sync:metabase:acme:users, check:metabase:acme, auth:metabase:acme, webhook:<hash of the URL>
  cause          text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('sync_failed', 'auth_refresh_failed', 'connection_check_failed', 'webhook_dead')),
  status         text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  integration    text,
  connection_id  text,
  script         text,
  message        text NOT NULL,
  details        jsonb NOT NULL DEFAULT '{}',
  occurrences    int NOT NULL DEFAULT 1,
  -- What the last occurrence was (a run id, a delivery id): a retried reporter counts once.
  last_ref       text,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now(),
  resolved_at    timestamptz,
  -- The run, check or delivery whose success resolved the alert.
  resolved_by    text
);
CREATE UNIQUE INDEX alerts_one_open_per_cause ON alerts (environment_id, cause) WHERE status = 'open';
CREATE INDEX alerts_env_status_seen ON alerts (environment_id, status, last_seen_at DESC, id DESC);
