-- Webhooks to the developer's backend: per-environment settings, one row per delivery (one target
-- URL of one event) and one row per HTTP attempt of a delivery.

-- One row per environment, created at first use; absent row = defaults.
CREATE TABLE environment_settings (
  environment_id                  int PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
  webhook_url                     text,
  secondary_webhook_url           text,
  -- Event kinds to send. `forward` webhooks are always sent when a URL exists.
  send_auth_webhooks              boolean NOT NULL DEFAULT true,
  send_sync_webhooks              boolean NOT NULL DEFAULT true,
  send_async_action_webhooks      boolean NOT NULL DEFAULT true,
  -- Send sync webhooks even for runs with no changes.
  on_sync_completion_always       boolean NOT NULL DEFAULT false,
  alert_webhook_url               text,
  otlp_endpoint                   text,
  -- SecretBox-encrypted JSON [{name, value}]: collector headers usually carry API keys.
  otlp_headers_enc                text,
  -- SecretBox-encrypted; generated at first use.
  webhook_signing_key_enc         text,
  -- The key before the last rotation; still signs (alongside the current one) until it expires.
  previous_signing_key_enc        text,
  previous_signing_key_expires_at timestamptz,
  updated_at                      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  id                  uuid PRIMARY KEY,
  -- Listing order and cursor.
  seq                 bigserial NOT NULL UNIQUE,
  environment_id      int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  event_id            bigint NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  replay_of           uuid REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
  url                 text NOT NULL,
  type                text NOT NULL,
  integration         text,
  connection_id       text,
  -- The exact bytes POSTed (sorted-key JSON); signatures are computed over them at each attempt.
  body                text NOT NULL,
  -- Extra request headers (the provider's filtered headers of `forward` webhooks).
  headers             jsonb NOT NULL DEFAULT '{}',
  status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts            int NOT NULL DEFAULT 0,
  last_status         int,
  last_error          text,
  next_attempt_at     timestamptz,
  -- Set once Temporal accepted the delivery workflow; the sweeper starts the others.
  workflow_started_at timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  delivered_at        timestamptz
);
CREATE INDEX webhook_deliveries_env_seq ON webhook_deliveries (environment_id, seq DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE status = 'pending' AND workflow_started_at IS NULL;

CREATE TABLE webhook_attempts (
  delivery_id      uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  n                int NOT NULL,
  started_at       timestamptz NOT NULL,
  -- null: no HTTP answer (network error, timeout, or the worker stopped mid-attempt)
  status           int,
  error            text,
  duration_ms      int,
  -- at most 1 KB of the response body
  response_excerpt text,
  PRIMARY KEY (delivery_id, n)
);

-- Lets an emitter that may run twice (a retried activity) emit an event once: emitEvent's
-- `idempotencyKey` option.
ALTER TABLE events ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX events_env_idempotency_key ON events (environment_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
