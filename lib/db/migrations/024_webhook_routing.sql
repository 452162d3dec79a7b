-- Third-party webhooks are routed to connections by a connection_config value (e.g. Checkr's
-- `checkr_account_id`), but only by values the provider returned (token response, a call after
-- connecting) or the developer set (secret key: POST /connections, connect-session defaults), never by
-- one the end user typed (features/webhooks/routing.ts). `verified_config_keys` names those keys.
-- NULL: a connection saved before this was tracked; its routing values count as verified only when
-- the stored token response holds the same value.
ALTER TABLE connections ADD COLUMN verified_config_keys text[];

-- Provider webhook events already received, by the event id in their body: a redelivery or a replay
-- of the same event is acknowledged and not processed again. `done` false: being processed
-- (claimed_at is its lease); a failed processing removes the row so the provider's retry runs it.
CREATE TABLE provider_webhook_events (
  integration_id int NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  event_id       text NOT NULL,
  claimed_at     timestamptz NOT NULL DEFAULT now(),
  done           boolean NOT NULL DEFAULT false,
  PRIMARY KEY (integration_id, event_id)
);
CREATE INDEX provider_webhook_events_claimed_at ON provider_webhook_events (claimed_at);
