/**
 * @module lib/saml-assertion — a SAML 2.0 bearer Assertion (the grant of RFC 7522) signed with an
 * enveloped XML-DSig signature: exclusive canonicalisation, RSA-SHA256, SHA-256 digest. The XML is
 * written already in exclusive canonical form (no declaration, namespaces declared where first used,
 * attributes in canonical order, no empty-element tags, no whitespace between elements), so the
 * signed bytes are the text itself: the Assertion without its Signature, and the SignedInfo with the
 * `ds` namespace it inherits.
 */
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { privateKey } from './jwt.js';

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

export interface SamlAssertionInput {
  issuer: string;
  /** The Subject's NameID (the user the token acts for). */
  nameId: string;
  /** SubjectConfirmationData's Recipient: the token endpoint's URL. */
  recipient: string;
  audiences: string[];
  lifetimeSeconds: number;
  sessionIndex?: string;
  attributes: Record<string, string>;
  /** PEM private key (RSA). */
  key: string | KeyObject;
  now: Date;
}

const text = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
const attr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');

/** An element in canonical form; attributes are unqualified, so sorted by name; `ns` declares its prefix first. */
function el(name: string, attrs: Record<string, string>, children: string, ns?: [string, string]): string {
  const decl = ns ? ` xmlns:${ns[0]}="${attr(ns[1])}"` : '';
  const rest = Object.keys(attrs)
    .sort()
    .map((k) => ` ${k}="${attr(attrs[k]!)}"`)
    .join('');
  return `<${name}${decl}${rest}>${children}</${name}>`;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The signed Assertion's XML text (base64 it for the `assertion` parameter). */
export function signedSamlAssertion(input: SamlAssertionInput): string {
  const id = `_${randomBytes(16).toString('hex')}`;
  const until = iso(new Date(input.now.getTime() + input.lifetimeSeconds * 1000));
  const issued = iso(input.now);
  const s = (name: string, attrs: Record<string, string>, children: string) => el(`saml:${name}`, attrs, children);
  const body = [
    s(
      'Subject',
      {},
      s('NameID', { Format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified' }, text(input.nameId)) +
        s(
          'SubjectConfirmation',
          { Method: 'urn:oasis:names:tc:SAML:2.0:cm:bearer' },
          s('SubjectConfirmationData', { NotOnOrAfter: until, Recipient: input.recipient }, ''),
        ),
    ),
    s('Conditions', { NotBefore: issued, NotOnOrAfter: until }, s('AudienceRestriction', {}, input.audiences.map((a) => s('Audience', {}, text(a))).join(''))),
    s(
      'AuthnStatement',
      { AuthnInstant: issued, SessionIndex: input.sessionIndex ?? id },
      s('AuthnContext', {}, s('AuthnContextClassRef', {}, 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport')),
    ),
    s(
      'AttributeStatement',
      {},
      Object.entries(input.attributes)
        .map(([name, value]) => s('Attribute', { Name: name }, s('AttributeValue', {}, text(value))))
        .join(''),
    ),
  ].join('');
  const issuer = s('Issuer', {}, text(input.issuer));
  const assertion = (signature: string) => el('saml:Assertion', { ID: id, IssueInstant: issued, Version: '2.0' }, issuer + signature + body, ['saml', SAML]);
  const digest = createHash('sha256').update(assertion('')).digest('base64');
  const d = (name: string, attrs: Record<string, string>, children: string, ns?: [string, string]) => el(`ds:${name}`, attrs, children, ns);
  const signedInfo = (ns?: [string, string]) =>
    d(
      'SignedInfo',
      {},
      d('CanonicalizationMethod', { Algorithm: EXC_C14N }, '') +
        d('SignatureMethod', { Algorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' }, '') +
        d(
          'Reference',
          { URI: `#${id}` },
          d('Transforms', {}, d('Transform', { Algorithm: `${DS}enveloped-signature` }, '') + d('Transform', { Algorithm: EXC_C14N }, '')) +
            d('DigestMethod', { Algorithm: 'http://www.w3.org/2001/04/xmlenc#sha256' }, '') +
            d('DigestValue', {}, digest),
        ),
      ns,
    );
  // Canonicalised on its own, SignedInfo declares the ds namespace it inherits from Signature.
  const value = sign('sha256', Buffer.from(signedInfo(['ds', DS])), privateKey(input.key)).toString('base64');
  return assertion(d('Signature', {}, signedInfo() + d('SignatureValue', {}, value), ['ds', DS]));
}
