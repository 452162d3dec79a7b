/**
 * @module sandbox/node-flags — the Node flags the sandbox needs in every process that loads it.
 */

// isolated-vm's documentation (still in 6.2.0, built for Node 22 and 24): on Node 20 and later, node
// must run with --no-node-snapshot (isolates created from Node's startup snapshot can crash the process). package.json's scripts, test/run.ts
// and cli/bin.mjs pass it; startPlatform refuses to start without it.
export const SANDBOX_NODE_FLAGS = ['--no-node-snapshot'] as const;

/** The sandbox flags this process was started without (on the command line or in NODE_OPTIONS). */
export function missingSandboxFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)]);
  return SANDBOX_NODE_FLAGS.filter((flag) => !given.has(flag));
}
