/**
 * @module api/routes/oauth-callback-page — the page the OAuth popup lands on: it reports success
 * or error to its opener (postMessage and BroadcastChannel) and closes.
 */
import { html, raw } from 'hono/html';

export type CallbackOutcome = { ok: true; providerConfigKey: string; connectionId: string } | { ok: false; errorType: string; message: string };

export function callbackPage(outcome: CallbackOutcome) {
  const message = outcome.ok
    ? { type: 'nango_oauth_callback_success', payload: { providerConfigKey: outcome.providerConfigKey, connectionId: outcome.connectionId } }
    : { type: 'nango_oauth_callback_error', payload: { message: outcome.message, errorType: outcome.errorType } };
  // JSON inside a script tag: escape '<' so a value can never close the tag.
  const payload = JSON.stringify(message).replace(/</g, '\\u003c');
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${outcome.ok ? 'Connected' : 'Connection failed'}</title>
        <style>
          body {
            font:
              16px system-ui,
              sans-serif;
            display: grid;
            place-items: center;
            min-height: 90vh;
            color: #1f2933;
          }
          .box {
            text-align: center;
            max-width: 28rem;
          }
        </style>
      </head>
      <body>
        <main class="box" role="status">
          <h1>${outcome.ok ? 'You are connected' : 'Connection failed'}</h1>
          <p>${outcome.ok ? 'You can close this window.' : outcome.message}</p>
        </main>
        <script>
          (function () {
            var message = ${raw(payload)};
            try {
              if (window.opener) window.opener.postMessage(message, '*');
            } catch (e) {}
            try {
              var bc = new BroadcastChannel('nango-oauth-callback');
              bc.postMessage(message);
              bc.close();
            } catch (e) {}
            window.addEventListener('message', function (e) {
              if (e.data && e.data.type === 'nango_oauth_callback_ack') window.close();
            });
            if (message.type === 'nango_oauth_callback_success')
              setTimeout(function () {
                window.close();
              }, 500);
          })();
        </script>
      </body>
    </html>`;
}
