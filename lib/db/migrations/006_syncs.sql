-- One row per connection × sync: the schedule's state, the frequency override, the checkpoint,
-- the run in progress (never two at once) and the last result.
CREATE TABLE sync_states (
  connection_pk      int NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  sync_name          text NOT NULL,
  status             text NOT NULL DEFAULT 'RUNNING',
  frequency_override text,
  checkpoint         jsonb,
  running_run_id     text,
  last_run_id        text,
  last_status        text,
  last_result        jsonb,
  last_error         jsonb,
  last_started_at    timestamptz,
  last_finished_at   timestamptz,
  PRIMARY KEY (connection_pk, sync_name)
);

CREATE TABLE sync_runs (
  id              text PRIMARY KEY,
  connection_pk   int NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  sync_name       text NOT NULL,
  mode            text NOT NULL,
  status          text NOT NULL DEFAULT 'RUNNING',
  results         jsonb NOT NULL DEFAULT '{}',
  invalid         jsonb NOT NULL DEFAULT '[]',
  resume          jsonb NOT NULL DEFAULT '{}',
  checkpoint_from jsonb,
  error           jsonb,
  started_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz
);
CREATE INDEX sync_runs_connection ON sync_runs (connection_pk, sync_name, started_at DESC);
