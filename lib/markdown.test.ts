import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderMarkdown, slugify } from './markdown.js';

const html = (md: string, resolveLink?: (href: string) => string | null) => renderMarkdown(md, { resolveLink }).html;

describe('lib/markdown', () => {
  test('escapes text, code and raw HTML', () => {
    assert.equal(html('a <script>alert(1)</script> & "b"'), '<p>a &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;b&quot;</p>');
    assert.equal(html('use `<b>` here'), '<p>use <code>&lt;b&gt;</code> here</p>');
    assert.equal(html('```ts\nconst a = "<x>";\n```'), '<pre><code class="language-ts">const a = &quot;&lt;x&gt;&quot;;</code></pre>');
  });

  test('headings get GitHub ids, duplicates numbered, and the first h1 is the title', () => {
    const r = renderMarkdown('# The `switchyard` CLI\n\n## Agents: MCP and tools\n\n## Agents: MCP and tools');
    assert.equal(r.title, 'The switchyard CLI');
    assert.deepEqual(r.anchors, ['the-switchyard-cli', 'agents-mcp-and-tools', 'agents-mcp-and-tools-1']);
    assert.match(r.html, /<h2 id="agents-mcp-and-tools">Agents: MCP and tools<\/h2>/);
    assert.equal(slugify('Prerequisites and how long each step takes'), 'prerequisites-and-how-long-each-step-takes');
  });

  test('links: relative ones go through resolveLink, unsafe schemes lose their link', () => {
    const resolve = (href: string) => (href.endsWith('.md') ? `/docs/guide/${href.slice(0, -3)}` : null);
    assert.equal(html('[next](concepts.md) and [x](#top)', resolve), '<p><a href="/docs/guide/concepts">next</a> and <a href="#top">x</a></p>');
    assert.equal(html('[code](../lib/log.ts)', resolve), '<p><span class="link-off">code</span></p>');
    assert.equal(html('[bad](javascript:alert(1))', resolve), '<p><span class="link-off">bad</span></p>');
    assert.equal(html('[site](https://example.com/a?b=1&c="2")'), '<p><a href="https://example.com/a?b=1&amp;c=&quot;2&quot;">site</a></p>');
  });

  test('emphasis, but not inside identifiers', () => {
    assert.equal(html('**bold** and _em_ and snake_case_name'), '<p><strong>bold</strong> and <em>em</em> and snake_case_name</p>');
  });

  test('nested lists with lazy continuation lines and code blocks', () => {
    const md = '- one\n  two\n- three\n  - inner\n- four:\n\n  ```sh\n  npm test\n  ```\n\nafter';
    assert.equal(
      html(md),
      '<ul>\n<li>one\ntwo</li>\n<li>three\n<ul>\n<li>inner</li>\n</ul></li>\n<li><p>four:</p>\n<pre><code class="language-sh">npm test</code></pre></li>\n</ul>\n<p>after</p>',
    );
    assert.equal(html('1. a\n2. b'), '<ol>\n<li>a</li>\n<li>b</li>\n</ol>');
  });

  test('tables, with escaped pipes and pipes in code spans', () => {
    const md = '| a | b |\n|---|--:|\n| `x\\|y` | 1 \\| 2 |';
    assert.equal(
      html(md),
      '<div class="table-wrap"><table><thead><tr><th>a</th><th style="text-align:right">b</th></tr></thead><tbody><tr><td><code>x|y</code></td><td style="text-align:right">1 | 2</td></tr></tbody></table></div>',
    );
  });
});
