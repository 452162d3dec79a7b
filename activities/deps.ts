import type { Client } from '@temporalio/client';
import type { Clock } from '../lib/clock.js';
import type { Config } from '../lib/config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Db } from '../lib/db/pool.js';
import type { Logger } from '../lib/log.js';
import type { ProviderHttpClient } from '../lib/http/index.js';
import type { TokenRefreshListener } from '../features/connections/service.js';

/** What activities need from the outside world; tests hand in their own. */
export interface ActivityDeps {
  db: Db;
  config: Config;
  clock: Clock;
  box: SecretBox;
  log: Logger;
  http: ProviderHttpClient;
  /** Starts workflows from activities (webhook deliveries of the events they emit). */
  temporal: Client;
  /** Alerts and the `auth` webhook of a token refresh's outcome (activities/token-refresh.ts). */
  onTokenRefresh: TokenRefreshListener;
}
