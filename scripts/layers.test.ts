import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeOf, upwardImport, upwardImports } from './layers.js';

test('a floor imports its own floor and those below it, never one above', () => {
  assert.equal(upwardImport('lib/sandbox/index.ts', 'sdk/errors.ts'), null);
  assert.equal(upwardImport('features/scripts/context.ts', 'sdk/helpers.ts'), null);
  assert.equal(upwardImport('integrations/prebuilt.ts', 'features/scripts/prebuilt.ts'), null);
  assert.equal(upwardImport('api/routes/syncs.ts', 'activities/index.ts'), null, 'api/ and activities/ share a floor');
  assert.equal(upwardImport('start/api.ts', 'start/platform.ts'), null);
  assert.match(upwardImport('sdk/errors.ts', 'lib/errors.ts')!, /^sdk\/ imports lib\//);
  assert.match(upwardImport('lib/sandbox/index.ts', 'features/scripts/catalog.ts')!, /^lib\/ imports features\//);
  assert.match(upwardImport('features/scripts/catalog.ts', 'integrations/prebuilt.ts')!, /^features\/ imports integrations\//);
  assert.match(upwardImport('integrations/checkr-partner/plugin/activities.ts', 'activities/failures.ts')!, /^integrations\/ imports activities\//);
  assert.match(upwardImport('api/main.ts', 'start/platform.ts')!, /^api\/ imports start\//);
  assert.match(upwardImport('worker/index.ts', 'start/shutdown.ts')!, /^worker\/ imports start\//);
});

test('workflow code stands apart: features/ and above may import it, lib/ and sdk/ may not', () => {
  assert.equal(placeOf('workflows/contracts.ts'), 'workflows');
  assert.equal(placeOf('integrations/workflow-contracts.js'), 'workflows');
  assert.equal(placeOf('integrations/checkr-partner/workflows/contracts.ts'), 'workflows');
  assert.deepEqual(placeOf('integrations/checkr-partner/plugin/index.ts'), { floor: 3, name: 'integrations' });
  assert.equal(upwardImport('features/syncs/schedules.ts', 'workflows/contracts.ts'), null);
  assert.equal(upwardImport('workflows/contracts.ts', 'integrations/workflow-contracts.ts'), null);
  assert.match(upwardImport('lib/otel/temporal.ts', 'workflows/trace-headers.ts')!, /lib\/ sits below the workflows/);
  assert.match(upwardImport('sdk/index.ts', 'workflows/contracts.ts')!, /sdk\/ sits below the workflows/);
});

test('tests and tools are on no floor', () => {
  assert.equal(placeOf('lib/crypto.test.ts'), null);
  assert.equal(upwardImport('lib/crypto.test.ts', 'features/environments/store.ts'), null);
  assert.equal(upwardImport('cli/dryrun.ts', 'start/platform.ts'), null);
  assert.equal(upwardImport('features/scripts/catalog.ts', 'cli/project.ts'), null, 'left to the per-floor lint rules');
});

test('upwardImports lists each upward edge of a graph, by repository-relative path', () => {
  const graph = new Map([
    ['/r/lib/a.ts', new Set(['/r/sdk/b.ts', '/r/features/c.ts'])],
    ['/r/features/c.ts', new Set(['/r/lib/a.ts'])],
  ]);
  assert.deepEqual(
    upwardImports(graph, '/r').map(({ from, to }) => `${from} → ${to}`),
    ['lib/a.ts → features/c.ts'],
  );
});
