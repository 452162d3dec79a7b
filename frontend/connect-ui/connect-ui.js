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

function showList() {
  el.list.replaceChildren(
    ...integrations.map((integration) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'integration';
      button.dataset.key = integration.unique_key;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = integration.display_name;
      const provider = document.createElement('span');
      provider.className = 'provider';
      provider.textContent = integration.unique_key;
      button.append(name, provider);
      button.addEventListener('click', () => void showIntegration(integration));
      li.append(button);
      return li;
    }),
  );
  showAlert('');
  showView('list', 'Connect an integration');
}

/**
 * @param {string} name
 * @param {{ label: string, description?: string, type?: string, required: boolean, value?: string, readOnly?: boolean, autocomplete?: string }} spec
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
  const input = document.createElement('input');
  input.id = id;
  input.name = name;
  input.type = spec.type ?? 'text';
  input.required = spec.required;
  input.autocomplete = spec.autocomplete ?? 'off';
  input.spellcheck = false;
  if (spec.value) input.value = spec.value;
  if (spec.readOnly) input.readOnly = true;
  const describedBy = [];
  wrap.append(label, input);
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
  }
  for (const [key, spec] of Object.entries(provider.connection_config ?? {})) {
    const value = defaults[key];
    nodes.push(
      field(`params.${key}`, {
        label: spec.title ?? key,
        description: spec.description,
        required: Boolean(spec.required),
        value: value === undefined ? undefined : String(value),
        // Set by the developer on the connect session: the API refuses another value.
        readOnly: value !== undefined,
      }),
    );
  }
  el.fields.replaceChildren(...nodes);
  el.formIntro.textContent =
    provider.auth_mode === 'OAUTH2'
      ? `A new window opens where you sign in to ${name} and approve access.`
      : provider.auth_mode === 'NONE'
        ? `${name} needs no credentials.`
        : `Enter your ${name} credentials. They are checked with ${name} before they are saved.`;
  el.submit.textContent = provider.auth_mode === 'OAUTH2' ? `Connect with ${name}` : 'Connect';
  el.form.onsubmit = (event) => {
    event.preventDefault();
    submit(integration, provider);
  };
  showView('form', `Connect ${name}`);
}

/**
 * Must not await before `auth()`: the OAuth popup is only allowed within the user's gesture.
 * @param {any} integration
 * @param {any} provider
 */
function submit(integration, provider) {
  if (busy) return;
  const inputs = /** @type {HTMLInputElement[]} */ ([...el.fields.querySelectorAll('input')]);
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
    ...(provider.auth_mode === 'OAUTH2'
      ? { detectClosedAuthWindow: true }
      : { credentials: /** @type {any} */ (provider.auth_mode === 'NONE' ? { type: 'NONE' } : credentials) }),
  });
  setBusy(true, provider.auth_mode === 'OAUTH2' ? `Waiting for ${integration.display_name}…` : 'Checking your credentials…');
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
