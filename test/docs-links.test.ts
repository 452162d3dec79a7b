/**
 * The docs cannot rot silently: every relative link of README.md and docs/**\/*.md names a file that
 * exists (and, into a Markdown page, a heading that exists), and every command they show that runs
 * our CLI (`switchyard …`, `npx switchyard …`, `npm run cli -- …`) or an npm script (`npm run …`,
 * `npm test`, `npm start`) names a command and flags that `switchyard --help` (and the command's own
 * `--help`) lists, or a script of package.json. No platform: the CLI's help is its real output.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { renderMarkdown } from '../lib/markdown.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
    );
  return ['README.md', ...walk('docs')];
}

/** The fenced code blocks of a Markdown file, and the text outside them. */
function splitFences(md: string): { code: { lang: string; body: string }[]; prose: string } {
  const code: { lang: string; body: string }[] = [];
  const prose: string[] = [];
  let open: { lang: string; lines: string[]; mark: string } | null = null;
  for (const line of md.split('\n')) {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
    if (open) {
      if (fence && fence[1]!.startsWith(open.mark) && fence[2] === '') {
        code.push({ lang: open.lang, body: open.lines.join('\n') });
        open = null;
      } else open.lines.push(line.trim());
    } else if (fence) open = { lang: fence[2]!, lines: [], mark: fence[1]! };
    else prose.push(line);
  }
  return { code, prose: prose.join('\n') };
}

/** `[text](href)` targets in prose, code spans left out. */
function linksOf(prose: string): string[] {
  const text = prose.replace(/(`+)[\s\S]*?\1/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** A shell line's words, quotes honoured (a quoted flag is not a flag). */
function words(line: string): { text: string; quoted: boolean }[] {
  const out: { text: string; quoted: boolean }[] = [];
  const re = /'([^']*)'|"((?:\\.|[^"])*)"|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[3] !== undefined ? { text: m[3], quoted: false } : { text: m[1] ?? m[2]!, quoted: true });
  return out;
}

/** The commands of a shell snippet: continuation lines joined, comments dropped, split on && || ; |. */
function commandsOf(snippet: string): string[][] {
  const joined = snippet.replace(/\\\n/g, ' ');
  const out: string[][] = [];
  for (const line of joined.split('\n')) {
    let current: string[] = [];
    for (const w of words(line)) {
      if (!w.quoted && w.text.startsWith('#')) break;
      if (!w.quoted && ['&&', '||', ';', '|'].includes(w.text)) {
        out.push(current);
        current = [];
      } else current.push(w.quoted ? `'${w.text}'` : w.text);
    }
    out.push(current);
  }
  return out.filter((c) => c.length > 0);
}

interface CliHelp {
  commands: Set<string>;
  /** Flags a command accepts: its own help's and the global options'. */
  flags(command: string): Set<string>;
}

const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b/g)].map((m) => m[1]!));

function cliHelp(): CliHelp {
  const run = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', 'cli/index.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
  const global = run('--help');
  const commands = new Set([...global.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!));
  const options = global.slice(global.indexOf('Options:'));
  const perCommand = new Map([...commands].map((c) => [c, run(c, '--help')]));
  return { commands, flags: (c) => new Set([...flagsIn(options), ...flagsIn(perCommand.get(c) ?? '')]) };
}

const scripts = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

/** What is wrong with one command of the docs, or null; commands of other tools are not ours to check. */
function checkCommand(words: string[], help: CliHelp, npmScripts: readonly string[]): string | null {
  const w = words
    .slice(words.findIndex((x) => !/^[A-Z_][A-Z0-9_]*=/.test(x)))
    // `[--input json]`: an optional part of a synopsis is checked as the flag it holds.
    .map((x, k) => (k === 0 ? x : x.replace(/^\[+|\]+$/g, '')));
  let cli: string[] | null = null;
  if (w[0] === 'switchyard') cli = w.slice(1);
  else if (w[0] === 'npx' && w[1] === 'switchyard') cli = w.slice(2);
  else if (w[0] === 'npm' && w[1] === 'run' && w[2] === 'cli') cli = w.slice(w[3] === '--' ? 4 : 3);
  else if (w[0] === 'npm' && (w[1] === 'run' || w[1] === 'run-script')) {
    if (!w[2] || w[2].startsWith('<')) return null;
    return npmScripts.includes(w[2]) ? null : `npm script "${w[2]}" is not in package.json`;
  } else if (w[0] === 'npm' && (w[1] === 'test' || w[1] === 'start' || w[1] === 't')) {
    return npmScripts.includes(w[1] === 't' ? 'test' : w[1]) ? null : `npm script "${w[1]}" is not in package.json`;
  }
  if (!cli) return null;
  const command = cli.find((x) => !x.startsWith('-'));
  if (command && !command.startsWith('<') && !help.commands.has(command)) return `switchyard has no command "${command}" (switchyard --help)`;
  const known = command && help.commands.has(command) ? help.flags(command) : help.flags('');
  for (const x of cli) {
    if (!x.startsWith('-') || x === '-' || x === '--') continue;
    const flag = x.split('=')[0]!;
    if (!known.has(flag)) return `switchyard ${command ?? ''} does not know ${flag} (its --help)`;
  }
  return null;
}

/** The commands a page shows: in shell code blocks, and in inline code spans that start like one. */
function commandsOfPage(md: string): string[][] {
  const { code, prose } = splitFences(md);
  const blocks = code.filter((b) => ['', 'sh', 'bash', 'shell', 'console'].includes(b.lang)).map((b) => b.body);
  const spans = [...prose.matchAll(/(`+)([\s\S]*?)\1/g)]
    .map((m) => m[2]!.replace(/\n/g, ' '))
    .filter((s) => /^(npx switchyard|switchyard|npm (run|test|start))\b(?![/-])/.test(s.trim()));
  return [...blocks, ...spans].flatMap(commandsOf);
}

