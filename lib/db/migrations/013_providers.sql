-- User-defined providers (issue 16): a provider definition (features/providers/definition.ts, the
-- shape of an entry of Nango's providers.yaml) per environment. A dev provider is invisible to prod.
-- Catalogue names may not be taken (features/providers/store.ts refuses them).
CREATE TABLE providers (
  id             serial PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name           text NOT NULL,
  definition     jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, name)
);
