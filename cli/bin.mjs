#!/usr/bin/env node
// The `switchyard` bin: registers tsx (from this package, wherever the command runs) and starts the CLI.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./index.ts');
run(process.argv.slice(2));
