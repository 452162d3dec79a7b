/**
 * The workflow bundle's OpenTelemetry interceptors (workflows/otel-interceptors.ts) load
 * OpenTelemetry only for a traced run: each run in the workflow sandbox has its own module cache,
 * so a module the interceptors import statically is evaluated again for every run created. Here
 * the module is imported in Node, where its require is Node's: the OpenTelemetry workflow module
 * must still be absent from the cache after an untraced run went through the interceptors.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { WorkflowExecuteInput } from '@temporalio/workflow';
import { interceptors } from '../workflows/otel-interceptors.js';

const require = createRequire(import.meta.url);

test('an untraced run goes through the interceptors without loading OpenTelemetry', async () => {
  const made = interceptors();
  let ran = false;
  const input = { headers: {}, args: [] } as unknown as WorkflowExecuteInput;
  await made.inbound![0]!.execute!(input, async () => {
    ran = true;
  });
  assert.ok(ran, 'the run itself went on');
  const otelWorkflowModule = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');
  assert.equal(otelWorkflowModule in require.cache, false, 'the OpenTelemetry workflow module was loaded for an untraced run');
});
