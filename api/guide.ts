/**
 * @module api/guide — the guide served at /docs/guide: README.md, docs/*.md and docs/decisions/*.md,
 * read and rendered once (lib/markdown.ts), with relative links between them rewritten to their
 * /docs/guide URLs. The side list follows the order in which docs/README.md links its pages.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderMarkdown } from '../lib/markdown.js';

export const GUIDE_PATH = '/docs/guide';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface GuideEntry {
  href: string;
  title: string;
  html: string;
}

export interface Guide {
  /** By slug: '' the index (docs/README.md), 'readme' the repository's README, 'decisions/temporal', … */
  pages: Map<string, GuideEntry>;
  /** The side list: the index, then the pages in the order docs/README.md links them. */
  order: { href: string; label: string }[];
}

/** The slug of a repository-relative file the guide serves, else null. */
export function guideSlug(file: string): string | null {
  if (file === 'README.md') return 'readme';
  const m = /^docs\/(decisions\/)?([a-z0-9-]+|README)\.md$/.exec(file);
  if (!m) return null;
  const folder = m[1] ? 'decisions' : '';
  if (m[2] === 'README') return folder;
  return folder ? `${folder}/${m[2]}` : m[2]!;
}

export const guideHref = (slug: string): string => (slug ? `${GUIDE_PATH}/${slug}` : GUIDE_PATH);

/** The repository file a relative link of `from` names (`#fragment` and query left out). */
export function linkTarget(from: string, href: string): string {
  const file = href.split('#')[0]!.split('?')[0]!;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), file));
  return file.endsWith('/') || joined === 'docs' || joined === 'docs/decisions' ? `${joined.replace(/\/$/, '')}/README.md` : joined;
}

function files(): string[] {
  const md = (dir: string) =>
    readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${dir}/${f}`);
  return ['README.md', ...md('docs'), ...md('docs/decisions')];
}

function load(): Guide {
  const sources = new Map(files().map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));
  const known = new Set([...sources.keys()].map(guideSlug).filter((s): s is string => s !== null));
  const pages = new Map<string, GuideEntry>();
  for (const [file, md] of sources) {
    const slug = guideSlug(file)!;
    const resolveLink = (href: string) => {
      const target = guideSlug(linkTarget(file, href));
      if (target === null || !known.has(target)) return null;
      const fragment = href.includes('#') ? href.slice(href.indexOf('#')) : '';
      return guideHref(target) + fragment;
    };
    const r = renderMarkdown(md, { resolveLink });
    pages.set(slug, { href: guideHref(slug), title: r.title ?? slug, html: r.html });
  }
  const index = sources.get('docs/README.md') ?? '';
  const linked = [...index.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => guideSlug(linkTarget('docs/README.md', m[1]!)));
  const slugs = [...new Set(['', ...linked.filter((s): s is string => s !== null && pages.has(s))])];
  return { pages, order: slugs.map((s) => ({ href: guideHref(s), label: s === '' ? 'Contents' : pages.get(s)!.title })) };
}

let loaded: Guide | null = null;

/** The guide, loaded on first use. */
export function guide(): Guide {
  loaded ??= load();
  return loaded;
}
