/**
 * @module lib/db/no-flush-wait — a SQL condition that turns `synchronous_commit` off for the rest of
 * its statement's transaction: that commit does not wait for the WAL flush, and the connection's
 * setting is back at the transaction's end. A commit it made is lost only to a PostgreSQL crash, and
 * then with every commit after it (the WAL is written in order). Only for a sync run's own
 * bookkeeping that a retry redoes: never for what anyone else reads (records, run results, events).
 */
export const NO_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) IS NOT NULL`;
