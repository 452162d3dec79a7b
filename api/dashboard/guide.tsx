/**
 * @module api/dashboard/guide — the frame of the guide's pages at /docs/guide: the dashboard's look
 * (topbar, a side list of pages, its CSS) around a page of docs/ that lib/markdown.ts rendered
 * (already HTML-escaped there, so it is inserted as it is).
 */
import { raw } from 'hono/html';
import { ASSETS } from './layout.js';

export interface GuideLink {
  href: string;
  label: string;
}

export function GuidePage(props: { title: string; pages: GuideLink[]; current: string | null; body: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Switchyard guide`}</title>
        <link rel="stylesheet" href={`${ASSETS}/dashboard.css`} />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href="/docs/guide">
            Switchyard guide
          </a>
          <nav class="guide-nav" aria-label="Site">
            <a href="/docs">API reference</a>
            <a href="/dashboard">Dashboard</a>
          </nav>
        </header>
        <div class="shell">
          <nav class="sections" aria-label="Guide pages">
            <ul>
              {props.pages.map((p) => (
                <li>
                  <a href={p.href} aria-current={p.href === props.current ? 'page' : undefined}>
                    {p.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main" tabindex={-1}>
            <article class="guide">{raw(props.body)}</article>
          </main>
        </div>
      </body>
    </html>
  );
}
