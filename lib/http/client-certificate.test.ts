/**
 * Mutual TLS (ADP): the client presents a connection's certificate to a server that requires one
 * signed by its CA, and connections made with one identity never carry another's requests.
 * Certificates are made for the test with the machine's openssl.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { createProviderHttpClient, type ProviderHttpClient, type ProviderRequest } from './provider-client.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sy-mtls-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');

/** A CA, a server certificate for 127.0.0.1 and two client certificates (alice, bob) it signed, plus one from another CA (mallory). */
function makeCertificates(): void {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Test CA');
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other-ca.key', '-out', 'other-ca.crt', '-days', '2', '-subj', '/CN=Other CA');
  const sign = (name: string, ca: string, ext?: string) => {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      ...(ext ? ['-extfile', ext] : []),
    );
  };
  execFileSync('sh', ['-c', 'printf "subjectAltName=IP:127.0.0.1\\n" > san.ext'], { cwd: dir });
  sign('server', 'ca', 'san.ext');
  sign('alice', 'ca');
  sign('bob', 'ca');
  sign('mallory', 'other-ca');
}

let server: Server;
let base: string;
let client: ProviderHttpClient;
before(async () => {
  makeCertificates();
  server = createServer({ key: read('server.key'), cert: read('server.crt'), ca: read('ca.crt'), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ client: peer.subject?.CN ?? null }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'], extraCaCertificates: [read('ca.crt')] });
});
after(async () => {
  await client.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (over: Partial<ProviderRequest>) =>
  client.request({ method: 'GET', baseUrl: base, path: '/hr/v2/workers', auth: { type: 'none' }, context: { environmentId: 1, kind: 'proxy' }, ...over });
const identity = (name: string) => ({ cert: read(`${name}.crt`), key: read(`${name}.key`) });

test("a connection's certificate in its auth injection is presented, and each identity gets its own connections", async () => {
  const as = async (name: string) => {
    const res = await get({ auth: { type: 'custom', headers: { authorization: 'Bearer t' }, query: {}, clientCertificate: identity(name) } });
    return (JSON.parse(res.body!.toString()) as { client: string }).client;
  };
  assert.equal(await as('alice'), 'alice');
  assert.equal(await as('bob'), 'bob');
  // Alice's kept-alive connection is not reused for Bob's request, nor Bob's for Alice's.
  assert.equal(await as('alice'), 'alice');
});

test('a token request presents the certificate given beside its auth', async () => {
  const res = await get({ auth: { type: 'basic', username: 'id', password: 'secret' }, clientCertificate: identity('bob') });
  assert.equal((JSON.parse(res.body!.toString()) as { client: string }).client, 'bob');
});

test('without a certificate, or with one another CA signed, the server refuses the handshake', async () => {
  await assert.rejects(get({}));
  await assert.rejects(get({ clientCertificate: identity('mallory') }));
});
