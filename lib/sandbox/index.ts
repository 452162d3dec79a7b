/**
 * @module sandbox — runs a deployed script's bundle in its own V8 isolate (isolated-vm): a memory
 * limit, a CPU-time limit and a wall-time limit per run, and nothing but plain JavaScript inside.
 * The script reaches the outside only through its context, bridged method by method as JSON
 * messages to a host-side ScriptContext bound to one connection (lib/sandbox/bridge.ts). The
 * isolate runs on its own thread, so a script that spins does not block the worker's event loop,
 * and it is disposed after every run. URL, URLSearchParams, TextEncoder/TextDecoder, Buffer, atob/btoa
 * and Headers are pure-JS polyfills; they and the prelude are typed modules in lib/sandbox/isolate/, bundled once per
 * process (lib/sandbox/isolate-scripts.ts). The Node modules Nango's functions may import (`url`,
 * `crypto`, …) are lib/sandbox/isolate/node-modules.ts; crypto's digests are the host's
 * (./host-crypto.ts), through one synchronous callback.
 */
import { createHash } from 'node:crypto';
import type ivm from 'isolated-vm';
import { ActionError } from '../../sdk/errors.js';
import type { SyncContext } from '../../sdk/types.js';
import { createBridge } from './bridge.js';
import { isolateScripts } from './isolate-scripts.js';
import { hostCrypto } from './host-crypto.js';
import { evaluateLinked, type LinkedBundle, type SandboxBundle } from './linked.js';

export type { LinkedBundle, SandboxBundle } from './linked.js';

export interface SandboxLimits {
  /** Heap limit of the isolate. */
  memoryMb: number;
  /** CPU time the script may use in one run (waiting on HTTP does not count). */
  cpuMs: number;
  /** Time one run may take, waiting included. */
  wallMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryMb: 128, cpuMs: 30_000, wallMs: 10 * 60_000 };

export type SandboxErrorCode = 'script_timeout' | 'script_memory_limit' | 'script_load_error';

/** The sandbox stopped the script: it ran out of time or memory, or its bundle does not load. */
export class SandboxError extends Error {
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** An error the script threw (or let through), with its own name: ReferenceError, TypeError, … */
export class ScriptError extends Error {
  constructor(
    name: string,
    message: string,
    readonly scriptStack?: string,
    readonly issues?: { path: (string | number)[]; message: string }[],
  ) {
    super(message);
    this.name = name;
  }
}

export type SandboxRun =
  | { kind: 'describe' }
  | { kind: 'action'; ctx: SyncContext<Record<string, unknown>, unknown>; input: unknown }
  | { kind: 'sync'; ctx: SyncContext<Record<string, unknown>, unknown> }
  | { kind: 'webhook'; ctx: SyncContext<Record<string, unknown>, unknown>; payload: unknown }
  | { kind: 'event'; ctx: SyncContext<Record<string, unknown>, unknown> };

/**
 * isolated-vm, loaded on the first run: it is a native module, so a process that never runs a script
 * (the API; the CLI's init and generate, which may be installed without it) does not need it.
 */
let loadedIvm: Promise<typeof ivm> | undefined;
export function loadIsolatedVm(): Promise<typeof ivm> {
  loadedIvm ??= import('isolated-vm').then(
    (m) => m.default,
    (err: unknown) => {
      loadedIvm = undefined;
      throw new SandboxUnavailableError(err instanceof Error ? err.message : String(err));
    },
  );
  return loadedIvm;
}

/** isolated-vm (the sandbox's native module) is not installed or does not load in this Node. */
export class SandboxUnavailableError extends Error {
  constructor(reason: string) {
    super(`the sandbox (isolated-vm, a native module) does not load in Node ${process.versions.node}: ${reason.split('\n')[0]}`);
    this.name = 'SandboxUnavailableError';
  }
}

// Compiled code per bundle (content-addressed), so a warm worker skips most of V8's parsing.
const codeCache = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();
const CODE_CACHE_SIZE = 64;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const SANDBOX_HINT = 'scripts run in a sandbox: no process.env, files, require/import or Node APIs; reach the provider through the context (ctx.get/post/…)';

function explain(name: string, message: string): string {
  if (name === 'ReferenceError' && /\b(process|require|module|__dirname|global)\b is not defined/.test(message)) {
    return `${name}: ${message} (${SANDBOX_HINT}; keep per-connection settings in metadata)`;
  }
  return `${name}: ${message}`;
}

/**
 * Runs one entry point of a bundle built by `switchyard compile`. Resolves with what the script
 * returned (JSON values only); rejects with the host error the script let through (e.g. an
 * UpstreamHttpError), an ActionError, a ScriptError, or a SandboxError.
 */
/** A context with the polyfills and the prelude, its host callbacks answering through `bridge` (none: describe). */
async function preparedContext(IVM: typeof ivm, isolate: ivm.Isolate, bridge: ReturnType<typeof createBridge> | null): Promise<ivm.Context> {
  const { polyfills, prelude } = await isolateScripts();
  const context = await isolate.createContext();
  let settle: ivm.Reference<(id: number, json: string) => void> | null = null;
  await context.global.set(
    '__sy_host',
    new IVM.Callback(
      (id: unknown, method: unknown, argsJson: unknown) => {
        if (typeof id !== 'number') return;
        const answer = (json: string) => {
          if (isolate.isDisposed || !settle) return;
          settle.apply(undefined, [id, json], { arguments: { copy: true } }).catch(() => undefined);
        };
        if (!bridge) return answer(JSON.stringify({ error: { name: 'Error', message: 'no context in this run' } }));
        void bridge.dispatch(method, argsJson).then(answer);
      },
      { ignored: true },
    ),
  );
  // Synchronous: a script's digest() returns at once, as in Node.
  await context.global.set('__sy_crypto', new IVM.Callback(hostCrypto));
  await context.eval(polyfills, { timeout: 1000 });
  await context.eval(prelude, { timeout: 1000 });
  settle = await context.global.get('__sy_settle', { reference: true });
  return context;
}

/** Compiles and runs an IIFE bundle's top level, with V8's code cache kept per bundle. */
async function evaluateScript(isolate: ivm.Isolate, context: ivm.Context, bundle: string, timeout: number): Promise<void> {
  const key = sha256(bundle);
  const cachedData = codeCache.get(key);
  const script = (await isolate.compileScript(
    bundle,
    cachedData ? { cachedData, filename: 'script.js' } : { produceCachedData: true, filename: 'script.js' },
  )) as ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };
  if (!cachedData && script.cachedData) {
    if (codeCache.size >= CODE_CACHE_SIZE) codeCache.delete(codeCache.keys().next().value!);
    codeCache.set(key, script.cachedData);
  } else if (cachedData && script.cachedDataRejected) codeCache.delete(key);
  await script.run(context, { timeout });
}

