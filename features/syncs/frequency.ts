/**
 * @module features/syncs/frequency — "every hour", "30 minutes", "1h", "every day"… into milliseconds.
 */
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const NAMED: Record<string, number> = {
  month: 30 * 86_400_000,
  week: 7 * 86_400_000,
  'half day': 12 * 3_600_000,
  'half hour': 30 * 60_000,
  'quarter hour': 15 * 60_000,
};
const PATTERN = /^(?:every )?(?:(\d+)?\s?(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)|(month|week|half day|half hour|quarter hour))$/i;

export const MIN_FREQUENCY_MS = 30_000;

/** Milliseconds, or null when the text is not a frequency or is below 30 s. */
export function parseFrequency(text: string): number | null {
  const m = PATTERN.exec(text.trim());
  if (!m) return null;
  const ms = m[3] ? NAMED[m[3].toLowerCase()]! : Number(m[1] ?? 1) * UNITS[m[2]![0]!.toLowerCase()]!;
  return ms >= MIN_FREQUENCY_MS ? ms : null;
}
