import { z } from 'zod';
import { createSync } from '../../sdk/index.js';
import { toUser, User, type MetabaseUser } from './models.js';

/** Active and deactivated users (`status=all`), offset-paged 100 at a time; a full sync, so removed users show as deleted. */
export default createSync({
  description: 'Fetches the list of users, active and disabled',
  frequency: 'every day',
  autoStart: true,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/users', group: 'Users' }],
  models: { User },
  metadata: z.object({}),
  async exec(ctx) {
    for await (const page of ctx.paginate<MetabaseUser>({
      endpoint: '/api/user',
      params: { status: 'all' },
      retries: 10,
      paginate: { type: 'offset', response_path: 'data', limit: 100, limit_name_in_request: 'limit', offset_name_in_request: 'offset' },
    })) {
      await ctx.batchSave(page.map(toUser), 'User');
    }
  },
});
