/**
 * @module start/shutdown — one clean stop on SIGINT/SIGTERM; a second press later forces exit.
 */
export function onShutdown(stop: () => Promise<void>, say: (m: string) => void): void {
  let stopping = 0;
  const handler = (signal: NodeJS.Signals) => {
    // A terminal's Ctrl-C reaches npm and us at once and npm relays it: the same press can arrive
    // twice within milliseconds, so only a later, deliberate second press forces the exit.
    if (stopping && Date.now() - stopping < 2000) return;
    if (stopping) {
      say(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = Date.now();
    say(`${signal} received: shutting down (worker grace period, servers closed)…`);
    stop().then(
      () => {
        say('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
