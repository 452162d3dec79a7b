CREATE TABLE environments (
  id              serial PRIMARY KEY,
  uuid            uuid NOT NULL UNIQUE,
  name            text NOT NULL UNIQUE,
  secret_key_hash text NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
