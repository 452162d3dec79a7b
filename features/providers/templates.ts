/**
 * @module features/providers/templates — fills a definition's `${...}` placeholders. In a URL each
 * value is checked for the place it lands, since a value is typed by an end user and the URL is
 * where a token request carries the integration's client secret: in the host, a host name label (or,
 * where the placeholder is the whole host, any host name, `host:port` or `http(s)://host[:port][/path]`
 * of a self-hosted tool); in the path or query, percent-encoded. The filled URL's origin must then be
 * the one built from the checked parts, and its host one of the field's `domains` when it has them.
 * Only the resolver (features/connections/target.ts) calls these.
 */
import { isHostAllowListed, normalizeHost } from '../../lib/http/index.js';
import { ALTERNATIVES, BASE64, NOW } from './definition.js';

export class MissingConfigValue extends Error {
  constructor(readonly key: string) {
    super(`missing ${key}`);
  }
}

/** A value that may not stand where its placeholder is; `reason` completes a sentence that starts with the field's name. */
export class InvalidConfigValue extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`${key} ${reason}`);
  }
}

/** Values a template may use: `connectionConfig.x`, `apiKey`, `username`, `password`, `accessToken`, `clientId`, `credentials.x` (Nango's). */
export type TemplateVars = {
  connectionConfig?: Record<string, unknown>;
  credentials?: Record<string, string>;
  /** The time `${now...}` stands for in a text template (default: the current time). */
  now?: Date;
} & Partial<Record<'apiKey' | 'username' | 'password' | 'accessToken' | 'clientId' | 'clientSecret', string>>;

export interface UrlRules {
  /** The hosts a value in the host may produce (`acme.com`, `*.okta.com`, `*` for any); undefined: decided by its place. */
  domainsOf(key: string): readonly string[] | undefined;
  /** Hosts a value may name over plain http (SWITCHYARD_ALLOWED_PRIVATE_HOSTS). */
  allowedPrivateHosts: readonly string[];
}

