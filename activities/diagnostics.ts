import os from 'node:os';
import { databaseNow } from '../lib/db/pool.js';
import type { ActivityDeps } from './deps.js';

export function diagnosticsActivities({ db }: ActivityDeps) {
  return {
    async probeDatabase(): Promise<{ now: string; worker: string }> {
      return { now: (await databaseNow(db)).toISOString(), worker: `${os.hostname()}:${process.pid}` };
    },
  };
}
