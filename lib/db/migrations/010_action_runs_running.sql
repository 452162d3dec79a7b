-- The action run sweeper (lib/actions/sweeper.ts) looks for old runs still `running`.
CREATE INDEX action_runs_running ON action_runs (created_at) WHERE status = 'running';
