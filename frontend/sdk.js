/**
 * Switchyard browser SDK: the end user's side of connecting an integration. Plain ESM, no build
 * step; served by the API at `/sdk.js`. Wire-compatible with `@nangohq/frontend`'s `auth()` and
 * `openConnectUI()`.
 *
 * @example
 *   import { Switchyard } from 'https://switchyard.example.com/sdk.js';
 *   const sy = new Switchyard({ host: 'https://switchyard.example.com', connectSessionToken });
 *   button.onclick = async () => console.log(await sy.auth('google-drive'));
 */

/* global WebSocket */

/**
 * @typedef {{ providerConfigKey: string, connectionId: string, isPending?: boolean }} AuthResult
 * @typedef {{ apiKey: string } | { username: string, password: string } | { client_id?: string, client_secret?: string } | { type: 'NONE' } | { type: 'TWO_STEP', [field: string]: string } | { token_id: string, token_secret: string, oauth_client_id_override?: string, oauth_client_secret_override?: string } | { type: 'SIGNATURE', username: string, password: string } | { username: string, password: string, organization_id: string, dev_key: string }} Credentials
 * @typedef {object} AuthOptions
 * @property {Credentials} [credentials] API-key, basic, OAuth 2 client-credentials, TWO_STEP, TBA or no credentials: no popup is opened.
 * @property {Record<string, string>} [params] Connection config, e.g. `{ hostname: 'acme.example.com' }`.
 * @property {string[]} [user_scope]
 * @property {Record<string, string>} [authorization_params] Extra query parameters for the provider's authorize URL.
 * @property {boolean} [detectClosedAuthWindow] Reject with `window_closed` when the user closes the popup.
 * @typedef {{ type: 'ready' } | { type: 'close' } | { type: 'connect', payload: AuthResult }
 *   | { type: 'error', payload: { errorType: string, errorMessage: string } }
 *   | { type: 'settings_changed', payload: unknown }} ConnectUIEvent
 * @typedef {object} ConnectUIOptions
 * @property {string} [sessionToken] Defaults to the constructor's `connectSessionToken`; can come later via `setSessionToken`.
 * @property {string} [baseURL] Where the Connect UI is served; defaults to `<host>/connect-ui/`.
 * @property {string} [apiURL] The API the Connect UI talks to; defaults to `host`.
 * @property {(event: ConnectUIEvent) => void} [onEvent]
 * @typedef {{ close(): void, setSessionToken(token: string): void }} ConnectUIHandle
 */

/** An auth failure; `type` is the server's error code (`connection_test_failed`, `window_closed`, …). */
export class AuthError extends Error {
  /**
   * @param {string} message
   * @param {string} type
   */
  constructor(message, type) {
    super(message);
    this.name = 'AuthError';
    this.type = type;
  }
}

// How long a popup may stay closed before we give up on a late WebSocket message.
const CLOSED_WINDOW_GRACE_MS = 1500;

export class Switchyard {
  /**
   * @param {{ host: string, connectSessionToken?: string, width?: number, height?: number, websocketsPath?: string }} config
   */
  constructor({ host, connectSessionToken, width = 500, height = 600, websocketsPath = '/' }) {
    let base;
    try {
      base = new URL(host);
    } catch {
      throw new AuthError('Invalid URL provided for the Switchyard host.', 'invalid_host_url');
    }
    this.host = base.href.replace(/\/+$/, '');
    this.connectSessionToken = connectSessionToken;
    this.width = width;
    this.height = height;
    this.websocketUrl = new URL(websocketsPath, base).href.replace(/^http/, 'ws');
  }

  /**
   * Connects `providerConfigKey`. With API-key or basic `credentials` this is one POST; otherwise
   * it is the OAuth popup flow. Call it from a user gesture (click): the popup is opened before
   * anything else so browsers do not block it.
   *
   * @param {string} providerConfigKey
   * @param {AuthOptions} [options]
   * @returns {Promise<AuthResult>}
   */
  auth(providerConfigKey, options = {}) {
    if (!this.connectSessionToken) {
      return Promise.reject(new AuthError('A connect session token is required (create one with POST /connect/sessions).', 'missing_connect_session_token'));
    }
    if (options.credentials && Object.keys(options.credentials).length > 0) return this.credentialsAuth(providerConfigKey, options.credentials, options);
    return this.popupAuth(providerConfigKey, options);
  }