/**
 * Runs one entry point of a bundle built by `switchyard compile` (an IIFE, or a linked bundle of
 * ES modules). Resolves with what the script
 * returned (JSON values only); rejects with the host error the script let through (e.g. an
 * UpstreamHttpError), an ActionError, a ScriptError, or a SandboxError.
 */
export async function runSandboxed(bundle: SandboxBundle, run: SandboxRun, limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): Promise<unknown> {
  const IVM = await loadIsolatedVm();
  const isolate = new IVM.Isolate({ memoryLimit: Math.max(8, limits.memoryMb) });
  let stoppedFor: 'cpu' | 'wall' | null = null;
  const started = Date.now();
  const watchdog = setInterval(() => {
    if (isolate.isDisposed) return;
    const cpuMs = Number(isolate.cpuTime) / 1e6;
    if (cpuMs > limits.cpuMs) stoppedFor = 'cpu';
    else if (Date.now() - started > limits.wallMs) stoppedFor = 'wall';
    if (stoppedFor) isolate.dispose();
  }, 25);
  const bridge = 'ctx' in run ? createBridge(run.ctx) : null;
  try {
    const context = await preparedContext(IVM, isolate, bridge);
    try {
      if (typeof bundle === 'string') await evaluateScript(isolate, context, bundle, limits.cpuMs);
      else await evaluateLinked(isolate, context, bundle, { timeout: limits.cpuMs });
    } catch (err) {
      const e = err as Error;
      if (stoppedFor || isolate.isDisposed || /timed out/.test(e.message)) throw err;
      throw new ScriptError(e.name, `${explain(e.name, e.message)} (while loading the script)`, e.stack);
    }

    const arg = run.kind === 'action' ? run.input : run.kind === 'webhook' ? run.payload : null;
    const info =
      'ctx' in run
        ? {
            connectionId: run.ctx.connectionId,
            providerConfigKey: run.ctx.providerConfigKey,
            provider: run.ctx.provider,
            isFullSync: run.ctx.isFullSync ?? false,
            variant: run.ctx.variant ?? 'base',
            lastSyncDate: run.ctx.lastSyncDate?.toISOString(),
          }
        : {};
    const json = (await context.evalClosure('return __sy_start($0, $1, $2)', [run.kind, JSON.stringify(arg ?? null), JSON.stringify(info)], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
      timeout: limits.cpuMs,
    })) as string;
    const result = JSON.parse(json) as
      | { ok: true; value: unknown }
      | {
          ok: false;
          error: {
            name: string;
            message: string;
            stack?: string;
            hostErrorId?: number;
            payload?: unknown;
            issues?: { path: (string | number)[]; message: string }[];
          };
        };
    if (result.ok) return result.value;
    const e = result.error;
    const original = e.hostErrorId !== undefined ? bridge?.hostError(e.hostErrorId) : undefined;
    if (original) throw original;
    if (e.name === 'ActionError') throw new ActionError(e.payload ?? { message: e.message });
    if (e.name === 'RangeError' && /Array buffer allocation failed|Invalid (typed )?array length|Invalid string length/.test(e.message)) {
      throw new SandboxError('script_memory_limit', `The script ran out of memory (${e.message}); its limit is ${limits.memoryMb} MB`);
    }
    throw new ScriptError(e.name, explain(e.name, e.message), e.stack, e.issues);
  } catch (err) {
    if (err instanceof SandboxError || err instanceof ScriptError || err instanceof ActionError) throw err;
    if (stoppedFor === 'cpu' || /Script execution timed out/.test((err as Error).message ?? '')) {
      throw new SandboxError('script_timeout', `The script used more than ${limits.cpuMs} ms of CPU time and was stopped (an endless loop?)`);
    }
    if (stoppedFor === 'wall') throw new SandboxError('script_timeout', `The script ran longer than ${limits.wallMs} ms and was stopped`);
    if (isolate.isDisposed || /memory limit/i.test((err as Error).message ?? '')) {
      throw new SandboxError('script_memory_limit', `The script exceeded its memory limit of ${limits.memoryMb} MB and was stopped`);
    }
    if (err instanceof Error && /SyntaxError/.test(err.name + err.message))
      throw new SandboxError('script_load_error', `The bundle does not load: ${err.message}`);
    throw err;
  } finally {
    clearInterval(watchdog);
    bridge?.close();
    if (!isolate.isDisposed) isolate.dispose();
  }
}

