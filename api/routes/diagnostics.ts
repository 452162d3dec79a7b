import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { diagnosticsWorkflowId, executeWorkflow, searchAttributesFor, taskQueueFor } from '../../workflows/contracts.js';
import type { AppDeps, AppEnv } from '../context.js';
import { requireSecretKey } from '../middleware/auth.js';
import { describeRoute } from '../openapi.js';
import { body } from '../validate.js';

const request = z
  .object({ echo: z.string().max(1024).optional() })
  .strict()
  .optional();
const response = z.object({ workflowId: z.string(), taskQueue: z.string(), databaseTime: z.string(), worker: z.string(), echo: z.string().nullable() });

/** A round trip API → Temporal → worker → Postgres, for checking that a deployment is wired. */
export function diagnosticsRoutes(deps: AppDeps) {
  describeRoute({
    method: 'post',
    path: '/diagnostics/roundtrip',
    summary: 'Run a workflow through the worker and return its result',
    tag: 'health',
    body: request,
    response,
  });
  return new Hono<AppEnv>().post('/diagnostics/roundtrip', requireSecretKey(deps), async (c) => {
    const env = c.get('environment');
    const input = await body(c, request);
    const result = await executeWorkflow(deps.temporal, 'diagnosticsWorkflow', {
      workflowId: diagnosticsWorkflowId(env.name, randomUUID()),
      taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, env.name),
      workflowExecutionTimeout: '30 seconds',
      typedSearchAttributes: searchAttributesFor({ environment: env.name, script: 'diagnostics' }),
      staticSummary: `Diagnostics roundtrip (${env.name})`,
      args: [{ echo: input?.echo ?? null }],
    });
    return c.json(result);
  });
}