  /**
   * Opens the hosted Connect UI in a full-screen iframe and relays its events.
   *
   * @param {ConnectUIOptions} [options]
   * @returns {ConnectUIHandle}
   */
  openConnectUI({ sessionToken = this.connectSessionToken, baseURL = `${this.host}/connect-ui/`, apiURL = this.host, onEvent } = {}) {
    const src = new URL(baseURL);
    // The UI's assets are relative to its folder.
    if (!src.pathname.endsWith('/')) src.pathname += '/';
    src.searchParams.set('apiURL', apiURL);
    const uiOrigin = src.origin;

    const iframe = document.createElement('iframe');
    iframe.id = 'connect-ui';
    iframe.title = 'Connect an integration';
    iframe.src = src.href;
    iframe.allow = 'clipboard-write';
    Object.assign(iframe.style, {
      position: 'fixed',
      inset: '0',
      width: '100vw',
      height: '100vh',
      border: '0',
      zIndex: '9999',
      backgroundColor: 'transparent',
    });

    let token = sessionToken;
    let ready = false;
    const previousOverflow = document.body.style.overflow;
    const sendToken = () => {
      if (ready && token) iframe.contentWindow?.postMessage({ type: 'session_token', sessionToken: token }, uiOrigin);
    };
    /** @param {MessageEvent} event */
    const listener = (event) => {
      if (event.origin !== uiOrigin || event.source !== iframe.contentWindow) return;
      const data = event.data;
      if (!data || typeof data !== 'object' || typeof data.type !== 'string') return;
      if (data.type === 'ready') {
        ready = true;
        sendToken();
      }
      if (data.type === 'close') close();
      if (onEvent) {
        try {
          onEvent(data);
        } catch (err) {
          console.error('[switchyard] onEvent threw', err);
        }
      }
    };
    const close = () => {
      window.removeEventListener('message', listener);
      if (iframe.isConnected) {
        iframe.remove();
        document.body.style.overflow = previousOverflow;
      }
    };
    window.addEventListener('message', listener);
    document.body.append(iframe);
    document.body.style.overflow = 'hidden';
    return {
      close,
      setSessionToken(t) {
        token = t;
        sendToken();
      },
    };
  }

