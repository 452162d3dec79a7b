import { createAction } from '../../sdk/index.js';
import { IdEntity, toUser, User, type MetabaseUser } from './models.js';
import { positiveId } from './ids.js';

export default createAction({
  description: 'Fetches one user by id, active or disabled',
  endpoint: { method: 'GET', path: '/users/single', group: 'Users' },
  input: IdEntity,
  output: User,
  async exec(ctx, input) {
    const res = await ctx.get<MetabaseUser>({ endpoint: `/api/user/${positiveId(input.id)}`, retries: 3 });
    return toUser(res.data);
  },
});
