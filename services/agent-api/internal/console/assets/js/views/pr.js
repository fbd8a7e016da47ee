// A meeting PR: agenda, decisions, action items, open questions and the
// memory-bank updates it proposes; approve merges them into the memory
// bank, reject discards them.
import { api, enc } from '../api.js';
import { h, append, dateTime, statusBadge, langOf, announce, errorText } from '../dom.js';

const OPEN = new Set(['queued', 'running']);

export async function prView(main, { args: [id], signal }) {
  let pr = await api(`/v1/prs/${id}`, { signal });
  const title = h('h1', {});
  const statusSlot = h('span', {});
  const meta = h('div', { class: 'meta muted' });
  const approveBtn = h('button', { type: 'button', class: 'btn primary' }, 'Approve');
  const rejectBtn = h('button', { type: 'button', class: 'btn danger' }, 'Reject');
  const result = h('div', { role: 'status', 'aria-live': 'polite' });
  const body = h('div', { class: 'pr-grid' });
  main.append(
    h('header', { class: 'meeting-head' },
      h('div', {}, title, h('div', { class: 'meta' }, statusSlot, meta)),
      h('div', { class: 'pr-actions' }, approveBtn, rejectBtn)),
    result, body);

  function section(heading, idBase, content, wide = false) {
    return h('section', { class: `panel${wide ? ' wide' : ''}`, 'aria-labelledby': `${idBase}-h` },
      h('h2', { id: `${idBase}-h` }, heading), content);
  }

  function turnLink(seq, label) {
    if (seq === undefined || seq === null) return null;
    return h('a', { href: `#/meetings/${pr.meeting_id}?seq=${seq}`, class: 'sub' }, label ?? `turn ${seq}`);
  }

  function list(items, render, empty) {
    if (!items?.length) return h('p', { class: 'muted' }, empty);
    return h('ol', { class: 'items' }, items.map((it) => h('li', { lang: langOf(JSON.stringify(it), 'en') }, render(it))));
  }

  function render() {
    title.textContent = pr.title || 'Meeting PR';
    title.setAttribute('lang', langOf(pr.title, 'en'));
    statusSlot.replaceChildren(statusBadge(pr.status));
    meta.replaceChildren(
      h('a', { href: `#/meetings/${pr.meeting_id}` }, 'Meeting'),
      ' · project ', h('a', { href: `#/memory/${enc(pr.project)}` }, pr.project),
      ` · requested by ${pr.requested_by || '—'} · ${dateTime(pr.created_at)}`);
    approveBtn.disabled = pr.status !== 'succeeded';
    rejectBtn.disabled = !(pr.status === 'succeeded' || pr.status === 'failed');
    body.replaceChildren();
    if (OPEN.has(pr.status)) {
      body.append(h('p', { class: 'notice wide', role: 'status' }, `The PR is ${pr.status}; this page updates when it is ready.`));
      return;
    }
    if (pr.status === 'failed') {
      body.append(h('p', { class: 'alert wide', role: 'alert' }, `Generation failed: ${pr.error || 'no reason given'}`));
    }
    append(body, [
      section('Agenda', 'agenda', list(pr.agenda, (a) => [
        h('strong', {}, a.title || 'Untitled'), a.summary ? h('div', {}, a.summary) : null,
        h('div', { class: 'sub' }, turnLink(a.start_seq, `turns ${a.start_seq}–${a.end_seq}`),
          a.keywords?.length ? ` · ${a.keywords.join(', ')}` : ''),
      ], 'No agenda items.')),
      section('Decisions', 'decisions', list(pr.decisions, (d) => [
        h('div', {}, d.text), h('div', { class: 'sub' }, d.speaker ? `${d.speaker} · ` : '', turnLink(d.seq)),
      ], 'No decisions.')),
      section('Action items', 'actions', list(pr.action_items, (a) => [
        h('div', {}, a.text),
        h('div', { class: 'sub' }, `Owner: ${a.owner || 'unassigned'}`, a.due ? ` · due ${a.due_date || a.due}` : '', ' · ', turnLink(a.seq)),
      ], 'No action items.')),
      section('Open questions', 'questions', list(pr.open_questions, (o) => [
        h('div', {}, o.text), h('div', { class: 'sub' }, o.asker ? `${o.asker} · ` : '', turnLink(o.seq)),
      ], 'No open questions.')),
      section('Memory bank updates', 'updates', pr.memory_updates?.length
        ? h('div', {}, pr.memory_updates.map((u) => [h('h3', {}, u.category), h('pre', { class: 'md', lang: langOf(u.content, 'en') }, u.content)]))
        : h('p', { class: 'muted' }, 'No memory bank updates.'), true),
      pr.markdown ? section('Document', 'doc', h('details', {}, h('summary', {}, 'Markdown'), h('pre', { class: 'md' }, pr.markdown)), true) : null,
    ]);
  }

  async function review(action) {
    approveBtn.disabled = true;
    rejectBtn.disabled = true;
    try {
      pr = await api(`/v1/prs/${id}/${action}`, { method: 'POST', body: {}, signal });
      render();
      const done = action === 'approve' ? 'approved: its updates are in the memory bank' : 'rejected';
      result.replaceChildren(h('p', { class: 'notice' }, `PR ${done}. `,
        action === 'approve' ? h('a', { href: `#/memory/${enc(pr.project)}` }, 'Open the memory bank') : null));
      announce(`PR ${action === 'approve' ? 'approved' : 'rejected'}`);
    } catch (err) {
      if (err.name === 'AbortError') return;
      result.replaceChildren(h('p', { class: 'alert', role: 'alert' }, errorText(err)));
      render();
    }
  }
  approveBtn.addEventListener('click', () => review('approve'));
  rejectBtn.addEventListener('click', () => review('reject'));

  render();
  // Poll while the worker builds it: quick at first, then slower.
  (async () => {
    let delay = 500;
    while (OPEN.has(pr.status) && !signal.aborted) {
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 1.5, 5000);
      try {
        pr = await api(`/v1/prs/${id}`, { signal });
        render();
        if (!OPEN.has(pr.status)) announce(`PR ${pr.status}`);
      } catch (err) {
        if (err.name === 'AbortError') return;
      }
    }
  })();
}
