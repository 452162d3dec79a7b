-- Teamwork.com's base URL is now the site address its token response names, under the key Nango
-- keeps it (installation.apiEndPoint, issue 30 item 3), instead of a site URL the end user typed
-- (siteUrl). A connection that has only the typed value gets it under the new key; one that already
-- has the new key (every OAuth connection kept it as token metadata) is left as it is.
UPDATE connections c
SET connection_config = (c.connection_config - 'siteUrl') || jsonb_build_object('installation.apiEndPoint', c.connection_config -> 'siteUrl')
FROM integrations i
WHERE c.integration_id = i.id
  AND i.provider = 'teamwork'
  AND c.connection_config ? 'siteUrl'
  AND NOT c.connection_config ? 'installation.apiEndPoint';
