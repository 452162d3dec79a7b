import { createAction } from '../../sdk/index.js';
import { IdEntity, SuccessResponse, toUser, type MetabaseUser } from './models.js';
import { positiveId } from './ids.js';

/** Enabling an active user succeeds without a call that Metabase would refuse. */
export default createAction({
  description: 'Enables a disabled user',
  endpoint: { method: 'PUT', path: '/users/enable', group: 'Users' },
  input: IdEntity,
  output: SuccessResponse,
  async exec(ctx, input) {
    const id = positiveId(input.id);
    const current = await ctx.get<MetabaseUser>({ endpoint: `/api/user/${id}`, retries: 3 });
    if (current.data.is_active) return { success: true as const };
    const res = await ctx.put<MetabaseUser>({ endpoint: `/api/user/${id}/reactivate`, retries: 3 });
    await ctx.batchSave([toUser({ ...res.data, is_active: true })], 'User');
    return { success: true as const };
  },
});
