-- Change notifications (issue 20): the API caches environments (by secret key hash), integrations
-- and connections in memory (lib/db/change-feed.ts). Every update or delete of those rows, whoever
-- makes it (an API or worker process, a token refresh, a key rotation at start, a re-encryption, a
-- cascade), sends `<table>:<id>` on the channel switchyard_changes when its transaction commits, so
-- every API process drops its copy at once. Inserts need no notice: nothing caches a missing row.
CREATE FUNCTION switchyard_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('switchyard_changes', TG_TABLE_NAME || ':' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER environments_notify_change AFTER UPDATE OR DELETE ON environments
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
CREATE TRIGGER integrations_notify_change AFTER UPDATE OR DELETE ON integrations
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
CREATE TRIGGER connections_notify_change AFTER UPDATE OR DELETE ON connections
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
CREATE TRIGGER providers_notify_change AFTER UPDATE OR DELETE ON providers
  FOR EACH ROW EXECUTE FUNCTION switchyard_notify_change();