function anchorsOf(file: string): string[] {
  return renderMarkdown(readFileSync(path.join(ROOT, file), 'utf8')).anchors;
}

/** What is wrong with one link of `from`, or null. */
function checkLink(from: string, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return null;
  const [file, fragment] = href.split('#') as [string, string | undefined];
  const target = file === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), file.split('?')[0]!));
  if (target.startsWith('..') || !existsSync(path.join(ROOT, target))) return `${href}: no such file ${target}`;
  if (fragment && target.endsWith('.md') && statSync(path.join(ROOT, target)).isFile() && !anchorsOf(target).includes(fragment))
    return `${href}: ${target} has no heading #${fragment}`;
  return null;
}

describe('the docs', () => {
  const files = markdownFiles();

  test('README.md is the front door: at most 250 lines', () => {
    assert.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length <= 251);
  });

  test('every relative link resolves to a file, and an anchor to a heading of it', () => {
    const problems = files.flatMap((f) =>
      linksOf(splitFences(readFileSync(path.join(ROOT, f), 'utf8')).prose).map((href) => checkLink(f, href) && `${f}: ${checkLink(f, href)}`),
    );
    const checked = files.flatMap((f) => linksOf(splitFences(readFileSync(path.join(ROOT, f), 'utf8')).prose)).length;
    assert.ok(checked > 50, `only ${checked} links found`);
    assert.deepEqual(problems.filter(Boolean), []);
  });

  test('every command of our CLI and every npm script they show exists', () => {
    const help = cliHelp();
    assert.ok(help.commands.has('deploy') && help.flags('deploy').has('--activate'), 'the help was read');
    let checked = 0;
    const problems: string[] = [];
    for (const f of files) {
      for (const cmd of commandsOfPage(readFileSync(path.join(ROOT, f), 'utf8'))) {
        const problem = checkCommand(cmd, help, scripts);
        if (/^(npx |npm |switchyard)/.test(cmd.join(' '))) checked++;
        if (problem) problems.push(`${f}: ${cmd.join(' ')} → ${problem}`);
      }
    }
    assert.ok(checked > 20, `only ${checked} commands found`);
    assert.deepEqual(problems, []);
  });
});
