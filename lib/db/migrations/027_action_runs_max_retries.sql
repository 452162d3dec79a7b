-- X-Max-Retries of POST /action/trigger (Nango's, with X-Async): how many times a failed run is tried again.
ALTER TABLE action_runs ADD COLUMN max_retries int NOT NULL DEFAULT 0;
