/**
 * @module sdk/helpers — the parts of a script's context that need no host: `ActionError`,
 * `zodValidateInput`, `logger`, and how `log(...)` arguments become one log line. Pure JavaScript,
 * so it is both bundled into sandboxed scripts (by runtime.ts) and used by the host's context.
 */
import type { z } from 'zod';
import { ActionError } from './errors.js';
import type { LogLevel, ScriptLogger, ScriptLoggerMethods } from './types.js';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

const LEVELS: Record<LogLevel, LogLine['level']> = { debug: 'info', verbose: 'info', silly: 'info', http: 'info', info: 'info', warn: 'warn', error: 'error' };

const isPlain = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Error) return v.stack || String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * One line of the run's logs from a `log(...)` call: `log(message, fields)` (Switchyard) keeps the
 * fields; a trailing `{ level }` (Nango) sets the level; any other values are joined as text.
 */
export function logLine(args: unknown[]): LogLine {
  const values = [...args];
  let level: LogLine['level'] = 'info';
  let fields: Record<string, unknown> | undefined;
  const last = values[values.length - 1];
  if (values.length > 1 && isPlain(last)) {
    values.pop();
    const { level: l, ...rest } = last;
    if (typeof l === 'string' && l in LEVELS) level = LEVELS[l as LogLevel];
    else if (l !== undefined) rest.level = l;
    if (Object.keys(rest).length) fields = rest;
  }
  return { level, message: values.map(text).join(' '), ...(fields && { fields }) };
}

export function loggerOf(log: ScriptLogger): ScriptLoggerMethods {
  // `logger.warn(message, fields)`: the level joins the fields, which stay fields.
  const at =
    (level: LogLevel) =>
    (...args: unknown[]) => {
      const last = args[args.length - 1];
      if (args.length > 1 && isPlain(last)) log(...args.slice(0, -1), { ...last, level });
      else log(...args, { level });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Validates an action's input against a zod schema; on failure, an ActionError naming each field (a 500 `action_script_runtime_error` to the caller, as Nango's). */
export async function zodValidateInput<S extends z.ZodType>({
  zodSchema,
  input,
}: {
  zodSchema: S;
  input: unknown;
}): Promise<{ success: true; data: z.output<S> }> {
  const result = zodSchema.safeParse(input);
  if (result.success) return { success: true, data: result.data };
  throw new ActionError({
    message: 'Invalid input provided to the action',
    issues: result.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message, code: i.code })),
  });
}

export interface Helpers {
  ActionError: typeof ActionError;
  logger: ScriptLoggerMethods;
  zodValidateInput: typeof zodValidateInput;
}

/** The host-free members every context has, added to one that lacks them. */
export function withHelpers<C extends { log: ScriptLogger }>(ctx: C): C & Helpers {
  const c = ctx as C & { ActionError?: unknown; logger?: unknown; zodValidateInput?: unknown };
  if (!c.ActionError) c.ActionError = ActionError;
  if (!c.logger) c.logger = loggerOf((...args) => ctx.log(...args));
  if (!c.zodValidateInput) c.zodValidateInput = zodValidateInput;
  return c as never;
}
