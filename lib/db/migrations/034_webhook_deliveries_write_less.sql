-- A delivery's environment is its event's (events.environment_id, ON DELETE CASCADE), and deleting
-- an event deletes its deliveries (event_id, ON DELETE CASCADE): deleting an environment already
-- removes them. The direct foreign key only cost every delivery insert a referential check and a
-- share lock on the environment's row, which every concurrent emit of the environment takes.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_environment_id_fkey;

-- Indexes every delivery row wrote (at its insert and at each update that could not be HOT) and
-- nothing needs: `seq` is drawn from its sequence, so unique by construction, and listing reads it
-- through webhook_deliveries_env_seq; the sweeper finds overdue deliveries per endpoint in the
-- outbox index (features/webhooks/outbox.ts overdueEndpoints).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_seq_key;
DROP INDEX webhook_deliveries_outbox_overdue;
-- In the claim's order, so a claim reads its batch and stops instead of sorting every pending delivery of the endpoint.
DROP INDEX webhook_deliveries_outbox_due;
CREATE INDEX webhook_deliveries_outbox_due ON webhook_deliveries (environment_id, url, next_attempt_at NULLS FIRST, seq) WHERE status = 'pending' AND via_endpoint;
-- Room on each page for the claim's new row versions, so that the claim (which changes no indexed
-- column) is a HOT update instead of a new entry in every index.
ALTER TABLE webhook_deliveries SET (fillfactor = 50);
