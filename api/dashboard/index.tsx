/**
 * @module api/dashboard — the developer dashboard at /dashboard: server-rendered pages (hono/jsx)
 * over the same library functions the API routes use.
 *
 * Sign-in takes an environment's secret key and opens a session of that environment: an
 * HttpOnly, SameSite=Strict cookie (Secure over https) holding a random id whose hash is stored in
 * `dashboard_sessions` with an expiry; the key itself is never stored. Each environment has its own
 * session and cookie, and every page lives under `/dashboard/<env>/`, so the switcher moves between
 * environments signed in to and asks for the other environment's key otherwise: a dev key never
 * opens prod. Every form carries the session's CSRF token (the sign-in form a double-submit
 * cookie's), compared in constant time; a POST without it is refused.
 */
import { readFileSync } from 'node:fs';
import { Hono, type Context, type ErrorHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { listEnvironments, type Environment } from '../../features/environments/store.js';
import { Forbidden, NotFound, Unauthorized } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { errorResponse } from '../errors.js';
import { environmentForSecretKey } from '../middleware/auth.js';
import { connectionPages } from './connections.js';
import { noticeFrom, type DashEnv, type FormValue } from './context.js';
import { integrationPages } from './integrations.js';
import { providerPages } from './providers.js';
import { Bare, Csrf, Layout, renderPage, withQuery, type Notice } from './layout.js';
import { logPages } from './logs.js';
import {
  clearSessionCookie,
  COOKIE_PATH,
  csrfMatches,
  ENV_NAME,
  PRE_SESSION_COOKIE,
  preSessionToken,
  secureCookies,
  sessionCookie,
  sessionCookieName,
  setSessionCookie,
} from './session.js';
import { webhookPages } from './webhooks.js';
import { createSession, deleteSession, findSession } from '../../features/dashboard/sessions.js';

const ASSET_FILES: Record<string, { type: string; body: string }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./dashboard.css', import.meta.url), 'utf8') },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./dashboard.js', import.meta.url), 'utf8') },
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const FORM_LIMIT_BYTES = 64 * 1024;

function first(v: FormValue | undefined): string {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === 'string' ? x : '';
}

async function readForm(c: Context): Promise<Record<string, FormValue>> {
  try {
    return (await c.req.parseBody({ all: true })) as Record<string, FormValue>;
  } catch {
    return {};
  }
}

/** Only a path inside the environment's own dashboard is followed after sign-in. */
function safeNext(next: string, env: Environment): string {
  const base = `/dashboard/${env.name}/`;
  return next.startsWith(base) && !next.includes('//') && !next.includes('\\') && !/[\r\n]/.test(next) ? next : `${base}integrations`;
}

function SignInForm({ token, env, next, retry }: { token: string; env?: string; next?: string; retry?: boolean }) {
  return (
    <form method="post" action="/dashboard/sign-in" class="sign-in">
      <Csrf token={token} />
      {next && <input type="hidden" name="next" value={next} />}
      <div class="field">
        <label for="secret_key">Secret key{env ? ` of ${env}` : ''}</label>
        <input
          id="secret_key"
          name="secret_key"
          type="password"
          required
          autocomplete="off"
          spellcheck={false}
          aria-describedby="secret_key-hint"
          aria-invalid={retry ? 'true' : undefined}
          autofocus
        />
        <p class="hint" id="secret_key-hint">
          An environment's secret key (printed at start, or SWITCHYARD_SECRET_KEY_DEV / _PROD). The key decides which environment you enter; it is not kept by
          the browser or the server.
        </p>
      </div>
      <div class="actions">
        <button type="submit" class="btn btn-primary">
          Sign in
        </button>
      </div>
    </form>
  );
}

