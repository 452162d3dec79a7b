CREATE TABLE request_logs (
  id             bigserial PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  integration    text,
  connection_id  text,
  run_id         text,
  kind           text NOT NULL,
  method         text NOT NULL,
  url            text NOT NULL,
  status         int,
  duration_ms    int NOT NULL,
  request_bytes  bigint,
  response_bytes bigint,
  error          text,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX request_logs_env_created_idx ON request_logs (environment_id, created_at DESC, id DESC);
CREATE INDEX request_logs_env_connection_created_idx ON request_logs (environment_id, connection_id, created_at DESC);
-- Retention deletes by age across environments.
CREATE INDEX request_logs_created_idx ON request_logs (created_at);
