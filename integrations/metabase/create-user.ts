import { z } from 'zod';
import { createAction } from '../../sdk/index.js';
import { toUser, User, type MetabaseUser } from './models.js';

export default createAction({
  description: 'Creates a user in Metabase',
  endpoint: { method: 'POST', path: '/users', group: 'Users' },
  input: z.object({ firstName: z.string().min(1), lastName: z.string().min(1), email: z.email() }),
  output: User,
  async exec(ctx, input) {
    const res = await ctx.post<MetabaseUser>({
      endpoint: '/api/user',
      data: { first_name: input.firstName, last_name: input.lastName, email: input.email },
      retries: 3,
    });
    const user = toUser(res.data);
    await ctx.batchSave([user], 'User');
    return user;
  },
});