  /**
   * @param {string} providerConfigKey
   * @param {Credentials} credentials
   * @param {AuthOptions} options
   * @returns {Promise<AuthResult>}
   */
  async credentialsAuth(providerConfigKey, credentials, options) {
    let route;
    let body;
    if ('type' in credentials && credentials.type === 'TWO_STEP') {
      // Before the other shapes: a TWO_STEP provider's fields may be called apiKey or username.
      route = 'auth/two-step';
      body = credentials;
    } else if ('type' in credentials && credentials.type === 'SIGNATURE') {
      route = 'auth/signature';
      body = credentials;
    } else if ('organization_id' in credentials && 'dev_key' in credentials) {
      // Before basic: Bill's sign-in has a username and password too.
      route = 'auth/bill';
      body = { username: credentials.username, password: credentials.password, organization_id: credentials.organization_id, dev_key: credentials.dev_key };
    } else if ('apiKey' in credentials) {
      route = 'api-auth/api-key';
      body = { apiKey: credentials.apiKey ?? '' };
    } else if ('username' in credentials || 'password' in credentials) {
      route = 'api-auth/basic';
      body = { username: credentials.username ?? '', password: credentials.password ?? '' };
    } else if ('token_id' in credentials && 'token_secret' in credentials) {
      route = 'auth/tba';
      body = credentials;
    } else if ('client_id' in credentials || 'client_secret' in credentials) {
      route = 'oauth2/auth';
      body = { client_id: credentials.client_id || undefined, client_secret: credentials.client_secret || undefined };
    } else if ('type' in credentials && credentials.type === 'NONE') {
      route = 'auth/unauthenticated';
      body = {};
    } else {
      throw new AuthError(
        'Supported credentials: API key ({apiKey}), basic ({username, password}), client credentials ({client_id, client_secret}), none ({type: "NONE"}), TWO_STEP ({type: "TWO_STEP", ...fields}), TBA ({token_id, token_secret}), SIGNATURE ({type: "SIGNATURE", username, password}), BILL ({username, password, organization_id, dev_key}).',
        'missing_credentials',
      );
    }
    let res;
    try {
      res = await fetch(`${this.host}/${route}/${encodeURIComponent(providerConfigKey)}${this.queryString(options)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch {
      throw new AuthError('The Switchyard API could not be reached.', 'network_error');
    }
    const json = await res.json().catch(() => null);
    if (!res.ok) {
      const error = json && typeof json === 'object' && json.error ? json.error : {};
      throw new AuthError(error.message ?? `Request failed with status ${res.status}`, error.code ?? 'unknown_error');
    }
    return {
      providerConfigKey: json.providerConfigKey,
      connectionId: json.connectionId,
      ...(json.isPending !== undefined ? { isPending: json.isPending } : {}),
    };
  }

  /**
   * @param {string} providerConfigKey
   * @param {AuthOptions} options
   * @returns {Promise<AuthResult>}
   */
  popupAuth(providerConfigKey, options) {
    // Opened synchronously, before any await: popup blockers only allow it inside the user gesture.
    const popup = window.open('', '_blank', this.popupFeatures());
    return new Promise((resolve, reject) => {
      if (!popup || popup.closed) {
        reject(new AuthError('The authorization window was blocked by the browser.', 'blocked_by_browser'));
        return;
      }
      const target = `${this.host}/oauth/connect/${encodeURIComponent(providerConfigKey)}${this.queryString(options)}`;
      let settled = false;
      /** @type {number | undefined} */
      let closedSince;
      /** @type {WebSocket | undefined} */
      let socket;
      const finish = (/** @type {() => void} */ settle) => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        window.removeEventListener('message', onCallbackPage);
        try {
          socket?.close();
        } catch {}
        // A short delay lets the callback page report to its opener before it goes away.
        setTimeout(() => {
          try {
            if (!popup.closed) popup.close();
          } catch {}
        }, 500);
        settle();
      };
      const fail = (/** @type {string} */ type, /** @type {string} */ message) => finish(() => reject(new AuthError(message, type)));

      // The callback page also posts to its opener; acknowledging lets it close itself.
      const onCallbackPage = (/** @type {MessageEvent} */ event) => {
        if (event.source !== popup || !event.data || typeof event.data.type !== 'string') return;
        if (event.data.type.startsWith('nango_oauth_callback_')) popup.postMessage({ type: 'nango_oauth_callback_ack' }, '*');
      };
      window.addEventListener('message', onCallbackPage);

      const watch = setInterval(() => {
        if (!popup.closed) return;
        closedSince ??= Date.now();
        if (options.detectClosedAuthWindow && Date.now() - closedSince > CLOSED_WINDOW_GRACE_MS) {
          fail('window_closed', 'The authorization window was closed before the authorization flow was completed');
        }
      }, 250);

      try {
        socket = new WebSocket(this.websocketUrl);
      } catch {
        fail('websocket_error', 'Could not open the WebSocket to the Switchyard API.');
        return;
      }
      socket.onmessage = (message) => {
        let data;
        try {
          data = JSON.parse(String(message.data));
        } catch {
          return;
        }
        if (data.message_type === 'connection_ack') {
          popup.location.href = `${target}${target.includes('?') ? '&' : '?'}ws_client_id=${encodeURIComponent(data.ws_client_id)}`;
        } else if (data.message_type === 'success') {
          finish(() => resolve({ providerConfigKey: data.provider_config_key, connectionId: data.connection_id, isPending: Boolean(data.is_pending) }));
        } else if (data.message_type === 'error') {
          fail(data.error_type ?? 'unknown_error', data.error_desc ?? 'The connection could not be completed');
        }
      };
      socket.onerror = () => fail('websocket_error', 'The WebSocket to the Switchyard API failed.');
      socket.onclose = () => {
        // The server closes right after its outcome message; closing earlier means it went away.
        setTimeout(() => fail('websocket_error', 'The WebSocket to the Switchyard API closed before the flow finished.'), 0);
      };
    });
  }

  /** @param {AuthOptions} options */
  queryString(options) {
    const q = [`connect_session_token=${encodeURIComponent(this.connectSessionToken ?? '')}`];
    for (const [k, v] of Object.entries(options.params ?? {})) {
      if (typeof v === 'string') q.push(`params[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`);
    }
    if (options.user_scope?.length) q.push(`user_scope=${encodeURIComponent(options.user_scope.join(','))}`);
    for (const [k, v] of Object.entries(options.authorization_params ?? {})) {
      if (typeof v === 'string') q.push(`authorization_params[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`);
    }
    return `?${q.join('&')}`;
  }

  popupFeatures() {
    const width = Math.min(this.width, window.screen.width);
    const height = Math.min(this.height, window.screen.height);
    const left = Math.max(0, window.screen.width / 2 - width / 2);
    const top = Math.max(0, window.screen.height / 2 - height / 2);
    return `width=${width},height=${height},left=${left},top=${top},scrollbars=yes,resizable=yes,status=no,toolbar=no,location=no,menubar=no`;
  }
}

export default Switchyard;
