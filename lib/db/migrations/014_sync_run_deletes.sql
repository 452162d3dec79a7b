-- Deletion detection a sync script asks for by model (Nango's deleteRecordsFromPreviousExecutions,
-- trackDeletesStart/End), noted on the run and applied once when it finishes successfully
-- (features/syncs/state.ts completeSyncRun). `delete_tracked`: models the script took charge of;
-- `delete_swept`: models whose records not saved in the run are then marked deleted.
ALTER TABLE sync_runs
  ADD COLUMN delete_tracked text[] NOT NULL DEFAULT '{}',
  ADD COLUMN delete_swept   text[] NOT NULL DEFAULT '{}';
