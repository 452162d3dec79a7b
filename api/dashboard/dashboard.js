/* Switchyard dashboard: progressive enhancements only; every page works without this script. */
/* global navigator, Element */
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
})();
