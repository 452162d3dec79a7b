/**
 * @module cli/main — the entry point of the packed CLI: `npm run pack:cli` (cli/pack.ts) compiles it
 * with its dependencies into one JavaScript file, the package's bin. The sandbox's node flags
 * (lib/sandbox/node-flags.ts) only take effect in a new node process, so without them it runs the
 * CLI again in one that has them. In this repository, cli/bin.mjs does the same from the sources.
 */
import { spawnSync } from 'node:child_process';
import { missingSandboxFlags } from '../lib/sandbox/node-flags.js';
import { run } from './index.js';

const missing = missingSandboxFlags();
if (missing.length > 0) {
  const again = spawnSync(process.execPath, [...missing, ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit' });
  // A child ended by a signal has no status: say which, so an exit 1 is not a silent mystery.
  if (again.signal) process.stderr.write(`switchyard: the CLI process was ended by ${again.signal}\n`);
  process.exit(again.status ?? 1);
}
run(process.argv.slice(2));
