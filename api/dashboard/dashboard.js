/* Switchyard dashboard: progressive enhancements only; every page works without this script. */
/* global navigator, Element, EventSource, CSS, location, history */
(function () {
  'use strict';
  document.addEventListener('click', async function (event) {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    const id = button.getAttribute('data-copy');
    const input = document.getElementById(id);
    const status = document.querySelector('[data-copy-status="' + id + '"]');
    if (!input) return;
    let copied;
    try {
      await navigator.clipboard.writeText(input.value);
      copied = true;
    } catch {
      input.focus();
      input.select();
      try {
        copied = document.execCommand('copy');
      } catch {
        copied = false;
      }
    }
    if (status) status.textContent = copied ? 'Copied' : 'Press Ctrl+C to copy';
  });

  // "Create an integration": the provider grid filtered as you type, by the same match as the
  // server's (api/dashboard/provider-grid.tsx); the address holds the filters (and only them), so
  // Back and a reload show the same list.
  const grid = document.getElementById('provider-grid');
  const search = document.getElementById('provider-search');
  const category = document.getElementById('provider-category');
  if (grid && search && category) {
    const count = document.getElementById('provider-count');
    const none = document.getElementById('provider-none');
    const items = Array.prototype.map.call(grid.children, function (li) {
      return { li: li, text: li.getAttribute('data-search') || '', categories: JSON.parse(li.getAttribute('data-categories') || '[]') };
    });
    const filter = function () {
      const q = search.value.trim().toLowerCase();
      const c = category.value;
      let shown = 0;
      for (const item of items) {
        const match = (!q || item.text.includes(q)) && (!c || item.categories.includes(c));
        item.li.hidden = !match;
        if (match) shown++;
      }
      if (count) count.textContent = q || c ? shown + ' of ' + items.length + ' providers' : items.length + ' providers';
      if (none) none.hidden = shown > 0;
      const url = new URL(location.pathname, location.href);
      if (q) url.searchParams.set('q', search.value.trim());
      if (c) url.searchParams.set('category', c);
      history.replaceState(null, '', url);
    };
    search.addEventListener('input', filter);
    category.addEventListener('change', filter);
  }

  // The Logs page's live tail (server-sent events): new request log rows at the top of the table,
  // runs into the list below it; a run seen again (it finished) replaces its item.
  const tail = document.querySelector('[data-tail]');
  if (tail && typeof EventSource === 'function') {
    const status = tail.querySelector('[data-tail-status]');
    const source = new EventSource(tail.getAttribute('data-tail'));
    const fragment = function (html, tag) {
      const holder = document.createElement(tag);
      holder.innerHTML = html;
      return holder.firstElementChild;
    };
    source.addEventListener('ready', function () {
      tail.classList.add('live-on');
      if (status) status.textContent = 'Live: new entries appear at the top.';
    });
    source.addEventListener('log', function (event) {
      const body = document.querySelector('table.logs tbody');
      const row = body && fragment(event.data, 'tbody');
      if (!row || body.querySelector('[data-log-id="' + row.getAttribute('data-log-id') + '"]')) return;
      body.insertBefore(row, body.firstChild);
      row.classList.add('fresh');
      const empty = document.querySelector('[data-empty]');
      if (empty) empty.remove();
    });
    source.addEventListener('run', function (event) {
      const list = document.getElementById('live-runs');
      const item = list && fragment(event.data, 'ul');
      if (!item) return;
      const old = list.querySelector('[data-run-id="' + CSS.escape(item.getAttribute('data-run-id')) + '"]');
      if (old) old.replaceWith(item);
      else list.insertBefore(item, list.firstChild);
      const empty = document.querySelector('[data-runs-empty]');
      if (empty) empty.remove();
    });
    // The session ended (signed out, expired, key rotated): no reconnecting.
    source.addEventListener('end', function (event) {
      source.close();
      tail.classList.remove('live-on');
      if (status) status.textContent = 'Live tail stopped: ' + event.data;
    });
    source.addEventListener('error', function () {
      tail.classList.remove('live-on');
      // Refused (e.g. too many tails open for this session): the browser does not retry.
      if (status) status.textContent = source.readyState === EventSource.CLOSED ? 'Live tail unavailable; reload the page to try again.' : 'Live tail interrupted; reconnecting…';
    });
  }
})();
