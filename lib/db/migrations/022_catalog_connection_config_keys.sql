-- Catalogue connection-config keys renamed to the names Nango gives them (issue 30 item 3), so that
-- connections imported from Nango work: each existing connection of these catalogue providers gets
-- its value under the new key. Freshsales' bundle alias is the host with the CRM's /crm/sales path
-- (its API calls are <bundle alias>/api/...), where the old key held the host alone. A connection
-- that already has the new key is left as it is. User-defined providers cannot take these names.
UPDATE connections c
SET connection_config = (c.connection_config - r.old_key) || jsonb_build_object(
      r.new_key,
      CASE WHEN r.suffix IS NULL THEN c.connection_config -> r.old_key ELSE to_jsonb((c.connection_config ->> r.old_key) || r.suffix) END)
FROM integrations i,
  (VALUES
    ('metabase', 'domain', 'hostname', NULL),
    ('woocommerce', 'domain', 'storeURL', NULL),
    ('auth0', 'domain', 'hostname', NULL),
    ('datadog', 'site', 'siteParameter', NULL),
    ('copper', 'email', 'userEmail', NULL),
    ('freshsales', 'domain', 'bundleAlias', '/crm/sales')
  ) AS r (provider, old_key, new_key, suffix)
WHERE c.integration_id = i.id
  AND i.provider = r.provider
  AND c.connection_config ? r.old_key
  AND NOT c.connection_config ? r.new_key;
