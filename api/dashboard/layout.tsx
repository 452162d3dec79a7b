/**
 * @module api/dashboard/layout — the page frame (skip link, environment switcher, sections,
 * sign-out) and the small components every page uses. Server-rendered with hono/jsx: every
 * interpolated value is escaped.
 */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Environment } from '../../features/environments/store.js';

export type Section = 'integrations' | 'providers' | 'connections' | 'logs' | 'runs' | 'webhooks';

export interface PageContext {
  env: Environment;
  csrf: string;
  /** Every environment, and whether this browser holds a session cookie for it. */
  envs: { name: string; signedIn: boolean }[];
  /** `/dashboard/<env>` */
  base: string;
  publicUrl: string;
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

const SECTIONS: [Section, string][] = [
  ['integrations', 'Integrations'],
  ['providers', 'Providers'],
  ['connections', 'Connections'],
  ['logs', 'Request logs'],
  ['runs', 'Runs'],
  ['webhooks', 'Webhooks'],
];

export const ASSETS = '/dashboard/assets';

/** Writes the document with its doctype; status as given. */
export async function renderPage(c: Context, status: ContentfulStatusCode, element: Child): Promise<Response> {
  return c.html(`<!doctype html>${String(await element)}`, status);
}

function Head({ title }: { title: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{`${title} · Switchyard`}</title>
      <link rel="stylesheet" href={`${ASSETS}/dashboard.css`} />
      <script src={`${ASSETS}/dashboard.js`} defer></script>
    </head>
  );
}

export function NoticeBox({ notice }: { notice?: Notice | null }) {
  if (!notice) return null;
  return notice.kind === 'error' ? (
    <div class="notice notice-error" role="alert">
      {notice.text}
    </div>
  ) : (
    <div class="notice notice-ok" role="status">
      {notice.text}
    </div>
  );
}

export function Layout(props: { ctx: PageContext; section?: Section; title: string; notice?: Notice | null; children?: Child; crumbs?: [string, string][] }) {
  const { ctx } = props;
  return (
    <html lang="en">
      <Head title={props.title} />
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href={`${ctx.base}/integrations`}>
            Switchyard
          </a>
          <nav class="env-switcher" aria-label="Environment">
            <span class="env-label" id="env-label">
              Environment
            </span>
            <ul aria-labelledby="env-label">
              {ctx.envs.map((e) => (
                <li>
                  <a
                    href={e.signedIn ? `/dashboard/${e.name}/integrations` : `/dashboard/sign-in?env=${encodeURIComponent(e.name)}`}
                    aria-current={e.name === ctx.env.name ? 'page' : undefined}
                    class={e.name === ctx.env.name ? 'env env-current' : 'env'}
                  >
                    {e.name}
                    {e.signedIn ? '' : <span class="env-hint"> (sign in)</span>}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <form method="post" action={`${ctx.base}/sign-out`} class="sign-out">
            <Csrf token={ctx.csrf} />
            <button type="submit" class="btn btn-quiet">
              Sign out of {ctx.env.name}
            </button>
          </form>
        </header>
        <div class="shell">
          <nav class="sections" aria-label="Sections">
            <ul>
              {SECTIONS.map(([s, label]) => (
                <li>
                  <a href={`${ctx.base}/${s}`} aria-current={s === props.section ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main" tabindex={-1}>
            {props.crumbs && props.crumbs.length > 0 && (
              <nav aria-label="Breadcrumb" class="crumbs">
                <ol>
                  {props.crumbs.map(([href, label]) => (
                    <li>
                      <a href={href}>{label}</a>
                    </li>
                  ))}
                </ol>
              </nav>
            )}
            <h1>{props.title}</h1>
            <NoticeBox notice={props.notice} />
            {props.children}
          </main>
        </div>
      </body>
    </html>
  );
}

/** A page outside a session (sign-in, errors before sign-in). */
export function Bare(props: { title: string; notice?: Notice | null; children?: Child }) {
  return (
    <html lang="en">
      <Head title={props.title} />
      <body class="bare">
        <main id="main" class="bare-main">
          <p class="brand">Switchyard</p>
          <h1>{props.title}</h1>
          <NoticeBox notice={props.notice} />
          {props.children}
        </main>
      </body>
    </html>
  );
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** A read-only value with a copy button (the button works once dashboard.js has loaded). */
export function CopyField({ id, label, value, hint }: { id: string; label: string; value: string; hint?: string }) {
  return (
    <div class="field copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} type="text" readonly value={value} aria-describedby={hint ? `${id}-hint` : undefined} />
        <button type="button" class="btn" data-copy={id}>
          Copy<span class="sr-only"> {label}</span>
        </button>
        <span class="copy-status" role="status" data-copy-status={id}></span>
      </div>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function When({ at }: { at: Date | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const iso = at.toISOString();
  return (
    <time datetime={iso} title={iso}>
      {iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}
    </time>
  );
}

export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'error' | 'neutral'; children?: Child }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

export function statusTone(status: string | number | null | undefined): 'ok' | 'warn' | 'error' | 'neutral' {
  if (typeof status === 'number') return status < 400 ? 'ok' : 'error';
  switch (status) {
    case 'ok':
    case 'success':
    case 'delivered':
    case 'SUCCESS':
      return 'ok';
    case 'failing':
    case 'error':
    case 'dead':
    case 'ERROR':
      return 'error';
    case 'running':
    case 'pending':
    case 'paused':
      return 'warn';
    default:
      return 'neutral';
  }
}

export function Json({ value, label }: { value: unknown; label?: string }) {
  if (value === null || value === undefined) return <p class="muted">None</p>;
  return (
    <pre class="json" tabindex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** `href` with the query parameters given (empty ones dropped). */
export function withQuery(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export function Empty({ children }: { children?: Child }) {
  return <p class="empty">{children}</p>;
}
