-- Per-endpoint webhook throttling (features/webhooks/throttle.ts). `webhook_max_per_second`: most
-- requests per second to each webhook URL of the environment; NULL = SWITCHYARD_WEBHOOK_MAX_PER_SECOND.
ALTER TABLE environment_settings ADD COLUMN webhook_max_per_second double precision;

-- The next free send slot of each endpoint: a delivery attempt reserves one (moving it on by
-- 1 / rate seconds) and waits on a durable Temporal timer until its slot.
CREATE TABLE webhook_endpoint_slots (
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  url            text NOT NULL,
  next_slot_at   timestamptz NOT NULL,
  PRIMARY KEY (environment_id, url)
);
