import { ActionError, createAction } from '../../sdk/index.js';
import { hierarchyEnabled } from './hierarchy.js';
import { toBackgroundCheck, TriggerBackgroundCheckInput, TriggeredBackgroundCheck, type CheckrInvitation } from './models.js';

/**
 * Creates an invitation for a candidate and package. The check shows in the `BackgroundCheck`
 * cache at once; once this action has succeeded, the platform starts `backgroundCheckWorkflow`,
 * which follows the check to complete / canceled / expired (activities/background-checks.ts).
 */
export default createAction({
  description: 'Trigger a background check (a Checkr invitation) for a candidate and a package',
  endpoint: { method: 'POST', path: '/background-check/trigger' },
  input: TriggerBackgroundCheckInput,
  output: TriggeredBackgroundCheck,
  async exec(ctx, input) {
    if (await hierarchyEnabled(ctx)) {
      if (!input.node) throw new ActionError({ message: 'node is missing. This is required when account hierarchy is enabled.', code: 'missing_node' });
      if (input.country === 'US' && !input.state) {
        throw new ActionError({
          message: 'state is missing. This is required when account hierarchy is enabled and the country is US.',
          code: 'missing_state',
        });
      }
    }
    const location = { country: input.country, ...(input.state ? { state: input.state } : {}), ...(input.city ? { city: input.city } : {}) };
    const res = await ctx.post<CheckrInvitation>({
      endpoint: '/v1/invitations',
      data: {
        candidate_id: input.candidate_id,
        package: input.service_key,
        work_locations: [location],
        ...(input.node ? { node: input.node } : {}),
        ...(input.tags ? { tags: input.tags } : {}),
      },
      retries: 3,
    });
    const invitation = res.data;
    await ctx.batchSave([toBackgroundCheck(invitation)], 'BackgroundCheck');
    return {
      applicationId: invitation.id,
      url: invitation.uri,
      status: invitation.status,
      completed_at: invitation.completed_at ?? null,
      candidate_id: invitation.candidate_id,
      service_key: invitation.package,
      deleted_at: invitation.deleted_at ?? null,
      created_at: invitation.created_at,
      updated_at: invitation.updated_at ?? invitation.created_at,
    };
  },
});
