-- The ids a sync run saw, for deletion detection when it finishes (features/records/store.ts): one
-- row per saved batch holding its external ids, instead of one indexed row per record, so saving a
-- page of 1000 records costs one small insert (issue 20). Runs in flight keep what they saw.
CREATE TABLE sync_run_seen (
  run_id       text NOT NULL,
  model        text NOT NULL,
  external_ids text[] NOT NULL
);
CREATE INDEX sync_run_seen_run ON sync_run_seen (run_id, model);
INSERT INTO sync_run_seen (run_id, model, external_ids) SELECT run_id, model, array_agg(external_id) FROM sync_seen GROUP BY run_id, model;
DROP TABLE sync_seen;
