/**
 * The hosted Connect UI. Two ways in: a hosted link (`/connect-ui/?session_token=…`) or an iframe
 * opened by `openConnectUI()` (`/connect-ui/?apiURL=…`), which receives the token through the
 * postMessage handshake (`ready` → `session_token`) and reports `connect` / `error` / `close`.
 */

/* global location, URLSearchParams */

import { AuthError, Switchyard } from '../sdk.js';

const query = new URLSearchParams(location.search);
const apiURL = (query.get('apiURL') || location.origin).replace(/\/+$/, '');
const embedded = window.parent !== window;

/** @type {string | null} */
let token = query.get('session_token');
/** @type {any} */
let session = null;
/** @type {any[]} */
let integrations = [];
/** @type {Map<string, Promise<any>>} */
const providers = new Map();
let loadSeq = 0;
let busy = false;

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const el = {
  title: $('title'),
  status: $('status'),
  alert: $('alert'),
  back: /** @type {HTMLButtonElement} */ ($('back')),
  close: /** @type {HTMLButtonElement} */ ($('close')),
  listView: $('list-view'),
  list: $('integrations'),
  listFilter: /** @type {HTMLFormElement} */ ($('list-filter')),
  search: /** @type {HTMLInputElement} */ ($('list-search')),
  categoryField: $('list-category-field'),
  category: /** @type {HTMLSelectElement} */ ($('list-category')),
  listCount: $('list-count'),
  listNone: $('list-none'),
  formView: $('form-view'),
  formIntro: $('form-intro'),
  form: /** @type {HTMLFormElement} */ ($('connect-form')),
  fields: $('fields'),
  submit: /** @type {HTMLButtonElement} */ ($('submit')),
  doneView: $('done-view'),
  doneMessage: $('done-message'),
  done: /** @type {HTMLButtonElement} */ ($('done')),
};

/** @param {Record<string, unknown>} message */
function toParent(message) {
  // The embedding page's origin is not known to us; the parent SDK checks ours.
  if (embedded) window.parent.postMessage(message, '*');
}

function closeUI() {
  toParent({ type: 'close' });
}

/** @param {string} text */
function setStatus(text) {
  el.status.textContent = text;
  el.status.hidden = text === '';
}

/** @param {string} text */
function showAlert(text) {
  el.alert.textContent = text;
  el.alert.hidden = text === '';
}

/**
 * @param {'list' | 'form' | 'done' | 'none'} view
 * @param {string} title
 */
function showView(view, title) {
  el.listView.hidden = view !== 'list';
  el.formView.hidden = view !== 'form';
  el.doneView.hidden = view !== 'done';
  el.title.textContent = title;
  el.back.hidden = view !== 'form' || integrations.length < 2 || Boolean(session?.isReconnecting);
  el.title.focus();
}

/**
 * GET on the API with the session token; the response must be a 200 without an `error` key.
 * @param {string} path
 */
