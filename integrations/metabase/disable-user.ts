import { createAction } from '../../sdk/index.js';
import { IdEntity, SuccessResponse, toUser, type MetabaseUser } from './models.js';
import { positiveId } from './ids.js';

/** Metabase deactivates (the user stays, with is_active false); the cache shows it at once. */
export default createAction({
  description: 'Disables a user; it stays, inactive',
  endpoint: { method: 'DELETE', path: '/users', group: 'Users' },
  input: IdEntity,
  output: SuccessResponse,
  async exec(ctx, input) {
    const id = positiveId(input.id);
    await ctx.delete({ endpoint: `/api/user/${id}`, retries: 3 });
    const after = await ctx.get<MetabaseUser>({ endpoint: `/api/user/${id}`, retries: 3 });
    await ctx.batchSave([toUser(after.data)], 'User');
    return { success: true as const };
  },
});
