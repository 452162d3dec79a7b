-- Catalogue names that meant another API or credential type than the same name in Nango's catalogue
-- (issue 30) now mean what Nango's mean; what each meant before has a name of its own. An integration
-- made under the old meaning keeps it: it moves to that name, with its connections. Auth0's old entry
-- (a Management API token by client credentials) is `auth0-cc`, which names the token's audience in
-- the connection config: the Management API's, as the old entry had it.
UPDATE connections c
SET connection_config = c.connection_config || jsonb_build_object('audience', 'https://' || (c.connection_config ->> 'hostname') || '/api/v2/')
FROM integrations i
WHERE c.integration_id = i.id
  AND i.provider = 'auth0'
  AND c.connection_config ? 'hostname'
  AND NOT c.connection_config ? 'audience';

UPDATE integrations i
SET provider = r.new_name
FROM (VALUES
    ('auth0', 'auth0-cc'),
    ('bigcommerce', 'bigcommerce-api-key'),
    ('contentful', 'contentful-pat'),
    ('copper', 'copper-api-key'),
    ('datadog', 'datadog-basic'),
    ('klaviyo', 'klaviyo-oauth'),
    ('personio', 'personio-v2'),
    ('segment', 'segment-api-key'),
    ('sentry', 'sentry-oauth-app'),
    ('trello', 'trello-api-key')
  ) AS r (old_name, new_name)
WHERE i.provider = r.old_name;
