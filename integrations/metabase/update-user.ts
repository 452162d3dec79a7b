import { z } from 'zod';
import { ActionError, createAction } from '../../sdk/index.js';
import { SuccessResponse, toUser, type MetabaseUser } from './models.js';
import { positiveId } from './ids.js';

const UpdateUserInput = z.object({
  id: z.number().int(),
  email: z.email().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  is_group_manager: z.boolean().nullable(),
  locale: z.string().nullable(),
  is_superuser: z.boolean().nullable(),
});

/** Metabase answers 404 for an update of a disabled user; we say so instead of a bare "not found". */
export default createAction({
  description: 'Updates an existing, active user',
  endpoint: { method: 'PUT', path: '/users', group: 'Users' },
  input: UpdateUserInput,
  output: SuccessResponse,
  async exec(ctx, input) {
    const id = positiveId(input.id);
    const current = await ctx.get<MetabaseUser>({ endpoint: `/api/user/${id}`, retries: 3 });
    if (!current.data.is_active) {
      throw new ActionError({ message: `User ${id} is disabled; enable it (PUT /users/enable) before updating it`, code: 'user_disabled', id });
    }
    const { id: _id, ...fields } = input;
    const res = await ctx.put<MetabaseUser>({ endpoint: `/api/user/${id}`, data: fields, retries: 3 });
    await ctx.batchSave([toUser(res.data)], 'User');
    return { success: true as const };
  },
});
