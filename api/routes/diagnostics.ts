import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { diagnosticsWorkflowId, executeWorkflow, searchAttributesFor, taskQueueFor } from '../../workflows/contracts.js';
import { defineRoute } from '../route.js';

const request = z
  .object({ echo: z.string().max(1024).optional() })
  .strict()
  .optional();
const response = z.object({ workflowId: z.string(), taskQueue: z.string(), databaseTime: z.string(), worker: z.string(), echo: z.string().nullable() });

/** A round trip API → Temporal → worker → Postgres, for checking that a deployment is wired. */
export const diagnosticsRoundtrip = defineRoute({
  method: 'post',
  path: '/diagnostics/roundtrip',
  operationId: 'diagnosticsRoundtrip',
  summary: 'Run a workflow through the worker and return its result',
  tag: 'health',
  auth: 'secret_key',
  request: { body: request },
  responses: { 200: response },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  const result = await executeWorkflow(deps.temporal, 'diagnosticsWorkflow', {
    workflowId: diagnosticsWorkflowId(env.name, randomUUID()),
    taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, env.name),
    workflowExecutionTimeout: '30 seconds',
    typedSearchAttributes: searchAttributesFor({ environment: env.name, script: 'diagnostics' }),
    staticSummary: `Diagnostics roundtrip (${env.name})`,
    args: [{ echo: input?.echo ?? null }],
  });
  return result;
});
