/**
 * @module SAP SuccessFactors' token endpoint and OData API, as SAP's OAuth guides describe them:
 * `POST /oauth/token` (form) with `company_id`, `client_id` (the OAuth client's API key),
 * `grant_type=urn:ietf:params:oauth:grant-type:saml2-bearer` and `assertion`, a base64 SAML 2.0
 * Assertion signed with the private key of the certificate registered with the client. The signature
 * is checked by xml-crypto (an implementation independent of ours) against the registered public key;
 * then the signed Assertion's Recipient (this token URL), Audience (`www.successfactors.com`),
 * NotOnOrAfter and `api_key` attribute. Answers `access_token`, `token_type`, `expires_in`; `/odata/v2/*`
 * wants the token as Bearer.
 */
import { randomBytes } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { Router, bearerToken, json, parseBody, startFakeServer, type FakeServer } from './server.js';

export const SAP_AUDIENCE = 'www.successfactors.com';
const TOKEN_TTL_S = 86_400;

export interface SapClient {
  companyId: string;
  apiKey: string;
  /** The public key (PEM) of the certificate registered with the OAuth client. */
  publicKey: string;
  /** The user a token may act for. */
  userName: string;
}

export interface SapState {
  tokens: Set<string>;
  /** Why each refused token request was refused. */
  refusals: string[];
  /** The signed Assertions accepted, as xml-crypto returned them. */
  accepted: string[];
}

export type SapFake = FakeServer<SapState>;

const one = (xml: string, re: RegExp) => re.exec(xml)?.[1];

/** Why the assertion is refused, or the signed Assertion's XML. */
function checkAssertion(base64: string, client: SapClient, tokenUrl: string, now: number): { refused: string } | { xml: string } {
  const xml = Buffer.from(base64, 'base64').toString('utf8');
  const signature = /<(?:\w+:)?Signature[\s>][\s\S]*<\/(?:\w+:)?Signature>/.exec(xml)?.[0];
  if (!signature) return { refused: 'the assertion is not signed' };
  const verifier = new SignedXml({ publicCert: client.publicKey, getCertFromKeyInfo: () => null });
  try {
    verifier.loadSignature(signature);
    if (!verifier.checkSignature(xml)) return { refused: 'the signature does not verify' };
  } catch {
    // xml-crypto throws on a wrong signature value, answers false on a wrong digest.
    return { refused: 'the signature does not verify' };
  }
  // Only what the signature covers is read.
  const [signed] = verifier.getSignedReferences();
  if (!signed || !/^<(?:\w+:)?Assertion[\s>]/.test(signed)) return { refused: 'the signature does not cover the Assertion' };
  if (one(signed, /Recipient="([^"]*)"/) !== tokenUrl) return { refused: `Recipient is not ${tokenUrl}` };
  if (one(signed, /<(?:\w+:)?Audience>([^<]*)</) !== SAP_AUDIENCE) return { refused: `Audience is not ${SAP_AUDIENCE}` };
  const until = Date.parse(one(signed, /<(?:\w+:)?SubjectConfirmationData[^>]*NotOnOrAfter="([^"]*)"/) ?? '');
  if (!(until > now)) return { refused: 'the assertion has expired (NotOnOrAfter)' };
  if (one(signed, /<(?:\w+:)?NameID[^>]*>([^<]*)</) !== client.userName) return { refused: 'unknown user' };
  if (one(signed, /Name="api_key"[^>]*>\s*<(?:\w+:)?AttributeValue[^>]*>([^<]*)</) !== client.apiKey) return { refused: 'api_key is not the client' };
  return { xml: signed };
}

export async function startSapSuccessFactorsFake(client: SapClient, opts: { now?: () => number } = {}): Promise<SapFake> {
  const now = opts.now ?? Date.now;
  const state: SapState = { tokens: new Set(), refusals: [], accepted: [] };
  const router = new Router();
  const refuse = (why: string) => {
    state.refusals.push(why);
    return json(401, { errorMessage: why });
  };
  router.post('/oauth/token', (ctx) => {
    const body = parseBody(ctx);
    if (body.grant_type !== 'urn:ietf:params:oauth:grant-type:saml2-bearer') return json(400, { errorMessage: 'unsupported grant_type' });
    if (body.company_id !== client.companyId) return refuse('unknown company_id');
    if (body.client_id !== client.apiKey) return refuse('unknown client_id');
    if (typeof body.assertion !== 'string') return refuse('assertion is required');
    const checked = checkAssertion(body.assertion, client, `${ctx.origin}/oauth/token`, now());
    if ('refused' in checked) return refuse(checked.refused);
    state.accepted.push(checked.xml);
    const token = randomBytes(24).toString('base64url');
    state.tokens.add(token);
    return json(200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_TTL_S });
  });
  return startFakeServer(state, (ctx) => {
    const routed = router.dispatch(ctx);
    if (routed) return routed;
    if (!state.tokens.has(bearerToken(ctx.headers) ?? '')) return json(401, { error: { code: 'LGN0011', message: 'Invalid token' } });
    if (!ctx.path.startsWith('/odata/v2/')) return json(404, { error: 'not found' });
    return json(200, { d: { results: [{ userId: 'u1', username: client.userName }] } });
  });
}
