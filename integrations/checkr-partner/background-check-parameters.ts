import { z } from 'zod';
import { createAction } from '../../sdk/index.js';
import { hierarchyEnabled } from './hierarchy.js';
import { BackgroundCheckParameterResponse } from './models.js';

/** What `trigger-background-check` needs; `node` is added for accounts with Account Hierarchy. */
export default createAction({
  description: 'Fetch the parameters required to trigger a background check',
  endpoint: { method: 'GET', path: '/background-check/service-parameters' },
  input: z.object({ service_key: z.string() }),
  output: BackgroundCheckParameterResponse,
  async exec(ctx) {
    const parameters = [
      { key: 'service_key', type: 'string', title: 'Service Key', description: 'Slug of the associated service_key.', required: true },
      { key: 'candidate_id', type: 'string', title: 'Candidate ID', description: 'Id of the candidate to trigger the background check for.', required: true },
      { key: 'tags', type: 'string[]', title: 'Tags', description: 'Array of tags for the report.', required: false },
      {
        key: 'country',
        type: 'string',
        title: 'Country',
        description: 'Country of the user who is to undergo the background check. Example: US',
        required: true,
      },
      {
        key: 'state',
        type: 'string',
        title: 'State',
        description: 'State of the user who is to undergo the background check. Required in the US when the account has Account Hierarchy.',
        required: false,
      },
      { key: 'city', type: 'string', title: 'City', description: 'City of the user who is to undergo the background check.', required: false },
    ];
    if (await hierarchyEnabled(ctx)) {
      parameters.push({ key: 'node', type: 'string', title: 'Node', description: 'The custom_id of the node (Account Hierarchy).', required: true });
    }
    return { parameters };
  },
});