export function dashboardRoutes(deps: AppDeps): Hono<DashEnv> {
  const app = new Hono<DashEnv>();
  const secure = (c: Context) => secureCookies(c, deps.config.publicUrl);

  const onError: ErrorHandler<DashEnv> = async (err, c) => {
    let status: ContentfulStatusCode;
    let text: string;
    if (err instanceof HTTPException) {
      status = err.status as ContentfulStatusCode;
      text = err.status === 413 ? 'The form is too large.' : err.message;
    } else {
      const r = errorResponse(err);
      if (r.unexpected) deps.log.error({ reqId: c.get('requestId'), err, errorId: r.body.error.payload }, 'dashboard: unexpected error');
      status = r.status;
      text = r.body.error.message ?? r.body.error.code;
    }
    const notice: Notice = { kind: 'error', text };
    const title = status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'Request refused';
    const page = c.get('page');
    if (page) return renderPage(c, status, <Layout ctx={page} title={title} notice={notice} />);
    return renderPage(
      c,
      status,
      <Bare title={title} notice={notice}>
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </Bare>,
    );
  };
  app.onError(onError);

  const headers = async (c: Context, next: () => Promise<void>) => {
    await next();
    c.header('content-security-policy', CSP);
    c.header('x-frame-options', 'DENY');
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'same-origin');
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  };
  app.use('/dashboard', headers);
  app.use('/dashboard/*', headers);

  app.get('/dashboard/assets/:file', (c) => {
    const asset = ASSET_FILES[c.req.param('file')];
    if (!asset) throw new NotFound('not_found', 'No such file');
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=300' });
  });

  app.get('/dashboard', async (c) => {
    for (const env of await listEnvironments(deps.db)) {
      if (await findSession(deps.db, sessionCookie(c, env.name), env.name)) return c.redirect(`/dashboard/${env.name}/integrations`, 303);
    }
    return c.redirect('/dashboard/sign-in', 303);
  });

  async function signInPage(c: Context, status: ContentfulStatusCode, notice: Notice | null, retry = false) {
    const env = c.req.query('env');
    const envName = env && ENV_NAME.test(env) ? env : undefined;
    const next = c.req.query('next') ?? (c.req.method === 'POST' ? first((await readForm(c)).next) : undefined);
    return renderPage(
      c,
      status,
      <Bare title={envName ? `Sign in to ${envName}` : 'Sign in'} notice={notice}>
        <SignInForm token={preSessionToken(c, secure(c))} env={envName} next={next} retry={retry} />
      </Bare>,
    );
  }

  app.get('/dashboard/sign-in', (c) =>
    signInPage(c, 200, c.req.query('expired') ? { kind: 'error', text: 'Your session has ended. Sign in again.' } : noticeFrom(c)),
  );

  app.post('/dashboard/sign-in', bodyLimit({ maxSize: FORM_LIMIT_BYTES }), async (c) => {
    const form = await readForm(c);
    const expected = getCookie(c, PRE_SESSION_COOKIE);
    if (!expected || !csrfMatches(expected, first(form._csrf))) {
      return signInPage(c, 403, { kind: 'error', text: 'The sign-in form expired or did not come from this dashboard. Try again.' });
    }
    let env: Environment;
    try {
      // A full-access key: an environment's secret key or an `environment:*` API key.
      env = await environmentForSecretKey(deps, first(form.secret_key).trim());
    } catch (err) {
      if (!(err instanceof Unauthorized) && !(err instanceof Forbidden)) throw err;
      return signInPage(c, 401, { kind: 'error', text: 'That secret key does not match any environment.' }, true);
    }
    const { id } = await createSession(deps.db, env);
    setSessionCookie(c, env.name, id, secure(c));
    deleteCookie(c, PRE_SESSION_COOKIE, { path: COOKIE_PATH, secure: secure(c) });
    return c.redirect(safeNext(first(form.next), env), 303);
  });

  const scoped = new Hono<DashEnv>();
  scoped.onError(onError);
  scoped.use('*', bodyLimit({ maxSize: FORM_LIMIT_BYTES }), async (c, next) => {
    const envName = c.req.param('env') ?? '';
    if (!ENV_NAME.test(envName)) throw new NotFound('not_found', 'No such page');
    const cookie = sessionCookie(c, envName);
    const session = await findSession(deps.db, cookie, envName);
    if (!session) {
      if (cookie) clearSessionCookie(c, envName, secure(c));
      if (c.req.method === 'GET' || c.req.method === 'HEAD') {
        const url = new URL(c.req.url);
        return c.redirect(withQuery('/dashboard/sign-in', { env: envName, next: url.pathname + url.search, expired: cookie ? 1 : undefined }), 303);
      }
      return renderPage(
        c,
        401,
        <Bare title="Signed out" notice={{ kind: 'error', text: 'Your session has ended; nothing was changed.' }}>
          <p>
            <a href={withQuery('/dashboard/sign-in', { env: envName })}>Sign in again</a>
          </p>
        </Bare>,
      );
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      c.set('form', {});
    } else {
      const form = await readForm(c);
      if (!csrfMatches(session.csrfToken, first(form._csrf))) {
        return renderPage(
          c,
          403,
          <Bare
            title="Request refused"
            notice={{ kind: 'error', text: 'This form was not sent from your dashboard session (missing or wrong CSRF token); nothing was changed.' }}
          >
            <p>
              <a href={`/dashboard/${envName}/integrations`}>Back to the dashboard</a>
            </p>
          </Bare>,
        );
      }
      c.set('form', form);
    }
    const envs = (await listEnvironments(deps.db)).map((e) => ({ name: e.name, signedIn: !!getCookie(c, sessionCookieName(e.name)) }));
    c.set('session', session);
    c.set('environment', session.environment);
    c.set('page', { env: session.environment, csrf: session.csrfToken, envs, base: `/dashboard/${envName}`, publicUrl: deps.config.publicUrl });
    await next();
  });

  scoped.get('/', (c) => c.redirect(`${c.get('page').base}/integrations`, 303));
  scoped.post('/sign-out', async (c) => {
    await deleteSession(deps.db, c.get('session'));
    clearSessionCookie(c, c.get('page').env.name, secure(c));
    return c.redirect('/dashboard/sign-in?notice=signed-out', 303);
  });
  integrationPages(deps, scoped);
  providerPages(deps, scoped);
  connectionPages(deps, scoped);
  logPages(deps, scoped);
  webhookPages(deps, scoped);
  scoped.all('*', () => {
    throw new NotFound('not_found', 'No such page');
  });

  app.route('/dashboard/:env', scoped);
  return app;
}
