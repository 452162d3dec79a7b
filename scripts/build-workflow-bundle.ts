/**
 * Bundles the workflows once (what a worker otherwise does at each start) into the file named by the
 * first argument; a worker started with SWITCHYARD_WORKFLOW_BUNDLE=<that file> skips bundling. The
 * Docker image runs this at build time.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflows } from '../worker/index.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: node --import tsx scripts/build-workflow-bundle.ts <output.js>');
  process.exit(2);
}
const { code } = await bundleWorkflows();
await mkdir(path.dirname(path.resolve(out)), { recursive: true });
await writeFile(out, code);
console.log(`workflow bundle: ${out} (${Buffer.byteLength(code)} bytes)`);
