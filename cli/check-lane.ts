/**
 * @module cli/check-lane — type-check worker threads (cli/check-worker) that check one group after
 * another: a worker parses the declaration files every group reads (TypeScript's lib, zod's, the
 * SDK's) once, not once per group, and loads TypeScript once.
 */
import { Worker } from 'node:worker_threads';
import type { GroupJob, GroupResult } from './check.js';

/** Run from the sources (under tsx), not from the packed CLI. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
/** The worker's module: the packed CLI's is beside dist/switchyard.mjs (cli/pack.ts). */
const WORKER = new URL(FROM_SOURCES ? './check-worker.ts' : './check-worker.mjs', import.meta.url);

class Lane {
  private readonly worker: Worker;
  private pending: { resolve: (r: GroupResult) => void; reject: (err: Error) => void } | null = null;

  constructor() {
    // A worker thread does not inherit tsx's loader: from the sources, it loads it first.
    const execArgv = FROM_SOURCES ? ['--import', import.meta.resolve('tsx/esm')] : undefined;
    this.worker = new Worker(WORKER, { execArgv });
    this.worker.on('message', (r: GroupResult) => this.settle()?.resolve(r));
    this.worker.on('error', (err) => this.settle()?.reject(err));
    this.worker.on('exit', (code) => this.settle()?.reject(new Error(`the type-check worker exited with code ${code} and no result`)));
  }

  private settle() {
    const p = this.pending;
    this.pending = null;
    return p;
  }

  check(job: GroupJob): Promise<GroupResult> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Lanes started as groups need them, each checking one group at a time; one that failed is not used again. */
export class Lanes {
  private readonly idle: Lane[] = [];
  private readonly started: Lane[] = [];

  async check(job: GroupJob): Promise<GroupResult> {
    let lane = this.idle.pop();
    if (!lane) {
      lane = new Lane();
      this.started.push(lane);
    }
    const result = await lane.check(job);
    this.idle.push(lane);
    return result;
  }

  async close(): Promise<void> {
    await Promise.all(this.started.map((l) => l.close()));
  }
}
