-- Connect-session `overrides` (docs_connect per integration), and the OAuth client secrets a session
-- overrides per integration (integrations_config_defaults.*.connection_config.oauth_client_secret_override),
-- kept encrypted (a JSON object integration key -> secret) rather than in the plain JSON of the defaults.
ALTER TABLE connect_sessions ADD COLUMN overrides jsonb;
ALTER TABLE connect_sessions ADD COLUMN client_secret_overrides_enc text;
