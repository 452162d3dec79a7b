/**
 * @module features/connections/saml-bearer — TWO_STEP's declared `assertion` of type `saml`: the
 * SAML 2.0 bearer Assertion (RFC 7522) signed for one token request, base64 as the grant's
 * `assertion` parameter. Its templates are filled with the connection config and the entered fields.
 */
import { InvalidSigningKey } from '../../lib/jwt.js';
import { signedSamlAssertion } from '../../lib/saml-assertion.js';
import { OAuthError } from './oauth.js';
import type { Endpoints } from './target.js';

export function samlBearerAssertion(endpoints: Endpoints, fields: Record<string, string>, tokenUrl: string, now: Date): string {
  const spec = endpoints.provider.twoStep?.assertion;
  if (!spec) throw new OAuthError('invalid_auth_mode', `${endpoints.provider.name} declares no assertion`);
  const fill = (where: string, template: string) => {
    const value = endpoints.fillWithCredentials(template, fields);
    if (value === undefined || value === '') throw new OAuthError('invalid_credentials', `the assertion's ${where} has no value (${template})`);
    return value;
  };
  const audiences = (Array.isArray(spec.audiences) ? spec.audiences : [spec.audiences]).map((a) => fill('audience', a));
  try {
    const xml = signedSamlAssertion({
      issuer: fill('issuer', spec.issuer),
      nameId: fill('nameIdentifier', spec.nameIdentifier),
      recipient: spec.recipient ? fill('recipient', spec.recipient) : tokenUrl,
      audiences,
      lifetimeSeconds: spec.lifetimeInSeconds,
      ...(spec.sessionIndex && { sessionIndex: fill('sessionIndex', spec.sessionIndex) }),
      attributes: Object.fromEntries(Object.entries(spec.attributes).map(([k, v]) => [k, fill(`attribute ${k}`, v)])),
      key: fill('key', spec.key),
      now,
    });
    return Buffer.from(xml).toString('base64');
  } catch (err) {
    if (err instanceof InvalidSigningKey) throw new OAuthError('invalid_credentials', `the private key cannot sign the assertion: ${err.message}`);
    throw err;
  }
}
