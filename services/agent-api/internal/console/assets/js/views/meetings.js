// The meeting list: newest first.
import { api } from '../api.js';
import { h, dateTime, statusBadge, langOf } from '../dom.js';

export async function meetingsView(main, { signal }) {
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading meetings…');
  const refresh = h('button', { type: 'button', class: 'btn small' }, 'Refresh');
  const body = h('div', {});
  main.append(
    h('div', { class: 'panel-head' }, h('h1', {}, 'Meetings'), refresh),
    status, body);

  async function load() {
    status.textContent = 'Loading meetings…';
    const { meetings } = await api('/v1/meetings?limit=200', { signal });
    body.replaceChildren();
    status.textContent = meetings.length === 1 ? '1 meeting' : `${meetings.length} meetings`;
    if (meetings.length === 0) {
      body.append(h('p', {}, 'No meetings yet. Replay one with ', h('code', {}, 'mithubctl replay --meeting-file F.json'), '.'));
      return;
    }
    const rows = meetings.map((m) => h('tr', {},
      h('td', {}, h('a', { href: `#/meetings/${m.id}`, lang: langOf(m.title, m.language || 'en') }, m.title || m.room_name || m.id)),
      h('td', {}, statusBadge(m.status)),
      h('td', { class: 'opt' }, m.language || ''),
      h('td', { class: 'num' }, String(m.counters?.utterances ?? 0)),
      h('td', { class: 'opt' }, h('time', { datetime: m.started_at }, dateTime(m.started_at)))));
    body.append(h('div', { class: 'table-wrap panel' },
      h('table', {},
        h('caption', { class: 'visually-hidden' }, 'Meetings, newest first'),
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, 'Title'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col', class: 'opt' }, 'Language'),
          h('th', { scope: 'col', class: 'num' }, 'Turns'),
          h('th', { scope: 'col', class: 'opt' }, 'Started'))),
        h('tbody', {}, rows))));
  }
  refresh.addEventListener('click', () => load().catch((e) => { if (e.name !== 'AbortError') status.textContent = e.message; }));
  await load();
}
