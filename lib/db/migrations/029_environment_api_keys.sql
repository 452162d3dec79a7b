-- Environments made at run time (POST /environments) and scoped API keys (issue 31 item 4).
-- `is_production` as Nango has it: `prod` is always production, others when created so.
ALTER TABLE environments ADD COLUMN is_production boolean NOT NULL DEFAULT false;
UPDATE environments SET is_production = true WHERE name = 'prod';

-- An environment's API keys besides its default secret key (environments.secret_key_hash, full access).
-- The secret is looked up by its SHA-256 (as the default key) and kept encrypted so that
-- GET /environments/{uuid}/api-keys/{keyUuid} can show it again, as Nango's does.
CREATE TABLE api_keys (
  id             serial PRIMARY KEY,
  uuid           uuid NOT NULL UNIQUE,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  display_name   text NOT NULL,
  scopes         text[] NOT NULL,
  secret_hash    text NOT NULL UNIQUE,
  secret_enc     text NOT NULL,
  last_used_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, display_name)
);

-- The API caches keys by secret (features/connections/lookups.ts): a deleted key must stop at once.
-- Not on last_used_at, which requests update (at most once a minute per key and process).
CREATE TRIGGER api_keys_notify_change AFTER UPDATE OF environment_id, scopes, secret_hash OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
-- Workers poll the task queue of every environment (worker/index.ts): a new one is announced too.
CREATE TRIGGER environments_notify_insert AFTER INSERT ON environments
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
