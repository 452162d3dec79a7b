-- Environment variables (Nango's `GET /environment-variables`, `nango.getEnvironmentVariables()`):
-- one encrypted JSON list of { name, value } per environment, given to scripts of that environment.
CREATE TABLE environment_variables (
  environment_id int PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
  variables_enc  text NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
