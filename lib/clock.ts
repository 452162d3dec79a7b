/**
 * @module clock — the injectable clock. Behaviour tied to a date (see DESIGN.md) reads it, so tests
 * can show both sides of a date.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that starts at a fixed instant and moves with real time from there. */
export function clockFrom(start: Date): Clock {
  const offset = start.getTime() - Date.now();
  return { now: () => new Date(Date.now() + offset) };
}

export const dates = {
  endUserIsolation: new Date('2025-09-08T00:00:00Z'),
  actionOutputLimit: new Date('2025-10-01T00:00:00Z'),
  yamlRefused: new Date('2025-12-01T00:00:00Z'),
  connectionPathsRemoved: new Date('2026-01-20T00:00:00Z'),
} as const;
