// The team memory bank of a project: one entry per category, and the
// project status recorded by each approved PR.
import { api, enc } from '../api.js';
import { h, dateTime, langOf } from '../dom.js';

const NAMES = {
  '00-project-overview': 'Project overview',
  '01-summary': 'Summary',
  '02-progress': 'Progress',
  '03-decisions': 'Decisions',
  '04-lessons': 'Lessons',
};

// Each meeting's section is wrapped in marker comments that the server
// uses to merge updates; they are not for reading.
const marker = /^<!-- \/?mithub:[^>]*-->\s*$/;
const readable = (text) => text.split('\n').filter((l) => !marker.test(l)).join('\n').trim();

export async function memoryView(main, { args: [project = 'default'], signal }) {
  const input = h('input', { id: 'project', name: 'project', type: 'text', value: project, required: true, autocomplete: 'off' });
  const form = h('form', { class: 'row', 'aria-label': 'Open a project' },
    h('div', { class: 'grow' }, h('label', { for: 'project' }, 'Project'), input),
    h('button', { type: 'submit', class: 'btn' }, 'Open'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = input.value.trim();
    if (p) location.hash = `#/memory/${enc(p)}`;
  });
  main.append(h('h1', {}, `Memory bank: ${project}`), h('div', { class: 'panel' }, form));

  const bank = await api(`/v1/memory-bank/${enc(project)}`, { signal });
  const grid = h('div', { class: 'memory-grid' }, bank.categories.map((c) => h('section', { class: 'panel', 'aria-labelledby': `cat-${c.category}` },
    h('h2', { id: `cat-${c.category}` }, NAMES[c.category] || c.category, ' ', h('span', { class: 'muted mono' }, c.category)),
    c.updated_at ? h('p', { class: 'hint' }, 'Updated ', h('time', { datetime: c.updated_at }, dateTime(c.updated_at))) : null,
    c.content ? h('pre', { class: 'md', lang: langOf(c.content, 'en') }, readable(c.content)) : h('p', { class: 'muted' }, 'Empty.'))));
  const statuses = h('section', { class: 'panel', 'aria-labelledby': 'status-h' },
    h('h2', { id: 'status-h' }, 'Project status by meeting'),
    bank.status.length
      ? h('ol', { class: 'items' }, bank.status.map((s) => h('li', {},
        h('a', { href: `#/meetings/${s.meeting_id}` }, 'Meeting'), ' · ', h('time', { datetime: s.updated_at }, dateTime(s.updated_at)),
        h('pre', { class: 'md', lang: langOf(s.content, 'en') }, s.content))))
      : h('p', { class: 'muted' }, 'No approved PRs yet.'));
  main.append(grid, statuses);
}
