// The meeting list: newest first.
import { api, upload } from '../api.js';
import { h, dateTime, statusBadge, langOf, announce } from '../dom.js';

export async function meetingsView(main, { signal }) {
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading meetings…');
  const refresh = h('button', { type: 'button', class: 'btn small' }, 'Refresh');
  const body = h('div', {});
  main.append(
    h('div', { class: 'panel-head' }, h('h1', {}, 'Meetings'), refresh),
    importForm(() => reload()),
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
  function reload() {
    return load().catch((e) => { if (e.name !== 'AbortError') status.textContent = e.message; });
  }
  refresh.addEventListener('click', reload);
  await load();
}

// The import form: a WebVTT, SRT, JSONL or QMSum file becomes a finished
// meeting (POST /v1/meetings/import); the same file again finds it.
function importForm(reload) {
  const file = h('input', { id: 'import-file', name: 'file', type: 'file', required: true,
    accept: '.vtt,.srt,.jsonl,.json,text/vtt,application/x-subrip', 'aria-describedby': 'import-hint' });
  const title = h('input', { id: 'import-title', name: 'title', type: 'text', autocomplete: 'off' });
  const project = h('input', { id: 'import-project', name: 'project', type: 'text', autocomplete: 'off' });
  const result = h('p', { role: 'status', class: 'hint' });
  const submit = h('button', { type: 'submit', class: 'btn' }, 'Import');
  const form = h('form', { class: 'panel', 'aria-labelledby': 'import-h' },
    h('h2', { id: 'import-h' }, 'Import a transcript'),
    h('div', { class: 'row' },
      h('div', { class: 'grow' }, h('label', { for: 'import-file' }, 'File'), file),
      h('div', {}, h('label', { for: 'import-title' }, 'Title'), title),
      h('div', {}, h('label', { for: 'import-project' }, 'Project'), project),
      submit),
    h('p', { id: 'import-hint', class: 'hint' }, 'WebVTT (Zoom, Teams, Google Meet), SRT, JSONL or QMSum JSON. Importing the same file again stores nothing new.'),
    result);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!file.files.length) {
      result.textContent = 'Choose a file.';
      file.focus();
      return;
    }
    const fd = new FormData();
    fd.append('file', file.files[0], file.files[0].name);
    if (title.value.trim()) fd.append('title', title.value.trim());
    if (project.value.trim()) fd.append('project', project.value.trim());
    submit.disabled = true;
    result.textContent = 'Importing…';
    try {
      const r = await upload('/v1/meetings/import', fd);
      result.replaceChildren(
        r.created ? `Imported ${r.segments} segments (${r.format}) into ` : `Already imported (${r.segments} segments): `,
        h('a', { href: `#/meetings/${r.meeting_id}` }, r.meeting?.title || r.meeting_id), '.');
      announce(r.created ? 'Meeting imported' : 'Meeting already imported');
      reload();
    } catch (err) {
      result.textContent = err.message;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