async function api(path) {
  let res;
  try {
    res = await fetch(`${apiURL}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  } catch {
    throw new AuthError('The Switchyard API could not be reached.', 'network_error');
  }
  const json = await res.json().catch(() => null);
  if (res.status !== 200 || !json || json.error) {
    const error = json?.error ?? {};
    throw new AuthError(error.message ?? `Request failed with status ${res.status}`, error.code ?? 'unknown_error');
  }
  return json;
}

/** @param {string} provider */
function providerInfo(provider) {
  if (!providers.has(provider)) {
    const p = api(`/providers/${encodeURIComponent(provider)}`).then((r) => r.data);
    p.catch(() => providers.delete(provider));
    providers.set(provider, p);
  }
  return /** @type {Promise<any>} */ (providers.get(provider));
}

/** @param {unknown} err */
function describeError(err) {
  const type = err instanceof AuthError ? err.type : 'unknown_error';
  const message = err instanceof Error ? err.message : 'Something went wrong.';
  return { type, message };
}

async function load() {
  const seq = ++loadSeq;
  showAlert('');
  setStatus('Loading…');
  try {
    const [s, list] = await Promise.all([api('/connect/session'), api('/integrations')]);
    if (seq !== loadSeq) return;
    session = s.data;
    integrations = list.data;
    applyTheme(session.connectUISettings);
    setStatus('');
    if (integrations.length === 0) {
      showView('none', 'Nothing to connect');
      setStatus('No integration is available for this session.');
    } else if (integrations.length === 1) {
      await showIntegration(integrations[0]);
    } else {
      showList();
    }
  } catch (err) {
    if (seq !== loadSeq) return;
    const { type, message } = describeError(err);
    showView('none', 'Cannot connect');
    setStatus('');
    showAlert(
      type === 'unknown_connect_session_token' || type === 'invalid_connect_session_token_format'
        ? 'This link is invalid or has expired. Ask for a new one.'
        : message,
    );
    toParent({ type: 'error', payload: { errorType: type, errorMessage: message } });
  }
}

/** @param {any} settings */
function applyTheme(settings) {
  const primary = settings?.theme?.light?.primary;
  if (typeof primary === 'string' && /^#[0-9a-f]{3,8}$/i.test(primary)) document.documentElement.style.setProperty('--primary', primary);
}

/** @typedef {{ li: HTMLLIElement, text: string, categories: string[] }} ListItem */

/** @type {ListItem[]} */
let listItems = [];

/** @type {Record<string, string>} */
const AUTH_MODES = {
  OAUTH2: 'OAuth 2',
  OAUTH1: 'OAuth 1.0a',
  TBA: 'Token-based authentication',
  SIGNATURE: 'API user and secret',
  BILL: 'Sign-in and developer key',
  CUSTOM: 'GitHub App',
  OAUTH2_CC: 'OAuth 2 client credentials',
  API_KEY: 'API key',
  BASIC: 'Username and password',
  NONE: 'No credentials',
  TWO_STEP: 'Credentials',
};

/** @type {Record<string, string>} */
const CATEGORY_WORDS = { ai: 'AI', ats: 'ATS', cms: 'CMS', crm: 'CRM', erp: 'ERP', hr: 'HR', mcp: 'MCP', 'e-commerce': 'E-commerce' };

/**
 * `dev-tools` → `Dev tools`, `crm` → `CRM`, as the dashboard names the catalogue's categories.
 * @param {string} slug
 */
function categoryLabel(slug) {
  if (CATEGORY_WORDS[slug]) return CATEGORY_WORDS[slug];
  const text = slug
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => CATEGORY_WORDS[w] ?? w)
    .join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * @param {string} className
 * @param {string} text
 */
function span(className, text) {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
}

/**
 * One entry of the list: logo, name and key at once; the auth mode and categories when the
 * provider's details arrive (the same request that opening the entry makes).
 * @param {any} integration
 * @returns {ListItem}
 */
function listItem(integration) {
  const li = document.createElement('li');
  li.dataset.key = integration.unique_key;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'integration';
  const logo = document.createElement('img');
  logo.className = 'logo';
  logo.alt = '';
  logo.width = 36;
  logo.height = 36;
  logo.addEventListener('error', () => (logo.hidden = true));
  if (typeof integration.logo === 'string' && /^https?:\/\//.test(integration.logo)) logo.src = integration.logo;
  const details = span('details', '');
  const text = span('text', '');
  text.append(span('name', integration.display_name), details);
  button.append(logo, text, span('provider', integration.unique_key));
  button.addEventListener('click', () => void showIntegration(integration));
  li.append(button);
  /** @type {ListItem} */
  const item = { li, text: [integration.display_name, integration.unique_key, integration.provider].join('\n').toLowerCase(), categories: [] };
  providerInfo(integration.provider).then(
    (provider) => {
      item.categories = Array.isArray(provider.categories) ? provider.categories.filter((/** @type {unknown} */ c) => typeof c === 'string') : [];
      const mode = AUTH_MODES[provider.auth_mode] ?? String(provider.auth_mode ?? '');
      details.textContent = [mode, item.categories.map(categoryLabel).join(', ')].filter(Boolean).join(' · ');
      showCategories();
      filterList();
    },
    () => undefined,
  );
  return item;
}

/** The category select: each category of the listed integrations once, shown when there are two or more. */
function showCategories() {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const item of listItems) for (const c of new Set(item.categories)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const current = el.category.value;
  const options = [...counts]
    .sort(([a], [b]) => categoryLabel(a).localeCompare(categoryLabel(b)))
    .map(([c, n]) => {
      const option = document.createElement('option');
      option.value = c;
      option.textContent = `${categoryLabel(c)} (${n})`;
      return option;
    });
  el.category.replaceChildren(/** @type {HTMLOptionElement} */ (el.category.options[0]), ...options);
  el.category.value = counts.size > 1 && counts.has(current) ? current : '';
  el.categoryField.hidden = counts.size < 2;
}

/** Hides the entries the search (name, display name or key, any case) or the category leave out. */
function filterList() {
  const q = el.search.value.trim().toLowerCase();
  const category = el.category.value;
  let shown = 0;
  for (const item of listItems) {
    const match = (!q || item.text.includes(q)) && (!category || item.categories.includes(category));
    item.li.hidden = !match;
    if (match) shown++;
  }
  const count = q || category ? `${shown} of ${listItems.length} integrations` : `${listItems.length} integrations`;
  // Written only when it changes: the line is a live region.
  if (el.listCount.textContent !== count) el.listCount.textContent = count;
  el.listNone.hidden = shown > 0;
}

function showList() {
  listItems = integrations.map(listItem);
  el.list.replaceChildren(...listItems.map((item) => item.li));
  showCategories();
  filterList();
  showAlert('');
  showView('list', 'Connect an integration');
}

/**
 * @param {string} name
 * A labelled input, or a select when the field has choices (a provider's regions or hosts). An
 * optional select starts with an empty choice; a prefix or suffix (`https://`, `.example.com`) is
 * shown around the input, not sent.
 * @param {{ label: string, description?: string, type?: string, required: boolean, value?: string, readOnly?: boolean, autocomplete?: string, choices?: string[], prefix?: string, suffix?: string }} spec
 */
function field(name, spec) {
  const id = `field-${name.replace(/[^\w-]/g, '_')}`;
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = spec.label;
  if (spec.required) {
    const mark = document.createElement('span');
    mark.className = 'required';
    mark.textContent = ' (required)';
    label.append(mark);
  }
  /** @type {HTMLInputElement | HTMLSelectElement} */
  let input;
  if (spec.choices) {
    const select = document.createElement('select');
    const options = spec.required ? spec.choices : ['', ...spec.choices];
    for (const value of options) select.append(Object.assign(document.createElement('option'), { value, textContent: value === '' ? '—' : value }));
    input = select;
  } else {
    const text = document.createElement('input');
    text.type = spec.type ?? 'text';
    text.autocomplete = spec.autocomplete ?? 'off';
    text.spellcheck = false;
    input = text;
  }
  input.id = id;
  input.name = name;
  input.required = spec.required;
  if (spec.value) input.value = spec.value;
  // A select cannot be read-only: disabled, it still holds the value the form sends.
  if (spec.readOnly) {
    if (spec.choices) input.disabled = true;
    else /** @type {HTMLInputElement} */ (input).readOnly = true;
  }
  const describedBy = [];
  if (spec.prefix || spec.suffix) {
    const row = document.createElement('div');
    row.className = 'field-row';
    /** @param {string} text @param {string} className */
    const adornment = (text, className) => Object.assign(document.createElement('span'), { className, textContent: text });
    if (spec.prefix) row.append(adornment(spec.prefix, 'field-prefix'));
    row.append(input);
    if (spec.suffix) row.append(adornment(spec.suffix, 'field-suffix'));
    wrap.append(label, row);
  } else {
    wrap.append(label, input);
  }
  if (spec.description) {
    const hint = document.createElement('p');
    hint.className = 'field-hint';
    hint.id = `${id}-hint`;
    hint.textContent = spec.description;
    wrap.append(hint);
    describedBy.push(hint.id);
  }
  const error = document.createElement('p');
  error.className = 'field-error';
  error.id = `${id}-error`;
  error.hidden = true;
  wrap.append(error);
  describedBy.push(error.id);
  input.setAttribute('aria-describedby', describedBy.join(' '));
  return wrap;
}

/** @param {any} integration */
async function showIntegration(integration) {
  showAlert('');
  setStatus('Loading…');
  let provider;
  try {
    provider = await providerInfo(integration.provider);
  } catch (err) {
    setStatus('');
    showAlert(describeError(err).message);
    return;
  }
  setStatus('');
  const name = integration.display_name;
  const defaults = session?.integrations_config_defaults?.[integration.unique_key]?.connection_config ?? {};
  const nodes = [];
  if (provider.auth_mode === 'API_KEY') {
    nodes.push(field('apiKey', { label: 'API key', type: 'password', required: true, description: `The API key from your ${name} account.` }));
  } else if (provider.auth_mode === 'BASIC') {
    nodes.push(field('username', { label: 'Username', required: true, autocomplete: 'username' }));
    nodes.push(field('password', { label: 'Password', type: 'password', required: true, autocomplete: 'current-password' }));
  } else if (provider.auth_mode === 'OAUTH2_CC') {
    nodes.push(field('client_id', { label: 'Client ID', required: false, description: `Your own ${name} client; leave empty to use the application's.` }));
    nodes.push(field('client_secret', { label: 'Client secret', type: 'password', required: false }));
    // Fields the definition adds (ADP's client certificate and private key for mutual TLS).
    for (const [key, spec] of Object.entries(provider.credentials ?? {})) {
      if (key === 'client_id' || key === 'client_secret' || spec.hidden) continue;
      nodes.push(
        field(key, { label: spec.title || key, description: spec.description, required: !spec.optional, ...(spec.secret ? { type: 'password' } : {}) }),
      );
    }
  } else if (provider.auth_mode === 'SIGNATURE') {
    // The definition names the two fields (Emarsys: the API user name and its secret).
    const spec = provider.credentials ?? {};
    nodes.push(field('username', { label: spec.username?.title ?? 'Username', description: spec.username?.description, required: true }));
    nodes.push(field('password', { label: spec.password?.title ?? 'Secret', description: spec.password?.description, type: 'password', required: true }));
  } else if (provider.auth_mode === 'BILL') {
    // Bill's sign-in fields (its API login): the session it answers is kept, not these alone.
    nodes.push(
      field('username', { label: 'Username', description: `The email address you sign in to ${name} with.`, required: true, autocomplete: 'username' }),
    );
    nodes.push(field('password', { label: 'Password', type: 'password', required: true, autocomplete: 'current-password' }));
    nodes.push(field('organization_id', { label: 'Organization ID', description: 'Your organization ID (it begins with 008).', required: true }));
    nodes.push(field('dev_key', { label: 'Developer key', type: 'password', required: true }));
  } else if (provider.auth_mode === 'TBA') {
    nodes.push(field('token_id', { label: 'Token ID', required: true, description: `The token ID of the access token created in ${name}.` }));
    nodes.push(field('token_secret', { label: 'Token secret', type: 'password', required: true }));
  } else if (provider.auth_mode === 'TWO_STEP') {
    // The fields the provider's definition declares; they are exchanged for a token when submitted.
    for (const [key, spec] of Object.entries(provider.credentials ?? {})) {
      nodes.push(field(key, { label: spec.title ?? key, description: spec.description, type: spec.secret ? 'password' : 'text', required: !spec.optional }));
    }
  }
  // In the provider's order; a hidden or automated field is not asked (its default, or a value filled after authorization).
  for (const [key, spec] of Object.entries(provider.connection_config ?? {})) {
    if (spec.hidden || spec.automated) continue;
    const fixed = defaults[key];
    const value = fixed ?? spec.default_value;
    nodes.push(
      field(`params.${key}`, {
        label: spec.title || key,
        description: spec.description,
        required: Boolean(spec.required),
        value: value === undefined ? undefined : String(value),
        ...(Array.isArray(spec.enum) ? { choices: spec.enum.map(String) } : {}),
        ...(spec.prefix ? { prefix: spec.prefix } : {}),
        ...(spec.suffix ? { suffix: spec.suffix } : {}),
        // Set by the developer on the connect session: the API refuses another value.
        readOnly: fixed !== undefined,
      }),
    );
  }
  el.fields.replaceChildren(...nodes);
  el.formIntro.textContent = isOAuth(provider)
    ? `A new window opens where you sign in to ${name} and approve access.`
    : provider.auth_mode === 'NONE'
      ? `${name} needs no credentials.`
      : `Enter your ${name} credentials. They are checked with ${name} before they are saved.`;
  el.submit.textContent = isOAuth(provider) ? `Connect with ${name}` : 'Connect';
  el.form.onsubmit = (event) => {
    event.preventDefault();
    submit(integration, provider);
  };
  showView('form', `Connect ${name}`);
}

/**
 * Whether the end user authorizes in the provider's own pages (a popup): OAuth 2, OAuth 1.0a, a GitHub App's installation (with or without user authorization) and an MCP server's OAuth.
 * @param {any} provider
 */
function isOAuth(provider) {
  return ['OAUTH2', 'OAUTH1', 'APP', 'CUSTOM', 'MCP_OAUTH2', 'MCP_OAUTH2_GENERIC'].includes(provider.auth_mode);
}

/**
 * Must not await before `auth()`: the OAuth popup is only allowed within the user's gesture.
 * @param {any} integration
 * @param {any} provider
 */
function submit(integration, provider) {
  if (busy) return;
  const inputs = /** @type {(HTMLInputElement | HTMLSelectElement)[]} */ ([...el.fields.querySelectorAll('input, select')]);
  let firstInvalid = null;
  for (const input of inputs) {
    const error = /** @type {HTMLElement} */ (document.getElementById(`${input.id}-error`));
    const missing = input.required && input.value.trim() === '';
    input.setAttribute('aria-invalid', String(missing));
    error.hidden = !missing;
    error.textContent = missing ? 'This field is required.' : '';
    if (missing && !firstInvalid) firstInvalid = input;
  }
  if (firstInvalid) {
    firstInvalid.focus();
    return;
  }
  /** @type {Record<string, string>} */
  const params = {};
  /** @type {Record<string, string>} */
  const credentials = {};
  for (const input of inputs) {
    if (input.name.startsWith('params.')) {
      if (input.value.trim() !== '') params[input.name.slice('params.'.length)] = input.value.trim();
    } else {
      credentials[input.name] = input.name === 'apiKey' ? input.value.trim() : input.value;
    }
  }
  const sdk = new Switchyard({ host: apiURL, connectSessionToken: token ?? undefined, websocketsPath: session?.websocketsPath || '/' });
  const pending = sdk.auth(integration.unique_key, {
    params,
    ...(isOAuth(provider)
      ? { detectClosedAuthWindow: true }
      : {
          credentials: /** @type {any} */ (
            provider.auth_mode === 'NONE'
              ? { type: 'NONE' }
              : provider.auth_mode === 'TWO_STEP' || provider.auth_mode === 'SIGNATURE'
                ? { ...credentials, type: provider.auth_mode }
                : credentials
          ),
        }),
  });
  setBusy(true, isOAuth(provider) ? `Waiting for ${integration.display_name}…` : 'Checking your credentials…');
  showAlert('');
  pending.then(
    (result) => {
      setBusy(false, '');
      el.doneMessage.textContent = `${integration.display_name} is connected.`;
      el.done.hidden = !embedded;
      showView('done', 'Connected');
      if (!embedded) setStatus('You can close this window now.');
      toParent({ type: 'connect', payload: result });
    },
    (err) => {
      const { type, message } = describeError(err);
      setBusy(false, '');
      showAlert(`${integration.display_name} could not be connected: ${message}`);
      toParent({ type: 'error', payload: { errorType: type, errorMessage: message } });
      inputs.find((i) => i.type !== 'hidden')?.focus();
    },
  );
}

/**
 * @param {boolean} on
 * @param {string} message
 */
function setBusy(on, message) {
  busy = on;
  el.submit.disabled = on;
  el.submit.setAttribute('aria-busy', String(on));
  el.back.disabled = on;
  setStatus(message);
}

el.back.addEventListener('click', () => showList());
el.search.addEventListener('input', filterList);
el.category.addEventListener('change', filterList);
el.listFilter.addEventListener('submit', (event) => event.preventDefault());
el.close.hidden = !embedded;
el.close.addEventListener('click', closeUI);
el.done.addEventListener('click', closeUI);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && embedded) closeUI();
});

window.addEventListener('message', (event) => {
  if (event.source !== window.parent || !event.data || event.data.type !== 'session_token') return;
  if (typeof event.data.sessionToken !== 'string' || event.data.sessionToken === token) return;
  token = event.data.sessionToken;
  void load();
});

if (token) void load();
else if (!embedded) {
  setStatus('');
  showView('none', 'Cannot connect');
  showAlert('This page needs a connect session: open the link you were given.');
}
// The parent answers `ready` with the session token (and may send a newer one later).
toParent({ type: 'ready' });