/** The manifest fields the bundle declares (its describe()), computed inside a sandbox. */
export async function describeBundle(bundle: SandboxBundle, limits: Partial<SandboxLimits> = {}): Promise<unknown> {
  return runSandboxed(bundle, { kind: 'describe' }, { memoryMb: 128, cpuMs: 5_000, wallMs: 15_000, ...limits });
}

export type Described = { ok: true; value: unknown } | { ok: false; error: Error };

/**
 * The describe() of many linked bundles in one isolate and one context: the modules they share
 * (zod, the SDK runtime, models) are compiled and evaluated once, not once per script, which is
 * most of a describe. What one script's top level does to the globals is seen by the next; for
 * reading manifests that is accepted (a run always gets a fresh isolate). A bundle whose top level
 * throws fails alone; an isolate that dies (memory, time) leaves the rest to describeBundle, one by one.
 */
export async function describeLinked(bundles: LinkedBundle[], limits: Partial<SandboxLimits> = {}): Promise<Described[]> {
  const IVM = await loadIsolatedVm();
  const { memoryMb, cpuMs } = { memoryMb: 256, cpuMs: 5_000, ...limits };
  const isolate = new IVM.Isolate({ memoryLimit: memoryMb });
  const out: Described[] = [];
  try {
    const context = await preparedContext(IVM, isolate, null);
    const loaded = new Map<string, ivm.Module>();
    for (const bundle of bundles) {
      try {
        await evaluateLinked(isolate, context, bundle, { timeout: cpuMs, loaded });
      } catch (err) {
        if (isolate.isDisposed) break;
        const e = err as Error;
        out.push({ ok: false, error: new ScriptError(e.name, `${explain(e.name, e.message)} (while loading the script)`, e.stack) });
        continue;
      }
      const json = (await context.evalClosure('return __sy_start($0, $1, $2)', ['describe', 'null', '{}'], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout: cpuMs,
      })) as string;
      const result = JSON.parse(json) as { ok: true; value: unknown } | { ok: false; error: { name: string; message: string; stack?: string } };
      out.push(
        result.ok ? result : { ok: false, error: new ScriptError(result.error.name, explain(result.error.name, result.error.message), result.error.stack) },
      );
    }
  } catch {
    // the isolate died: the rest are described alone below
  } finally {
    if (!isolate.isDisposed) isolate.dispose();
  }
  for (const bundle of bundles.slice(out.length)) {
    out.push(
      await describeBundle(bundle, limits).then(
        (value): Described => ({ ok: true, value }),
        (error: Error): Described => ({ ok: false, error }),
      ),
    );
  }
  return out;
}
