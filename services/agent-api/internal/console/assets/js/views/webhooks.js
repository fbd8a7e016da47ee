// The tenant's webhooks: register, rotate the secret, enable, delete, and
// each one's delivery log.
import { api, enc } from '../api.js';
import { h, dateTime, statusBadge, announce, alertBox } from '../dom.js';

const EVENTS = ['meeting.ended', 'pr.ready', 'pr.approved', 'pr.rejected', 'memory_bank.updated'];

export async function webhooksView(main, { signal }) {
  const list = h('div', {});
  const secretBox = h('div', { role: 'status' });
  main.append(h('h1', {}, 'Webhooks'), createForm(secretBox, () => load()), secretBox, list);

  function showSecret(w) {
    secretBox.replaceChildren(h('div', { class: 'panel' },
      h('p', {}, 'Secret of ', h('span', { class: 'mono' }, w.url), ' — copy it now, it is not shown again:'),
      h('pre', { class: 'mono secret' }, w.secret),
      h('p', { class: 'hint' }, 'Verify X-MitHub-Signature: HMAC-SHA256 of "t.body" with this secret equals a v1 value.')));
  }

  async function act(path, opts, done) {
    try {
      const r = await api(path, opts);
      done?.(r);
      await load();
    } catch (err) {
      list.prepend(alertBox(err));
    }
  }

  async function load() {
    const { webhooks } = await api('/v1/webhooks', { signal });
    list.replaceChildren();
    if (webhooks.length === 0) {
      list.append(h('p', { class: 'muted' }, 'No webhooks yet.'));
      return;
    }
    for (const w of webhooks) {
      const log = h('div', {});
      const showLog = h('button', { type: 'button', class: 'btn small' }, 'Deliveries');
      showLog.addEventListener('click', async () => {
        let deliveries;
        try {
          ({ deliveries } = await api(`/v1/webhooks/${enc(w.id)}/deliveries?limit=50`, { signal }));
        } catch (err) {
          if (err.name !== 'AbortError') log.replaceChildren(alertBox(err));
          return;
        }
        log.replaceChildren(deliveries.length
          ? h('div', { class: 'table-wrap' }, h('table', { class: 'deliveries' },
            h('caption', { class: 'visually-hidden' }, 'Deliveries, newest first'),
            h('thead', {}, h('tr', {}, ['Event', 'Status', 'Attempts', 'Last answer', 'Created'].map((c) => h('th', { scope: 'col' }, c)))),
            h('tbody', {}, deliveries.map((d) => h('tr', {},
              h('td', { class: 'mono' }, d.event_id),
              h('td', {}, statusBadge(d.status)),
              h('td', { class: 'num' }, String(d.attempts)),
              h('td', {}, d.last_status ? String(d.last_status) : '', d.last_error ? ` ${d.last_error}` : ''),
              h('td', {}, h('time', { datetime: d.created_at }, dateTime(d.created_at))))))))
          : h('p', { class: 'muted' }, 'No deliveries yet.'));
      });
      const rotate = h('button', { type: 'button', class: 'btn small' }, 'Rotate secret');
      rotate.addEventListener('click', () => act(`/v1/webhooks/${enc(w.id)}/rotate-secret`, { method: 'POST', body: {} }, (r) => {
        showSecret(r);
        announce('Secret rotated');
      }));
      const del = h('button', { type: 'button', class: 'btn small' }, 'Delete');
      del.addEventListener('click', () => {
        if (window.confirm(`Delete the webhook to ${w.url}?`)) act(`/v1/webhooks/${enc(w.id)}`, { method: 'DELETE' }, () => announce('Webhook deleted'));
      });
      const enable = w.status === 'disabled' ? h('button', { type: 'button', class: 'btn small' }, 'Enable') : null;
      enable?.addEventListener('click', () => act(`/v1/webhooks/${enc(w.id)}/enable`, { method: 'POST', body: {} }, () => announce('Webhook enabled')));
      list.append(h('section', { class: 'panel', 'aria-label': `Webhook ${w.url}` },
        h('div', { class: 'panel-head' }, h('h2', { class: 'mono webhook-url' }, w.url), statusBadge(w.status)),
        h('p', {}, 'Events: ', w.events.join(', ')),
        w.disabled_reason ? h('p', { class: 'alert' }, w.disabled_reason) : null,
        w.previous_secret_expires_at ? h('p', { class: 'hint' }, 'The previous secret also signs until ', dateTime(w.previous_secret_expires_at), '.') : null,
        h('div', { class: 'row' }, showLog, rotate, enable, del),
        log));
    }
  }

  function createForm(box, reload) {
    const url = h('input', { id: 'wh-url', name: 'url', type: 'url', required: true, autocomplete: 'off', placeholder: 'https://hooks.example.com/mithub' });
    const boxes = EVENTS.map((ev) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: ev, checked: true }), ' ', ev));
    const err = h('p', { class: 'alert', role: 'alert', hidden: true });
    const form = h('form', { class: 'panel', 'aria-labelledby': 'wh-new' },
      h('h2', { id: 'wh-new' }, 'Register a webhook'),
      h('div', { class: 'field' }, h('label', { for: 'wh-url' }, 'URL'), url),
      h('fieldset', { class: 'checks' }, h('legend', {}, 'Events'), boxes),
      err,
      h('button', { type: 'submit', class: 'btn primary' }, 'Register'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const events = [...form.querySelectorAll('input[name=events]:checked')].map((i) => i.value);
      try {
        const w = await api('/v1/webhooks', { method: 'POST', body: { url: url.value.trim(), events } });
        err.hidden = true;
        url.value = '';
        showSecret(w);
        announce('Webhook registered');
        await reload();
      } catch (ex) {
        err.hidden = false;
        err.textContent = ex.message;
        url.focus();
      }
    });
    return form;
  }

  await load();
}
