-- A function is keyed by its type and name, as Nango keys it: one integration may have a sync and an
-- action of the same name (Nango's google-calendar has both a `settings` sync and a `settings`
-- action). Versions count per (type, name) from here on; existing rows keep theirs.
ALTER TABLE deployed_scripts DROP CONSTRAINT deployed_scripts_integration_id_name_version_key;
ALTER TABLE deployed_scripts ADD CONSTRAINT deployed_scripts_integration_id_type_name_version_key UNIQUE (integration_id, type, name, version);
DROP INDEX deployed_scripts_one_active;
CREATE UNIQUE INDEX deployed_scripts_one_active ON deployed_scripts (integration_id, type, name) WHERE active;
