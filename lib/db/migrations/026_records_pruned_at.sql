-- PATCH /records/prune (Nango's pruneRecords): a pruned record keeps its id, cursor and metadata and
-- loses its payload until a sync saves it again.
ALTER TABLE records ADD COLUMN pruned_at timestamptz;
