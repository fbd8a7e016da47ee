// Search across all of the tenant's meetings (topics, hybrid ranking).
import { api, enc } from '../api.js';
import { h, clock, langOf, announce } from '../dom.js';

export async function searchView(main, { params, signal }) {
  const q = params.get('q') || '';
  const input = h('input', { id: 'search-q', name: 'q', type: 'search', value: q, required: true, 'aria-describedby': 'search-hint' });
  const form = h('form', { role: 'search', 'aria-label': 'Meetings' },
    h('label', { for: 'search-q' }, 'Search all meetings'),
    h('div', { class: 'row' }, h('div', { class: 'grow' }, input), h('button', { type: 'submit', class: 'btn primary' }, 'Search')),
    h('p', { id: 'search-hint', class: 'hint' }, 'Matches topic titles, summaries and keywords, in Korean or English.'));
  const status = h('p', { class: 'muted', role: 'status' });
  const results = h('ol', { class: 'results', 'aria-label': 'Search results' });
  main.append(h('h1', {}, 'Search'), h('div', { class: 'panel' }, form), status, results);

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = input.value.trim();
    if (!v) { input.focus(); return; }
    location.hash = `#/search?q=${enc(v)}`;
  });
  if (!q) return;

  status.textContent = 'Searching…';
  const [res, list] = await Promise.all([
    api(`/v1/search?q=${enc(q)}&k=20`, { signal }),
    api('/v1/meetings?limit=1000', { signal }).catch(() => ({ meetings: [] })),
  ]);
  const titles = new Map(list.meetings.map((m) => [m.id, m.title || m.room_name || m.id]));
  status.textContent = res.results.length === 1 ? '1 result' : `${res.results.length} results`;
  announce(status.textContent);
  results.replaceChildren(...res.results.map((r) => h('li', { lang: langOf(`${r.title} ${r.summary}`, 'en') },
    h('h2', {}, h('a', { href: `#/meetings/${r.meeting_id}?seq=${r.start_seq}` }, r.title || 'Untitled topic')),
    h('div', { class: 'muted' }, `${titles.get(r.meeting_id) || r.meeting_id} · ${clock(r.start_ms)}–${clock(r.end_ms)} · score ${r.score.toFixed(3)}`),
    r.summary ? h('p', {}, r.summary) : null,
    r.keywords?.length ? h('ul', { class: 'keywords', 'aria-label': 'Keywords' }, r.keywords.map((k) => h('li', {}, k))) : null)));
  if (res.results.length === 0) results.append(h('li', {}, 'Nothing matched. Try other words.'));
}
