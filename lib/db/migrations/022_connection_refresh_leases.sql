-- Who refreshes a connection's OAuth token now (issue 28): a lease row with an expiry, claimed and
-- released in statements of their own, instead of a row lock on the connection held by a transaction
-- (and a pool client) for as long as the provider takes to answer. The expiry outlives the refresh's
-- deadline, so a process that dies mid-refresh blocks the others only until then.
CREATE TABLE connection_refresh_leases (
  connection_id int PRIMARY KEY REFERENCES connections(id) ON DELETE CASCADE,
  holder        uuid NOT NULL,
  expires_at    timestamptz NOT NULL
);
