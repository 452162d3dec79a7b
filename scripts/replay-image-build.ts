/**
 * Replays the Dockerfile without Docker (no engine on the machines this project is built on): the
 * build context is the repository less .dockerignore, each stage is a folder, and FROM, WORKDIR, ENV,
 * COPY [--from] and RUN are carried out in order (RUN with sh in the stage's working folder; apt-get
 * lines are skipped: they install the image's toolchain, which this machine has). Then the last
 * stage's processes are started without configuration: each must load every module it imports
 * from production dependencies alone and stop with the configuration message, not a missing module.
 *
 *   node --import tsx scripts/replay-image-build.ts [work folder]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = process.cwd();
const work = process.argv[2] ? path.resolve(process.argv[2]) : mkdtempSync(path.join(os.tmpdir(), 'switchyard-image-'));
const say = (m: string) => console.log(`[replay] ${m}`);

function globToRegExp(pattern: string): RegExp {
  const p = pattern.replace(/\/$/, '');
  let re = '';
  for (let i = 0; i < p.length; i++) {
    if (p.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (p[i] === '*') re += '[^/]*';
    else if (p[i] === '?') re += '[^/]';
    else re += p[i]!.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A pattern matches the path itself or anything under it.
  return new RegExp(`^${re}(?:/.*)?$`);
}

// The build context: tracked and untracked files, less .gitignore'd ones and .dockerignore's patterns.
const ignore = readFileSync(path.join(repo, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .map(globToRegExp);
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(path.join(repo, f)) && !ignore.some((re) => re.test(f)));
const context = path.join(work, 'context');
for (const f of files) {
  mkdirSync(path.dirname(path.join(context, f)), { recursive: true });
  cpSync(path.join(repo, f), path.join(context, f));
}
say(`build context: ${files.length} files in ${context}`);

interface Stage {
  root: string;
  workdir: string;
  env: Record<string, string>;
}
const stages = new Map<string, Stage>();
let stage: Stage | null = null;
let index = 0;
const inStage = (s: Stage, p: string) => path.join(s.root, path.posix.isAbsolute(p) ? p : path.posix.join(s.workdir, p));

const lines = readFileSync(path.join(repo, 'Dockerfile'), 'utf8')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
let cmd: string[] = [];
for (const line of lines) {
  const [op, ...rest] = line.split(/\s+/);
  const args = rest.join(' ');
  if (op === 'FROM') {
    const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
    const name = m[2] ?? String(index);
    const root = path.join(work, 'stages', name);
    const parent = stages.get(m[1]!);
    if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
    else mkdirSync(root, { recursive: true });
    stage = { root, workdir: parent?.workdir ?? '/', env: { ...(parent?.env ?? {}) } };
    stages.set(name, stage);
    stages.set(String(index++), stage);
    say(`stage ${name} (${m[1]})`);
  } else if (!stage) throw new Error(`${op} before FROM`);
  else if (op === 'WORKDIR') {
    stage.workdir = path.posix.resolve(stage.workdir, args);
    mkdirSync(inStage(stage, '.'), { recursive: true });
  } else if (op === 'ENV') {
    for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  } else if (op === 'COPY') {
    const from = /^--from=(\S+)\s+/.exec(args);
    const parts = args.replace(/^--\S+\s+/g, '').split(/\s+/);
    const dest = parts.pop()!;
    const source = from ? stages.get(from[1]!) : null;
    if (from && !source) throw new Error(`COPY --from=${from[1]}: no such stage`);
    for (const src of parts) {
      const abs = source ? inStage(source, src) : path.join(context, src);
      if (!existsSync(abs)) throw new Error(`${line}: ${src} does not exist${source ? '' : ' in the build context (.dockerignore?)'}`);
      const target =
        dest.endsWith('/') || parts.length > 1 || statSync(abs).isDirectory()
          ? path.join(inStage(stage, dest), statSync(abs).isDirectory() ? '' : path.basename(src))
          : inStage(stage, dest);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(abs, target, { recursive: true, verbatimSymlinks: true });
    }
  } else if (op === 'RUN') {
    if (/^apt-get\b/.test(args)) {
      say(`skipped (toolchain): ${args.slice(0, 60)}…`);
      continue;
    }
    say(`RUN ${args}`);
    const r = spawnSync('sh', ['-c', args], { cwd: inStage(stage, '.'), env: { ...process.env, ...stage.env }, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`RUN ${args}: exit ${r.status}`);
  } else if (op === 'CMD') cmd = JSON.parse(args) as string[];
}
if (!stage) throw new Error('no FROM');

// The final image: the bundle where SWITCHYARD_WORKFLOW_BUNDLE says, and each process loads.
const final = stage;
const bundle = final.env.SWITCHYARD_WORKFLOW_BUNDLE;
if (!bundle || !existsSync(path.join(final.root, bundle))) throw new Error(`workflow bundle ${bundle} missing in the image`);
say(`workflow bundle: ${bundle} (${statSync(path.join(final.root, bundle)).size} bytes)`);
for (const entry of [cmd.at(-1)!, 'start/worker.ts']) {
  const args = [...cmd.slice(1, -1), entry];
  const r = spawnSync(cmd[0]!, args, { cwd: inStage(final, '.'), env: { PATH: process.env.PATH!, ...final.env }, encoding: 'utf8' });
  if (!/DATABASE_URL and TEMPORAL_ADDRESS are required/.test(r.stderr)) {
    throw new Error(`${cmd[0]} ${args.join(' ')} in the image did not reach its configuration check (exit ${r.status}):\n${r.stderr}`);
  }
  say(`${entry}: loads from production dependencies, stops asking for configuration`);
}
say('ok');
