-- Webhook deliveries sent in batches by one workflow per endpoint (features/webhooks/outbox.ts,
-- workflows/webhook-endpoint.ts) instead of one workflow per delivery. Rows from before (and alert
-- webhooks) keep `via_endpoint = false`: their own webhookDeliveryWorkflow sends them.
ALTER TABLE webhook_deliveries ADD COLUMN via_endpoint boolean NOT NULL DEFAULT false;
-- While set and in the future, the endpoint's drain activity holds the delivery (its lease).
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until timestamptz;
CREATE INDEX webhook_deliveries_outbox_due ON webhook_deliveries (environment_id, url, next_attempt_at) WHERE status = 'pending' AND via_endpoint;
CREATE INDEX webhook_deliveries_outbox_overdue ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND via_endpoint;

-- One row per endpoint (environment + target URL). `key` (a hash of the URL) names its workflow, so
-- the URL, which may carry a secret, is never in a workflow id or input. `wake_pending`: an emitter
-- has asked the workflow to drain (signal sent or being sent) since its last claim; later emitters
-- skip the signal (the claim clears it, then reads the outbox in a later statement).
CREATE TABLE webhook_endpoints (
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  url            text NOT NULL,
  key            text NOT NULL,
  wake_pending   boolean NOT NULL DEFAULT false,
  PRIMARY KEY (environment_id, url)
);
-- Not UNIQUE: the key follows from the URL, and a second unique index would make concurrent
-- `INSERT … ON CONFLICT (environment_id, url)` fail on it instead of taking the conflict path.
CREATE INDEX webhook_endpoints_key ON webhook_endpoints (environment_id, key);
