import os from 'node:os';
import type { ActivityDeps } from './deps.js';

export function diagnosticsActivities({ db }: ActivityDeps) {
  return {
    async probeDatabase(): Promise<{ now: string; worker: string }> {
      const { rows } = await db.query<{ now: Date }>('SELECT now() AS now');
      return { now: rows[0]!.now.toISOString(), worker: `${os.hostname()}:${process.pid}` };
    },
  };
}
