-- Catalogue names that meant another API or credential type than the same name in Nango's catalogue
-- (issue 30) now mean what Nango's mean; what each meant before has a name of its own. An integration
-- made under the old meaning keeps it: it moves to that name, with its connections (Auth0's old entry,
-- a Management API token by client credentials on the tenant's hostname, is `auth0-cc`). Personio's
-- old entry (API v2 on the host alone) is closest to `personio-v2`, whose base URL holds /v2. An
-- integration with a connection of another auth mode was made under the new meaning and stays.
UPDATE integrations i
SET provider = r.new_name
FROM (VALUES
    ('auth0', 'auth0-cc', 'OAUTH2_CC'),
    ('bigcommerce', 'bigcommerce-api-key', 'API_KEY'),
    ('contentful', 'contentful-pat', 'API_KEY'),
    ('copper', 'copper-api-key', 'API_KEY'),
    ('datadog', 'datadog-basic', 'BASIC'),
    ('klaviyo', 'klaviyo-oauth', 'OAUTH2'),
    ('personio', 'personio-v2', 'OAUTH2_CC'),
    ('segment', 'segment-api-key', 'API_KEY'),
    ('sentry', 'sentry-oauth-app', 'OAUTH2'),
    ('trello', 'trello-api-key', 'API_KEY')
  ) AS r (old_name, new_name, old_auth_mode)
WHERE i.provider = r.old_name
  AND NOT EXISTS (SELECT 1 FROM connections c WHERE c.integration_id = i.id AND c.auth_mode <> r.old_auth_mode);
