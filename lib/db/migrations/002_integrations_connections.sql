CREATE TABLE integrations (
  id                 serial PRIMARY KEY,
  environment_id     int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  unique_key         text NOT NULL,
  provider           text NOT NULL,
  display_name       text,
  credentials_enc    text,
  integration_config jsonb NOT NULL DEFAULT '{}',
  custom             jsonb,
  forward_webhooks   boolean NOT NULL DEFAULT true,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, unique_key)
);

-- The Endpoints tab: which declared endpoints are activated. Absent row = not activated.
CREATE TABLE integration_endpoints (
  integration_id int NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  method         text NOT NULL,
  path           text NOT NULL,
  enabled        boolean NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (integration_id, method, path)
);

CREATE TABLE connections (
  id                   serial PRIMARY KEY,
  environment_id       int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  integration_id       int NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  connection_id        text NOT NULL,
  auth_mode            text NOT NULL,
  credentials_enc      text NOT NULL,
  expires_at           timestamptz,
  connection_config    jsonb NOT NULL DEFAULT '{}',
  metadata             jsonb,
  tags                 jsonb NOT NULL DEFAULT '{}',
  end_user             jsonb,
  webhook_url_override text,
  status               text NOT NULL DEFAULT 'unknown',
  errors               jsonb NOT NULL DEFAULT '[]',
  last_check_at        timestamptz,
  last_fetched_at      timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (integration_id, connection_id)
);
CREATE INDEX connections_env_created ON connections (environment_id, created_at, id);
CREATE INDEX connections_env_connection_id ON connections (environment_id, connection_id);

CREATE TABLE connect_sessions (
  id                           serial PRIMARY KEY,
  environment_id               int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  token_hash                   text NOT NULL UNIQUE,
  end_user                     jsonb,
  organization                 jsonb,
  tags                         jsonb NOT NULL DEFAULT '{}',
  allowed_integrations         text[],
  integrations_config_defaults jsonb,
  webhook_url_override         text,
  reconnect_connection_id      int REFERENCES connections(id) ON DELETE CASCADE,
  expires_at                   timestamptz NOT NULL,
  created_at                   timestamptz NOT NULL DEFAULT now()
);

-- One OAuth authorization in flight; `id` is the `state` parameter, consumed once.
CREATE TABLE oauth_sessions (
  id                uuid PRIMARY KEY,
  environment_id    int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  integration_id    int NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  connect_session_id int REFERENCES connect_sessions(id) ON DELETE CASCADE,
  connection_id     text NOT NULL,
  connection_config jsonb NOT NULL DEFAULT '{}',
  code_verifier_enc text,
  redirect_uri      text NOT NULL,
  ws_client_id      text,
  expires_at        timestamptz NOT NULL,
  consumed_at       timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- Outbox of events for the developer's backend (auth, sync, async_action, forward).
CREATE TABLE events (
  id             bigserial PRIMARY KEY,
  environment_id int NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  type           text NOT NULL,
  integration    text,
  connection_id  text,
  payload        jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_env_created ON events (environment_id, id);
