// The console's entry point: sign-in, navigation and the hash router.
import { api, auth, ApiError } from './api.js';
import { h, clear, announce } from './dom.js';
import { meetingsView } from './views/meetings.js';
import { meetingView } from './views/meeting.js';
import { searchView } from './views/search.js';
import { prView } from './views/pr.js';
import { memoryView } from './views/memory.js';
import { webhooksView } from './views/webhooks.js';

const main = document.getElementById('main');
const nav = document.querySelector('.site-nav');
const signOut = document.getElementById('sign-out');

const uuid = '([0-9a-fA-F-]{36})';
const routes = [
  { re: /^\/?$/, nav: 'meetings', view: meetingsView },
  { re: /^\/meetings$/, nav: 'meetings', view: meetingsView },
  { re: new RegExp(`^/meetings/${uuid}$`), nav: 'meetings', view: meetingView },
  { re: /^\/search$/, nav: 'search', view: searchView },
  { re: new RegExp(`^/prs/${uuid}$`), nav: 'meetings', view: prView },
  { re: /^\/memory(?:\/([^/]+))?$/, nav: 'memory', view: memoryView },
  { re: /^\/webhooks$/, nav: 'webhooks', view: webhooksView },
];

let current = null; // { abort: AbortController }

function parseHash() {
  const raw = decodeURI(location.hash.replace(/^#/, '')) || '/meetings';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  return { path, params };
}

async function route() {
  current?.abort.abort();
  const abort = new AbortController();
  current = { abort };
  if (!auth.key) {
    showSignIn();
    return;
  }
  nav.hidden = false;
  signOut.hidden = false;
  const { path, params } = parseHash();
  const r = routes.find((x) => x.re.test(path));
  for (const a of nav.querySelectorAll('a')) {
    if (r && a.dataset.nav === r.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  clear(main);
  if (!r) {
    main.append(h('h1', { tabindex: '-1' }, 'Not found'), h('p', {}, 'There is no such page. ', h('a', { href: '#/meetings' }, 'Go to the meetings.')));
    focusHeading();
    return;
  }
  const m = path.match(r.re);
  try {
    await r.view(main, { args: m.slice(1).map((x) => (x === undefined ? x : decodeURIComponent(x))), params, signal: abort.signal });
  } catch (err) {
    if (err.name === 'AbortError' || abort.signal.aborted) return;
    main.append(h('p', { class: 'alert', role: 'alert' }, err.message || String(err)));
  }
  if (!abort.signal.aborted) focusHeading();
}

// After navigation, focus moves to the page's heading so screen readers
// announce the new page and keyboard users start at the top.
function focusHeading() {
  const h1 = main.querySelector('h1');
  if (h1) {
    h1.setAttribute('tabindex', '-1');
    h1.focus({ preventScroll: true });
    document.title = `${h1.textContent} · MitHub console`;
  }
}

function showSignIn(message) {
  nav.hidden = true;
  signOut.hidden = true;
  clear(main);
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true, 'aria-describedby': 'api-key-hint' });
  const err = h('p', { id: 'signin-error', class: 'alert', role: 'alert', hidden: !message }, message || '');
  const submit = h('button', { type: 'submit', class: 'btn primary' }, 'Sign in');
  const form = h('form', { class: 'panel signin', 'aria-labelledby': 'signin-title', novalidate: true },
    h('h1', { id: 'signin-title' }, 'Sign in'),
    h('div', { class: 'field' },
      h('label', { for: 'api-key' }, 'API key'),
      input,
      h('p', { id: 'api-key-hint', class: 'hint' }, 'A bearer key from `mithubctl apikey create`. It is kept in this tab only (sessionStorage).')),
    err, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const key = input.value.trim();
    if (!key) {
      err.hidden = false;
      err.textContent = 'Enter an API key.';
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    submit.disabled = true;
    try {
      await api('/v1/meetings?limit=1', { key });
      auth.set(key);
      announce('Signed in');
      if (!location.hash || location.hash === '#/' || location.hash === '#') location.hash = '#/meetings';
      else route();
    } catch (ex) {
      err.hidden = false;
      err.textContent = ex instanceof ApiError && ex.status === 401 ? 'That key was not accepted.' : ex.message;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  main.append(form);
  input.focus();
}

// The skip link must not change the hash, which is the router's.
document.querySelector('.skip-link').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
  main.scrollIntoView();
});

signOut.addEventListener('click', () => {
  auth.clear();
  current?.abort.abort();
  showSignIn();
  announce('Signed out');
});

window.addEventListener('mithub:unauthorized', () => {
  if (!auth.key) return;
  auth.clear();
  current?.abort.abort();
  showSignIn('Your key was not accepted any more. Sign in again.');
});
window.addEventListener('hashchange', route);
route();
