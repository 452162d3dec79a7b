import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createProviderHttpClient } from '../../lib/http/provider-client.js';
import type { Integration } from '../integrations/store.js';
import { providerDefinitionSchema } from '../providers/definition.js';
import { providerFromDefinition } from '../providers/providers.js';
import { clientCredentialsToken, exchangeCode, refreshToken } from './oauth.js';
import { endpoints } from './target.js';

// A token endpoint shaped like TikTok Login Kit's: the app's id is `client_key`, and a request that
// sends `client_id` instead is refused as TikTok refuses it.
const received: URLSearchParams[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const form = new URLSearchParams(body);
    received.push(form);
    res.setHeader('content-type', 'application/json');
    if (form.get('client_key') !== 'awkey' || form.get('client_secret') !== 'sec') {
      res.statusCode = 400;
      res.end(JSON.stringify({ error: 'invalid_client', error_description: 'client_key or client_secret is wrong' }));
      return;
    }
    res.end(JSON.stringify({ access_token: `act.${form.get('grant_type')}`, refresh_token: 'rft.1', expires_in: 86400, open_id: 'u1' }));
  });
});
let tokenUrl = '';
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/oauth/token/`;
});
after(() => server.close());

test('authorization_url_replacements names the client id as the provider does in token and refresh requests', async () => {
  const provider = providerFromDefinition(
    providerDefinitionSchema.parse({
      name: 'tiktok-like',
      auth_mode: 'OAUTH2',
      authorization_url: 'https://www.tiktok.com/v2/auth/authorize/',
      token_url: tokenUrl,
      authorization_url_replacements: { client_id: 'client_key' },
      proxy: { base_url: 'https://open.tiktokapis.com' },
    }),
  );
  const integration = { id: 1, environmentId: 1, uniqueKey: 'tt', provider: 'tiktok-like', integrationConfig: {} } as unknown as Integration;
  const at = endpoints(['127.0.0.1'], provider, integration, {});
  const http = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'] });
  const credentials = { type: 'OAUTH2' as const, client_id: 'awkey', client_secret: 'sec' };
  const context = { environmentId: 1, kind: 'auth' as const };
  try {
    const { credentials: got } = await exchangeCode({
      http,
      endpoints: at,
      credentials,
      code: 'c1',
      redirectUri: 'https://app.test/cb',
      now: new Date(0),
      context,
    });
    assert.equal(got.type === 'OAUTH2' && got.access_token, 'act.authorization_code');
    const refreshed = await refreshToken({ http, endpoints: at, client: credentials, refreshToken: 'rft.1', now: new Date(0), context });
    assert.equal(refreshed.type === 'OAUTH2' && refreshed.access_token, 'act.refresh_token');
    assert.deepEqual(
      received.map((f) => [f.get('client_key'), f.has('client_id')]),
      [
        ['awkey', false],
        ['awkey', false],
      ],
    );
  } finally {
    await http.close();
  }
});

test('a provider that requires a client certificate refuses a client-credentials token without one, naming the fields', async () => {
  const provider = providerFromDefinition(
    providerDefinitionSchema.parse({
      name: 'mtls',
      auth_mode: 'OAUTH2_CC',
      token_url: tokenUrl,
      require_client_certificate: true,
      proxy: { base_url: 'https://api.test' },
    }),
  );
  const integration = { id: 1, environmentId: 1, uniqueKey: 'm', provider: 'mtls', integrationConfig: {} } as unknown as Integration;
  const http = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'] });
  try {
    await assert.rejects(
      clientCredentialsToken({
        http,
        endpoints: endpoints(['127.0.0.1'], provider, integration, {}),
        connectionCredentials: { client_id: 'awkey', client_secret: 'sec' },
        now: new Date(0),
        context: { environmentId: 1, kind: 'auth' },
      }),
      (err: Error & { code?: string }) => err.code === 'missing_client_certificate' && /client_certificate, client_private_key/.test(err.message),
    );
  } finally {
    await http.close();
  }
});
