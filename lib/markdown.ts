/**
 * @module lib/markdown — a small Markdown → HTML renderer for the subset the project's docs use:
 * ATX headings (with GitHub-style ids), paragraphs, bullet and ordered lists (nested), fenced code
 * blocks, block quotes, pipe tables, inline code, links, **strong** and _emphasis_. Every piece of
 * text is HTML-escaped; raw HTML in the source is shown as text, never passed through.
 *
 * Links: `#anchor`, http(s) and mailto URLs are kept; any other target goes to `resolveLink`, which
 * returns the URL to use or null (the link text is then shown without a link). So a page never
 * carries a `javascript:` or other scheme it was not meant to.
 */

export interface RenderOptions {
  /** The URL of a relative link target (`other.md#x`, `../src/file.ts`), or null to drop the link. */
  resolveLink?: (href: string) => string | null;
}

export interface Rendered {
  html: string;
  /** The text of the first level-1 heading, if any. */
  title: string | null;
  /** Every heading's id, in order (GitHub's slugs: what `page.md#id` links name). */
  anchors: string[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** GitHub's heading id: lowercased, punctuation dropped, spaces to hyphens (duplicates get -1, -2, … from the caller). */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The plain text of inline Markdown (for heading ids and titles). */
export function plainText(md: string): string {
  return md
    .replace(/\\([\\`*_[\]()#|!<>-])/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](.+?)[*_](?=\W|$)/g, '$1$2');
}

// The closing mark of an emphasis: after a non-space, not followed by a letter, digit or the same mark.
const EM_STAR_CLOSE = /[^\s\\]\*(?![\p{L}\p{N}*])/u;
const EM_UNDERSCORE_CLOSE = /[^\s\\]_(?![\p{L}\p{N}_])/u;
const SAFE_URL = /^(https?:|mailto:)/i;

class Renderer {
  private readonly anchors: string[] = [];
  private readonly seen = new Map<string, number>();
  private title: string | null = null;

  constructor(private readonly opts: RenderOptions) {}

  render(md: string): Rendered {
    const html = this.blocks(md.replace(/\r\n?/g, '\n').split('\n'), false);
    return { html, title: this.title, anchors: this.anchors };
  }

  private blocks(lines: string[], tight: boolean): string {
    const out: string[] = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i]!;
      if (line.trim() === '') {
        i++;
        continue;
      }
      const fence = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
      if (fence) {
        const [, indent, mark, lang] = fence;
        const body: string[] = [];
        i++;
        while (i < lines.length && !new RegExp(`^\\s*${mark![0] === '`' ? '`' : '~'}{${mark!.length},}\\s*$`).test(lines[i]!)) {
          body.push(lines[i]!.startsWith(indent!) ? lines[i]!.slice(indent!.length) : lines[i]!.trimStart());
          i++;
        }
        i++;
        const cls = lang ? ` class="language-${escapeHtml(lang)}"` : '';
        out.push(`<pre><code${cls}>${escapeHtml(body.join('\n'))}</code></pre>`);
        continue;
      }
      const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
      if (heading) {
        out.push(this.heading(heading[1]!.length, heading[2]!));
        i++;
        continue;
      }
      if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
        out.push('<hr>');
        i++;
        continue;
      }
      if (isTableStart(lines, i)) {
        const rows: string[] = [];
        while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(lines[i++]!);
        out.push(this.table(rows));
        continue;
      }
      if (/^\s{0,3}>/.test(line)) {
        const inner: string[] = [];
        while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) inner.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ''));
        out.push(`<blockquote>${this.blocks(inner, false)}</blockquote>`);
        continue;
      }
      if (listMarker(line)) {
        i = this.list(lines, i, out);
        continue;
      }
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (para.length === 0 || !startsBlock(lines, i))) para.push(lines[i++]!.trim());
      const text = this.inline(para.join('\n'));
      out.push(tight ? text : `<p>${text}</p>`);
    }
    return out.join('\n');
  }

  private heading(level: number, source: string): string {
    const base = slugify(plainText(source));
    const n = this.seen.get(base) ?? 0;
    this.seen.set(base, n + 1);
    const id = n === 0 ? base : `${base}-${n}`;
    this.anchors.push(id);
    if (level === 1 && this.title === null) this.title = plainText(source);
    return `<h${level} id="${escapeHtml(id)}">${this.inline(source)}</h${level}>`;
  }

  /** One list from lines[start]; returns the index after it. */
  private list(lines: string[], start: number, out: string[]): number {
    const first = listMarker(lines[start]!)!;
    const items: string[][] = [];
    let loose = false;
    let i = start;
    while (i < lines.length) {
      const m = listMarker(lines[i]!);
      if (!m || m.indent !== first.indent || m.ordered !== first.ordered) break;
      const item = [lines[i]!.slice(m.width)];
      i++;
      while (i < lines.length) {
        const l = lines[i]!;
        if (l.trim() === '') {
          // A blank line continues the item only when indented content follows.
          const next = lines.slice(i + 1).find((x) => x.trim() !== '');
          if (next === undefined || indentOf(next) < m.width) break;
          item.push('');
          i++;
          continue;
        }
        if (indentOf(l) >= m.width) item.push(l.slice(m.width));
        else if (item[item.length - 1] !== '' && !startsBlock(lines, i))
          item.push(l.trim()); // a lazy continuation line
        else break;
        i++;
      }
      items.push(item);
      // A blank line between items makes the list loose.
      if (i < lines.length && lines[i]!.trim() === '') {
        const next = lines.slice(i).findIndex((x) => x.trim() !== '');
        const m2 = next >= 0 ? listMarker(lines[i + next]!) : null;
        if (!m2 || m2.indent !== first.indent || m2.ordered !== first.ordered) break;
        loose = true;
        i += next;
      }
    }
    const tag = first.ordered ? 'ol' : 'ul';
    const startAttr = first.ordered && first.start !== 1 ? ` start="${first.start}"` : '';
    const body = items.map((item) => `<li>${this.blocks(item, !loose && !item.includes(''))}</li>`).join('\n');
    out.push(`<${tag}${startAttr}>\n${body}\n</${tag}>`);
    return i;
  }

  private table(rows: string[]): string {
    const [head, align, ...body] = rows.map(splitRow);
    const aligns = align!.map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : null));
    const cell = (tag: string, text: string, k: number) => `<${tag}${aligns[k] ? ` style="text-align:${aligns[k]}"` : ''}>${this.inline(text)}</${tag}>`;
    const thead = `<thead><tr>${head!.map((c, k) => cell('th', c, k)).join('')}</tr></thead>`;
    const tbody = body.map((r) => `<tr>${head!.map((_, k) => cell('td', r[k] ?? '', k)).join('')}</tr>`).join('\n');
    return `<div class="table-wrap"><table>${thead}<tbody>${tbody}</tbody></table></div>`;
  }

  inline(s: string): string {
    let out = '';
    let i = 0;
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\' && i + 1 < s.length && /[\\`*_[\]()#|!<>{}.+-]/.test(s[i + 1]!)) {
        out += escapeHtml(s[i + 1]!);
        i += 2;
        continue;
      }
      if (c === '`') {
        const run = /^`+/.exec(s.slice(i))![0];
        const end = s.indexOf(run, i + run.length);
        if (end > 0 && s[end + run.length] !== '`') {
          let code = s.slice(i + run.length, end).replace(/\n/g, ' ');
          if (/^ .* $/.test(code)) code = code.slice(1, -1);
          out += `<code>${escapeHtml(code)}</code>`;
          i = end + run.length;
          continue;
        }
        out += escapeHtml(run);
        i += run.length;
        continue;
      }
      if (c === '[' || (c === '!' && s[i + 1] === '[')) {
        const link = parseLink(s, c === '!' ? i + 1 : i);
        if (link) {
          out += this.link(link.text, link.href);
          i = link.end;
          continue;
        }
      }
      if ((c === '*' || c === '_') && s[i + 1] === c) {
        const end = s.indexOf(c + c, i + 2);
        if (end > i + 2) {
          out += `<strong>${this.inline(s.slice(i + 2, end))}</strong>`;
          i = end + 2;
          continue;
        }
      }
      if ((c === '*' || c === '_') && s[i + 1] !== c && s[i + 1] !== ' ' && (i === 0 || !/[\p{L}\p{N}]/u.test(s[i - 1]!))) {
        const close = (c === '*' ? EM_STAR_CLOSE : EM_UNDERSCORE_CLOSE).exec(s.slice(i + 1));
        if (close) {
          const end = i + 1 + close.index + 1;
          out += `<em>${this.inline(s.slice(i + 1, end))}</em>`;
          i = end + 1;
          continue;
        }
      }
      if (c === '\n') {
        out += '\n';
        i++;
        continue;
      }
      out += escapeHtml(c);
      i++;
    }
    return out;
  }

  private link(text: string, href: string): string {
    const label = this.inline(text);
    let url: string | null;
    if (href.startsWith('#')) url = href;
    else if (SAFE_URL.test(href)) url = href;
    else if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) url = null;
    else url = this.opts.resolveLink ? this.opts.resolveLink(href) : href;
    return url === null ? `<span class="link-off">${label}</span>` : `<a href="${escapeHtml(url)}">${label}</a>`;
  }
}

