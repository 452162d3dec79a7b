/**
 * @module temporal/lifecycle — what happens in Temporal when connections and integrations change:
 * a connection check at creation plus its schedule; schedules removed with the connection.
 */
import { ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Connection } from '../db/connections.js';
import type { Environment } from '../db/environments.js';
import type { Integration } from '../db/integrations.js';
import type { Db } from '../db/pool.js';
import { searchAttributesFor } from './search-attributes.js';
import { taskQueueFor } from './client.js';

export interface Lifecycle {
  connectionSaved(env: Environment, connection: Connection): Promise<void>;
  connectionDeleting(env: Environment, connection: Connection): Promise<void>;
  integrationDeleting(env: Environment, integration: Integration): Promise<void>;
  endpointsChanged(env: Environment, integration: Integration): Promise<void>;
}

export const CHECK_INTERVAL = '6h';

export function checkWorkflowId(env: string, integration: string, connection: string): string {
  return `check:${env}:${integration}:${connection}`;
}

export function createLifecycle(deps: { temporal: Client; db: Db; taskQueuePrefix: string }): Lifecycle {
  const { temporal } = deps;

  async function deleteSchedule(id: string): Promise<void> {
    try {
      await temporal.schedule.getHandle(id).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  async function connectionDeleting(env: Environment, connection: Connection): Promise<void> {
    await deleteSchedule(checkWorkflowId(env.name, connection.integrationKey, connection.connectionId));
  }

  return {
    async connectionSaved(env, connection) {
      const id = checkWorkflowId(env.name, connection.integrationKey, connection.connectionId);
      const labels = searchAttributesFor({
        environment: env.name,
        integration: connection.integrationKey,
        connection: connection.connectionId,
        script: 'connection-check',
      });
      const taskQueue = taskQueueFor(deps.taskQueuePrefix, env.name);
      try {
        await temporal.workflow.start('connectionCheckWorkflow', {
          workflowId: id,
          taskQueue,
          args: [{ connectionPk: connection.id }],
          typedSearchAttributes: labels,
          staticSummary: `Check ${connection.integrationKey} connection ${connection.connectionId}`,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      try {
        await temporal.schedule.create({
          scheduleId: id,
          spec: { intervals: [{ every: CHECK_INTERVAL }] },
          action: {
            type: 'startWorkflow',
            workflowType: 'connectionCheckWorkflow',
            taskQueue,
            args: [{ connectionPk: connection.id }],
            typedSearchAttributes: labels,
          },
          policies: { overlap: 'SKIP' as never },
          typedSearchAttributes: labels,
        });
      } catch (err) {
        if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
      }
    },
    connectionDeleting,
    async integrationDeleting(env, integration) {
      const { rows } = await deps.db.query<{ connection_id: string }>('SELECT connection_id FROM connections WHERE integration_id = $1', [integration.id]);
      for (const r of rows) await deleteSchedule(checkWorkflowId(env.name, integration.uniqueKey, r.connection_id));
    },
    async endpointsChanged() {},
  };
}
