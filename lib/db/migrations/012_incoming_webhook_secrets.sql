-- The secret that authenticates a third party's webhooks to POST /webhook/:env/:key (providers
-- without a signature of their own): an HMAC key for X-Switchyard-Signature and the token of the
-- webhook URL. Encrypted like every secret; generated at first use, replaced by a rotation.
ALTER TABLE integrations ADD COLUMN incoming_webhook_secret_enc text;
