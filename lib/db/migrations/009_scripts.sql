-- Deployed scripts (custom integrations), per environment and integration. A deploy is one row of
-- script_deployments; each script version is one row of deployed_scripts with its bundle (the
-- JavaScript the sandbox runs) and its manifest (endpoints, frequency, JSON Schemas). Exactly one
-- version of a script is active; older versions stay for the history.
CREATE TABLE script_deployments (
  id             serial PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  version        int NOT NULL,
  cli_version    text,
  summary        jsonb NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, version)
);

CREATE TABLE deployed_scripts (
  id             serial PRIMARY KEY,
  deployment_id  int NOT NULL REFERENCES script_deployments(id) ON DELETE CASCADE,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  integration_id int NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  name           text NOT NULL,
  type           text NOT NULL,
  version        int NOT NULL,
  bundle         text NOT NULL,
  bundle_sha256  text NOT NULL,
  source         text,
  manifest       jsonb NOT NULL,
  active         boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now(),
  deactivated_at timestamptz,
  UNIQUE (integration_id, name, version)
);
CREATE UNIQUE INDEX deployed_scripts_one_active ON deployed_scripts (integration_id, name) WHERE active;
CREATE INDEX deployed_scripts_env_active ON deployed_scripts (environment_id) WHERE active;
