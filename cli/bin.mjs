#!/usr/bin/env node
// The `switchyard` bin: registers tsx (from this package, wherever the command runs) and starts the CLI.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { missingSandboxFlags } = await import('../lib/sandbox/node-flags.ts');
const missing = missingSandboxFlags();
if (missing.length > 0) {
  // The sandbox's node flags (lib/sandbox/node-flags.ts) only take effect in a new node process.
  const again = spawnSync(process.execPath, [...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // A child ended by a signal has no status: say which, so an exit 1 is not a silent mystery.
  if (again.signal) process.stderr.write(`switchyard: the CLI process was ended by ${again.signal}\n`);
  process.exit(again.status ?? 1);
}
const { run } = await import('./index.ts');
run(process.argv.slice(2));
