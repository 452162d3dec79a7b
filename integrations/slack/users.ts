import { z } from 'zod';
import { createSync } from '../../sdk/index.js';
import { SlackUser, toSlackUser, type SlackEnvelope, type SlackMember } from './models.js';

interface UsersListPage extends SlackEnvelope {
  members?: SlackMember[];
  response_metadata?: { next_cursor?: string };
}

/**
 * The workspace's people, 200 per page (cursor `response_metadata.next_cursor`), without deleted
 * users and bots. Slack reports failures as HTTP 200 with `ok:false`: the run fails with Slack's
 * error code rather than reading an empty page as "everyone left" (a full sync would delete them).
 */
export default createSync({
  description: 'Syncs information about all Users on the Slack workspace',
  frequency: 'every hour',
  autoStart: true,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/users' }],
  scopes: ['users:read', 'users:read.email'],
  models: { SlackUser },
  metadata: z.object({}),
  async exec(ctx) {
    let cursor: string | undefined;
    do {
      const res = await ctx.get<UsersListPage>({ endpoint: '/users.list', params: { limit: 200, ...(cursor ? { cursor } : {}) }, retries: 10 });
      if (!res.data.ok) throw new Error(`Slack users.list failed: ${res.data.error ?? 'unknown error'}`);
      const users = (res.data.members ?? []).filter((m) => !m.deleted && !m.is_bot).map(toSlackUser);
      if (users.length) await ctx.batchSave(users, 'SlackUser');
      cursor = res.data.response_metadata?.next_cursor || undefined;
    } while (cursor);
  },
});
