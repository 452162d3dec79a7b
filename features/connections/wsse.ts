/**
 * @module features/connections/wsse — auth_mode SIGNATURE with `signature.protocol: WSSE` (Emarsys):
 * an `X-WSSE: UsernameToken ...` value made fresh for each request from the API user name and secret:
 * a random nonce, the creation time, and the digest base64(sha1-hex(nonce + created + secret)), as the
 * provider's docs and Nango compute it.
 */
import { createHash, randomBytes } from 'node:crypto';

export function wsseToken(username: string, secret: string, now: Date, nonce = randomBytes(16).toString('hex')): string {
  const created = now.toISOString();
  const digest = Buffer.from(
    createHash('sha1')
      .update(nonce + created + secret)
      .digest('hex'),
  ).toString('base64');
  return `UsernameToken Username="${username}", PasswordDigest="${digest}", Nonce="${nonce}", Created="${created}"`;
}
