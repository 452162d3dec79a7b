/**
 * @module cli/native-tsc — TypeScript's native compiler (typescript 7, a Go program shipped in a
 * per-platform npm package; this CLI depends on it as `typescript-native`) run over a tsconfig, its
 * output read back as diagnostics and the files its program read. Over Nango's template library it
 * type-checks about eight times faster than the JavaScript compiler, in a fraction of the memory.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface NativeDiagnostic {
  /** Absolute path, or null for a diagnostic of the options or the whole program. */
  file: string | null;
  line: number;
  column: number;
  /** `TS2322`. */
  code: string;
  /** The message chain, one element per line, the first the headline. */
  chain: string[];
}

export interface NativeRun {
  diagnostics: NativeDiagnostic[];
  /** Every file the program read (absolute paths), the compiler's own lib files included. */
  files: string[];
}

export class NativeCompilerUnavailable extends Error {}

let exe: Promise<string> | null = null;

/** The compiler's executable, as the `typescript-native` package finds its platform's. */
export function nativeCompiler(): Promise<string> {
  exe ??= (async () => {
    let pkg: string;
    try {
      pkg = createRequire(import.meta.url).resolve('typescript-native/package.json');
    } catch {
      throw new NativeCompilerUnavailable('the package typescript-native (TypeScript 7) is not installed beside the switchyard CLI: reinstall it');
    }
    // The package's exports leave out the helper that names its platform's executable: import it by path.
    const helper = pathToFileURL(path.join(path.dirname(pkg), 'lib', 'getExePath.js')).href;
    try {
      return ((await import(helper)) as { default: () => string }).default();
    } catch (e) {
      throw new NativeCompilerUnavailable(`TypeScript 7 has no compiler for ${process.platform}-${process.arch} here: ${(e as Error).message}`);
    }
  })();
  return exe;
}

const DIAGNOSTIC = /^(?:(.+)\((\d+),(\d+)\): )?error (TS\d+): (.*)$/;

/** Reads `--pretty false --listFiles` output: diagnostics (continuation lines indented), then absolute file names. */
export function parseNativeOutput(stdout: string, cwd: string): NativeRun {
  const diagnostics: NativeDiagnostic[] = [];
  const files: string[] = [];
  let last: NativeDiagnostic | null = null;
  for (const line of stdout.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const m = DIAGNOSTIC.exec(line);
    if (m) {
      last = { file: m[1] ? path.resolve(cwd, m[1]) : null, line: Number(m[2] ?? 0), column: Number(m[3] ?? 0), code: m[4]!, chain: [m[5]!] };
      diagnostics.push(last);
    } else if (line.startsWith(' ') && last) last.chain.push(line.trim());
    else if (path.isAbsolute(line)) {
      files.push(path.normalize(line));
      last = null;
    }
  }
  return { diagnostics, files };
}

/**
 * Type-checks what `tsconfig` names; `cwd` is what the compiler's relative file names are relative to.
 * Exit codes 0–2 are a completed check (2: errors); anything else is the compiler failing.
 */
export async function runNativeCompiler(tsconfig: string, cwd: string): Promise<NativeRun> {
  const bin = await nativeCompiler();
  // One checker: cli/check runs two compilers at once beside the bundling, on as many cores as there are.
  const args = ['-p', tsconfig, '--pretty', 'false', '--listFiles', '--checkers', '1'];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (code !== null && code <= 2) return resolve(parseNativeOutput(stdout, cwd));
      const detail = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join('\n');
      reject(new Error(`TypeScript's compiler (${bin}) ended with ${signal ?? `exit code ${code}`}${detail ? `: ${detail}` : ''}`));
    });
  });
}
