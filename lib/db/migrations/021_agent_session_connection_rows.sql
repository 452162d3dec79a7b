-- Agent sessions are bound to connection rows, not ids (issue 28): a connection deleted and created
-- again under the same id is another connection, not the session's. Sessions still live get the row
-- of each of their connections that existed when the session was created; a connection created
-- after the session (so a re-created one) gets none, and the session no longer reaches it.
UPDATE agent_sessions s
SET connections = (
  SELECT jsonb_agg(CASE WHEN c.id IS NULL THEN e.elem ELSE e.elem || jsonb_build_object('connectionPk', c.id) END ORDER BY e.ord)
  FROM jsonb_array_elements(s.connections) WITH ORDINALITY AS e(elem, ord)
  LEFT JOIN integrations i ON i.environment_id = s.environment_id AND i.unique_key = e.elem->>'providerConfigKey'
  LEFT JOIN connections c ON c.integration_id = i.id AND c.connection_id = e.elem->>'connectionId' AND c.created_at <= s.created_at
)
WHERE s.revoked_at IS NULL AND s.expires_at > now() AND jsonb_array_length(s.connections) > 0;
