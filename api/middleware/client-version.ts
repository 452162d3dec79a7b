import type { MiddlewareHandler } from 'hono';
import { UpgradeRequired } from '../../lib/errors.js';

export const MIN_CLIENT_VERSION = '0.67.0';
const CLIENT_AGENT = /(?:switchyard-cli|switchyard-node|nango-node-client|nango-cli|nango)\/(\d+)\.(\d+)\.(\d+)/;

function below(version: [number, number, number], min: string): boolean {
  const m = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (version[i]! !== m[i]!) return version[i]! < m[i]!;
  }
  return false;
}

function announcedVersion(userAgent: string | undefined, header: string | undefined): [number, number, number] | null {
  const fromHeader = header && /^(\d+)\.(\d+)\.(\d+)/.exec(header);
  if (fromHeader) return [Number(fromHeader[1]), Number(fromHeader[2]), Number(fromHeader[3])];
  const fromAgent = userAgent && CLIENT_AGENT.exec(userAgent);
  if (fromAgent) return [Number(fromAgent[1]), Number(fromAgent[2]), Number(fromAgent[3])];
  return null;
}

/** A version (`x.y.z`, as sent by a client) below MIN_CLIENT_VERSION. */
export function isBelowMinimum(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  return m !== null && below([Number(m[1]), Number(m[2]), Number(m[3])], MIN_CLIENT_VERSION);
}

/** Clients that announce a version below 0.67.0 get 426 with an upgrade message. */
export const clientVersion: MiddlewareHandler = (c, next) => {
  const version = announcedVersion(c.req.header('user-agent'), c.req.header('switchyard-client-version'));
  if (version && below(version, MIN_CLIENT_VERSION)) {
    throw new UpgradeRequired(
      'client_upgrade_required',
      `Client version ${version.join('.')} is no longer supported. Upgrade your Switchyard (or Nango) client, SDK or CLI to ${MIN_CLIENT_VERSION} or later.`,
    );
  }
  return next();
};
