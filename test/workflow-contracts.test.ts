/**
 * The Temporal contracts (workflows/contracts.ts). Type level, checked by `npm run typecheck`:
 * every workflow exported by workflows/index.ts implements its entry of WorkflowContracts, and a
 * start, schedule or signal with a wrong argument does not compile (each `@ts-expect-error` below
 * fails the typecheck if its error ever disappears). At run time: the names match the workflows
 * the worker registers, and the ids keep the formats that Temporal already holds (schedules and
 * runs in flight are found by these ids).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import type * as workflows from '../workflows/index.js';
import { backgroundCheckWorkflowId, checkrEventSignal } from '../integrations/checkr-partner/workflows/contracts.js';
import {
  actionWorkflowId,
  checkWorkflowId,
  diagnosticsWorkflowId,
  executeWorkflow,
  legacyScheduleTarget,
  onEventWorkflowId,
  scheduleAction,
  startWorkflow,
  syncScheduleId,
  syncTriggerWorkflowId,
  syncWebhookWorkflowId,
  taskQueueFor,
  webhookDeliveryWorkflowId,
  webhookEndpointWorkflowId,
  workflowHandle,
  WORKFLOW_NAMES,
  type WorkflowContracts,
  type WorkflowName,
} from '../workflows/contracts.js';
import { workflowTypes } from './workflow-types.js';

// Every workflow implements its contract: it accepts the contract's input and returns its result.
type Implements<T extends WorkflowContracts> = T;
export type _Implemented = Implements<typeof workflows>;
// And every workflow the worker registers has a contract.
type Uncontracted = Exclude<keyof typeof workflows, WorkflowName>;
export const _allContracted: [Uncontracted] extends [never] ? true : Uncontracted = true;

/** Never called: its body is what tsc checks. */
export async function _wrongArgumentsFailTypecheck(client: Client): Promise<void> {
  await startWorkflow(client, 'syncWorkflow', {
    workflowId: 'w',
    taskQueue: 'q',
    // @ts-expect-error an action's input is not a sync's
    args: [{ runId: 'r', isAsync: false }],
  });
  await startWorkflow(client, 'actionWorkflow', {
    workflowId: 'w',
    taskQueue: 'q',
    // @ts-expect-error isAsync is a boolean
    args: [{ runId: 'r', isAsync: 'yes' }],
  });
  // @ts-expect-error the input is required
  await startWorkflow(client, 'webhookDeliveryWorkflow', { workflowId: 'w', taskQueue: 'q' });
  // @ts-expect-error no such workflow
  await startWorkflow(client, 'syncWorkfow', { workflowId: 'w', taskQueue: 'q', args: [{ connectionPk: 1, syncName: 's' }] });
  scheduleAction('connectionCheckWorkflow', {
    taskQueue: 'q',
    // @ts-expect-error connectionPk is a number
    args: [{ connectionPk: 'pk' }],
  });
  // @ts-expect-error the result is the workflow's, not a string
  const echoed: string = await executeWorkflow(client, 'diagnosticsWorkflow', { workflowId: 'w', taskQueue: 'q', args: [{ echo: null }] });
  void echoed;
  // @ts-expect-error the signal carries a CheckrEventSignal
  await workflowHandle(client, 'backgroundCheckWorkflow', 'w').signal(checkrEventSignal, { eventId: 1, type: 'report.completed' });
}

describe('Temporal contracts', () => {
  test('the contracts name exactly the workflows the worker registers', async () => {
    assert.deepEqual([...WORKFLOW_NAMES], await workflowTypes());
  });

  test('ids and the task queue keep their formats', () => {
    assert.equal(taskQueueFor('switchyard', 'dev'), 'switchyard-dev');
    assert.equal(actionWorkflowId('dev', 'r1'), 'action:dev:r1');
    assert.equal(checkWorkflowId('switchyard', 'dev', 'metabase', 'c1'), 'check:switchyard-dev:metabase:c1');
    assert.equal(onEventWorkflowId('dev', 'post-connection-creation', 'metabase', 'c1', 7), 'on-event:post-connection-creation:dev:metabase:c1:7');
    assert.equal(syncScheduleId('switchyard', 'dev', 'metabase', 'c1', 'users'), 'sync:switchyard-dev:metabase:c1:users');
    assert.equal(syncTriggerWorkflowId('sync:switchyard-dev:metabase:c1:users', 'u1'), 'sync:switchyard-dev:metabase:c1:users:trigger-u1');
    assert.equal(syncWebhookWorkflowId('dev', 'metabase', 'c1', 'users', 'e1'), 'sync-webhook:dev:metabase:c1:users:e1');
    assert.equal(webhookDeliveryWorkflowId('d1'), 'webhook:d1');
    assert.equal(webhookEndpointWorkflowId('dev', '0123abcd'), 'webhook-endpoint:dev:0123abcd');
    assert.equal(diagnosticsWorkflowId('dev', 'u1'), 'diagnostics:dev:u1');
    assert.equal(backgroundCheckWorkflowId('dev', 'c1', 'i1'), 'bgcheck:dev:c1:i1');
  });

  test('schedule ids hold the task queue: two deployments of one namespace never share one; the former ids map to the current ones', () => {
    assert.notEqual(syncScheduleId('blue', 'dev', 'metabase', 'c1', 'users'), syncScheduleId('green', 'dev', 'metabase', 'c1', 'users'));
    assert.notEqual(checkWorkflowId('blue', 'dev', 'metabase', 'c1'), checkWorkflowId('green', 'dev', 'metabase', 'c1'));
    const envs = ['dev', 'prod'];
    assert.deepEqual(legacyScheduleTarget('sync:prod:metabase:a:b:users', 'blue', envs), {
      env: 'prod',
      taskQueue: 'blue-prod',
      currentId: syncScheduleId('blue', 'prod', 'metabase', 'a:b', 'users'),
    });
    assert.equal(legacyScheduleTarget('check:dev:metabase:c1', 'blue', envs)?.currentId, checkWorkflowId('blue', 'dev', 'metabase', 'c1'));
    // Current ids (whatever the prefix, even one named like an environment) and other kinds are not former ones.
    for (const prefix of ['blue', 'dev', 'sync']) {
      assert.equal(legacyScheduleTarget(syncScheduleId(prefix, 'dev', 'metabase', 'c1', 'users'), 'blue', envs), null);
      assert.equal(legacyScheduleTarget(checkWorkflowId(prefix, 'dev', 'metabase', 'c1'), 'blue', envs), null);
    }
    assert.equal(legacyScheduleTarget('action:dev:r1', 'blue', envs), null);
  });
});