/** `[text](href)` starting at s[start] === '['; nested brackets and one level of parentheses in href. */
function parseLink(s: string, start: number): { text: string; href: string; end: number } | null {
  let depth = 0;
  let k = start;
  for (; k < s.length; k++) {
    if (s[k] === '\\') k++;
    else if (s[k] === '`') {
      const close = s.indexOf('`', k + 1);
      if (close < 0) return null;
      k = close;
    } else if (s[k] === '[') depth++;
    else if (s[k] === ']' && --depth === 0) break;
  }
  if (k >= s.length || s[k + 1] !== '(') return null;
  let paren = 0;
  let j = k + 2;
  for (; j < s.length; j++) {
    if (s[j] === '(') paren++;
    else if (s[j] === ')' && paren-- === 0) break;
    else if (/\s/.test(s[j]!)) return null;
  }
  if (j >= s.length) return null;
  return { text: s.slice(start + 1, k), href: s.slice(k + 2, j), end: j + 1 };
}

function indentOf(line: string): number {
  return /^ */.exec(line)![0].length;
}

function listMarker(line: string): { indent: number; width: number; ordered: boolean; start: number } | null {
  const m = /^( *)([-*+]|(\d{1,9})[.)])( +)(?=\S)/.exec(line);
  if (!m) return null;
  return { indent: m[1]!.length, width: m[0].length, ordered: m[3] !== undefined, start: m[3] ? Number(m[3]) : 1 };
}

