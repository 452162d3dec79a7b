/**
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile>… [top]` — self time by function and
 * by file from a V8 CPU profile (as written by `npm run bench -- <name> --cpu-prof`), and total
 * (inclusive) time of the heaviest frames, to find where a benchmark's time goes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
// Several files (a glob matching each process's profile) are summarised one after another.
const files = args.filter((a) => !/^\d+$/.test(a));
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
if (files.length === 0) {
  console.error('usage: bench/profile-summary.ts <file.cpuprofile>… [top]');
  process.exit(2);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Time per sample: the delta to the next sample.
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

  const short = (url: string) =>
    url
      .replace(/^file:\/\//, '')
      .replace(/^.*\/node_modules\//, 'npm:')
      .replace(ROOT, '');
  const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

  function table(title: string, m: Map<string, number>, limit: number) {
    console.log(`\n${title}`);
    for (const [k, v] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(`${(v / 1000).toFixed(0).padStart(8)} ms ${((100 * v) / totalUs).toFixed(1).padStart(5)}%  ${k}`);
    }
  }

  const selfByFn = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    selfByFn.set(label(n), (selfByFn.get(label(n)) ?? 0) + us);
    const f = short(n.callFrame.url) || `(${n.callFrame.functionName})`;
    selfByFile.set(f, (selfByFile.get(f) ?? 0) + us);
    // Inclusive: every distinct frame on the stack gets the sample once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  }
  console.log(`profile ${file}: ${(totalUs / 1e6).toFixed(1)} s sampled`);
  table('self time by function', selfByFn, top);
  table('self time by file', selfByFile, top);
  table('inclusive time by function', inclusive, top);
}

for (const file of files) summarize(file);
