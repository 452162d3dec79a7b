import type { z } from 'zod';
import { createAction } from '../../sdk/index.js';
import { Candidate, CreateCandidate } from './models.js';

/** `POST /v1/candidates`: the input minus country/state/city, which become `work_locations`. */
export default createAction({
  description: 'Create a candidate in Checkr',
  endpoint: { method: 'POST', path: '/candidates' },
  input: CreateCandidate,
  output: Candidate,
  async exec(ctx, input) {
    const { country, state, city, work_locations: _ignored, ...candidate } = input;
    const location = { country, ...(state ? { state } : {}), ...(city ? { city } : {}) };
    const res = await ctx.post<z.infer<typeof Candidate>>({ endpoint: '/v1/candidates', data: { ...candidate, work_locations: [location] }, retries: 3 });
    return res.data;
  },
});
