-- A script run's write without an Idempotency-Key, marked before the request leaves
-- (features/scripts/write-marks.ts). A later attempt of the same run (Temporal's retry after a
-- failure or a lost worker) that finds the mark does not run the script again: the write may have
-- landed. `run_key` names the run (an action run, a sync run, a webhook or connection-event workflow
-- run); the first write that may have landed is the one kept. Marks older than a week are pruned.
CREATE TABLE script_write_marks (
  run_key   text PRIMARY KEY,
  method    text NOT NULL,
  endpoint  text NOT NULL,
  marked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX script_write_marks_marked_at ON script_write_marks (marked_at);