const PLACEHOLDER = /\$\{([\w.-]+)\}/g;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
/** A self-hosted tool's address where the template leaves the whole host to the value: `[http(s)://]host[:port][/path]`. */
const ADDRESS = /^(?:(https?):\/\/)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?((?:\/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*)$/i;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** `connectionConfig.x` is first a key of the config as written (Nango's `accounts-server`, `installation.uuid`), else a path into it. */
function lookup(vars: TemplateVars, key: string): unknown {
  const configKey = /^connectionConfig\.(.+)$/.exec(key)?.[1];
  if (configKey !== undefined && vars.connectionConfig && Object.hasOwn(vars.connectionConfig, configKey)) return vars.connectionConfig[configKey];
  return key
    .split('.')
    .reduce<unknown>((o, k) => (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined), vars);
}

function valueOf(vars: TemplateVars, key: string): string {
  const value = lookup(vars, key);
  if (value === undefined || value === null || value === '') throw new MissingConfigValue(key);
  if (typeof value === 'object') throw new InvalidConfigValue(key, 'must be a string, number or boolean');
  return String(value);
}

/**
 * Nango's ` || ` alternatives (`https://api.${connectionConfig.region}.acme.com || https://api.acme.com`):
 * the first whose values are all there. When none is, the first one's missing value is named; a value
 * that may not stand where it is fails at once rather than falling through to another alternative.
 */
function firstFilled(template: string, fill: (alternative: string) => string): string {
  const [first, ...others] = template.split(ALTERNATIVES);
  try {
    return fill(first!);
  } catch (err) {
    if (!(err instanceof MissingConfigValue)) throw err;
    for (const alternative of others) {
      try {
        return fill(alternative);
      } catch (e) {
        if (!(e instanceof MissingConfigValue)) throw e;
      }
    }
    throw err;
  }
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** `${now}`, `${now+7:days:YYYY-MM-DD}`: the time moved by whole units, ISO 8601 or a date, in UTC. */
function nowText(now: Date, sign?: string, amount?: string, unit?: keyof typeof UNIT_MS, format?: string): string {
  const moved = new Date(now.getTime() + (sign === '-' ? -1 : 1) * Number(amount ?? 0) * (unit ? UNIT_MS[unit] : 0));
  return format === 'YYYY-MM-DD' ? moved.toISOString().slice(0, 10) : moved.toISOString();
}

/** Fills a header, query or parameter template as text; a missing or empty value throws MissingConfigValue naming it. */
export function fillText(template: string, vars: TemplateVars): string {
  const now = vars.now ?? new Date();
  const fill = (text: string) =>
    text
      .replace(NOW, (_, sign?: string, amount?: string, unit?: keyof typeof UNIT_MS, format?: string) => nowText(now, sign, amount, unit, format))
      .replace(PLACEHOLDER, (_, key: string) => valueOf(vars, key));
  return firstFilled(template, (t) =>
    t
      .split(BASE64)
      .map((part, i) => (i % 2 ? Buffer.from(fill(part), 'utf8').toString('base64') : fill(part)))
      .join(''),
  );
}

/** Whether a host is one of the patterns: an exact name, `*.name` (any name under it), or `*`. */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  const h = normalizeHost(host);
  return patterns.some((p) => {
    const pattern = normalizeHost(p);
    if (pattern === '*') return true;
    return pattern.startsWith('*.') ? h.endsWith(pattern.slice(1)) && h.length > pattern.length - 1 : h === pattern;
  });
}

interface Authority {
  scheme: string;
  authority: string;
  /** A path the value brought with it (a self-hosted tool's base path), before the template's own. */
  pathPrefix: string;
  /** The placeholders in the host, for the checks on the filled URL. */
  hostKeys: string[];
  /** The placeholder whose value chose the scheme, if one did. */
  schemeFrom: string | null;
}

/** The whole host is the value: a host name, `host:port`, or an http(s) URL without user, query or fragment. */
function wholeHost(key: string, value: string, scheme: string): Authority {
  const m = ADDRESS.exec(value);
  const host = m?.[2] ?? '';
  const path = m?.[4] ?? '';
  if (!m || !(HOSTNAME.test(host) || host.startsWith('[')) || path.split('/').some((s) => DOT_SEGMENT.test(s))) {
    throw new InvalidConfigValue(key, 'must be a host name (acme.example.com), host:port, or an http(s) URL without user, query or fragment');
  }
  return {
    scheme: m[1]?.toLowerCase() ?? scheme,
    authority: m[3] ? `${host}:${m[3]}` : host,
    pathPrefix: path.replace(/\/+$/, ''),
    hostKeys: [key],
    schemeFrom: m[1] ? key : null,
  };
}

function fillAuthority(template: string, scheme: string, vars: TemplateVars, rules: UrlRules): Authority {
  const whole = /^\$\{([\w.-]+)\}$/.exec(template);
  if (whole) return wholeHost(whole[1]!, valueOf(vars, whole[1]!), scheme);
  const hostKeys: string[] = [];
  const colon = template.indexOf(':');
  const fill = (part: string, inPort: boolean) =>
    part.replace(PLACEHOLDER, (_, key: string) => {
      const value = valueOf(vars, key);
      if (inPort) {
        if (!/^\d{1,5}$/.test(value)) throw new InvalidConfigValue(key, 'must be a port number');
        return value;
      }
      hostKeys.push(key);
      // Several labels where the field's domains bound the result, or where the value is the whole name before a port.
      if (rules.domainsOf(key) || part === `\${${key}}`) {
        if (!HOSTNAME.test(value) || value.endsWith('.')) throw new InvalidConfigValue(key, 'must be a host name (letters, digits, hyphens and dots)');
      } else if (!LABEL.test(value)) {
        throw new InvalidConfigValue(key, 'must be a single host name label (letters, digits and hyphens, no dots)');
      }
      return value;
    });
  const authority = colon === -1 ? fill(template, false) : `${fill(template.slice(0, colon), false)}:${fill(template.slice(colon + 1), true)}`;
  return { scheme, authority, pathPrefix: '', hostKeys, schemeFrom: null };
}

/** Path values are percent-encoded (and may not be `.` or `..`); query and fragment values too. */
function fillTail(template: string, vars: TemplateVars): string {
  const q = template.search(/[?#]/);
  const path = q === -1 ? template : template.slice(0, q);
  const rest = q === -1 ? '' : template.slice(q);
  const filledPath = path.replace(PLACEHOLDER, (_, key: string) => {
    const value = valueOf(vars, key);
    if (DOT_SEGMENT.test(value)) throw new InvalidConfigValue(key, 'must not be "." or ".."');
    return encodeURIComponent(value);
  });
  return filledPath + rest.replace(PLACEHOLDER, (_, key: string) => encodeURIComponent(valueOf(vars, key)));
}

/**
 * Fills a URL template. A template without a scheme (`${connectionConfig.base_url}/api`) is read as
 * https. Throws MissingConfigValue for a missing value and InvalidConfigValue for one that may not
 * stand where it is, or that would make the URL's origin other than the one its checked parts build.
 */
export function fillUrl(template: string, vars: TemplateVars, rules: UrlRules): string {
  return firstFilled(template, (alternative) => fillOneUrl(alternative, vars, rules));
}

function fillOneUrl(template: string, vars: TemplateVars, rules: UrlRules): string {
  const full = /^https?:\/\//i.test(template) ? template : `https://${template}`;
  const at = full.indexOf('://') + 3;
  const end = full.slice(at).search(/[/?#]/);
  const authorityTemplate = end === -1 ? full.slice(at) : full.slice(at, at + end);
  const tailTemplate = end === -1 ? '' : full.slice(at + end);
  const a = fillAuthority(authorityTemplate, full.slice(0, at - 3).toLowerCase(), vars, rules);
  const url = `${a.scheme}://${a.authority}${a.pathPrefix}${fillTail(tailTemplate, vars)}`;
  const blame = a.hostKeys[0] ?? a.schemeFrom;
  if (!blame) return url;
  let parsed: URL;
  let expected: URL;
  try {
    parsed = new URL(url);
    expected = new URL(`${a.scheme}://${a.authority}`);
  } catch {
    throw new InvalidConfigValue(blame, 'does not make a valid URL');
  }
  if (parsed.origin !== expected.origin || parsed.username !== '' || parsed.password !== '')
    throw new InvalidConfigValue(blame, "may not change the URL's host");
  for (const key of a.hostKeys) {
    const domains = rules.domainsOf(key);
    if (domains && !hostMatches(parsed.hostname, domains)) {
      throw new InvalidConfigValue(key, `must name a host matching ${domains.join(', ')} (an integration's custom_domains may allow others)`);
    }
  }
  if (a.schemeFrom && parsed.protocol === 'http:' && !isHostAllowListed(parsed.hostname, rules.allowedPrivateHosts)) {
    throw new InvalidConfigValue(a.schemeFrom, 'must use https: the credentials are sent there (http only for hosts in SWITCHYARD_ALLOWED_PRIVATE_HOSTS)');
  }
  return url;
}

/** Every placeholder key of a template. */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}
