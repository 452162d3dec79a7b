-- The records cache. `cursor` is taken from one sequence on every change, so paging by cursor is
-- stable and monotonic; `hash` lets an unchanged record go unwritten.
CREATE SEQUENCE records_cursor_seq;
CREATE TABLE records (
  id               bigserial PRIMARY KEY,
  connection_pk    int NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  model            text NOT NULL,
  external_id      text NOT NULL,
  data             jsonb NOT NULL,
  hash             text NOT NULL,
  first_seen_at    timestamptz NOT NULL DEFAULT now(),
  last_modified_at timestamptz NOT NULL DEFAULT now(),
  deleted_at       timestamptz,
  last_action      text NOT NULL DEFAULT 'ADDED',
  cursor           bigint NOT NULL DEFAULT nextval('records_cursor_seq'),
  UNIQUE (connection_pk, model, external_id)
);
CREATE INDEX records_by_cursor ON records (connection_pk, model, cursor);

-- External ids seen by a full sync run, for deletion detection at its end.
CREATE TABLE sync_seen (
  run_id        text NOT NULL,
  connection_pk int NOT NULL,
  model         text NOT NULL,
  external_id   text NOT NULL,
  PRIMARY KEY (run_id, model, external_id)
);

CREATE TABLE action_runs (
  id             uuid PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  connection_pk  int REFERENCES connections(id) ON DELETE SET NULL,
  integration    text NOT NULL,
  connection_id  text NOT NULL,
  action_name    text NOT NULL,
  input          jsonb,
  is_async       boolean NOT NULL DEFAULT false,
  status         text NOT NULL DEFAULT 'running',
  output         jsonb,
  error          jsonb,
  logs           jsonb NOT NULL DEFAULT '[]',
  created_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz
);
CREATE INDEX action_runs_env_created ON action_runs (environment_id, created_at);