const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function isTableStart(lines: string[], i: number): boolean {
  return lines[i]!.includes('|') && i + 1 < lines.length && lines[i + 1]!.includes('-') && TABLE_RULE.test(lines[i + 1]!);
}

/** A line that starts a block other than a paragraph (so it ends the paragraph before it). */
function startsBlock(lines: string[], i: number): boolean {
  const l = lines[i]!;
  return /^\s*(`{3,}|~{3,})/.test(l) || /^#{1,6}\s/.test(l) || /^\s{0,3}>/.test(l) || listMarker(l) !== null || isTableStart(lines, i);
}

/** The cells of `| a | b |`, splitting on pipes outside code spans and not escaped. */
function splitRow(row: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let inCode = false;
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let k = 0; k < body.length; k++) {
    const c = body[k]!;
    if (c === '\\' && body[k + 1] === '|') {
      // GitHub's rule: an escaped pipe is a pipe, in a code span too.
      cur += inCode ? '|' : '\\|';
      k++;
    } else if (c === '`') {
      inCode = !inCode;
      cur += c;
    } else if (c === '|' && !inCode) {
      cells.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  cells.push(cur.trim());
  return cells;
}

export function renderMarkdown(md: string, opts: RenderOptions = {}): Rendered {
  return new Renderer(opts).render(md);
}
