// The live meeting view: transcript streamed over SSE, speakers with
// talk-time bars, the topic timeline, pending turns, the ask box with
// cited answers, catch-up, and the meeting's PRs.
import { api, stream, ApiError } from '../api.js';
import { h, clear, clock, duration, parseClock, langOf, announce, statusBadge, dateTime, errorText } from '../dom.js';

const PALETTE = 6;
const HISTORY_PAGE = 500;
const reduceMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export async function meetingView(main, { args: [id], params, signal }) {
  const meeting = await api(`/v1/meetings/${id}`, { signal });
  const lang = meeting.language || 'en';
  const state = {
    lastSeq: -1,
    lastEnd: 0,
    l1Cursor: -1,
    topics: [],
    speakers: [],
    busy: false,
    follow: true,
    unseen: 0,
    rows: new Map(), // seq → <li>
    status: meeting.status,
  };

  // ---- header
  const statusSlot = h('span', {}, statusBadge(meeting.status));
  const live = h('span', { class: 'badge reconnecting', role: 'status' }, 'connecting');
  const endBtn = h('button', { type: 'button', class: 'btn', disabled: meeting.status !== 'active' }, 'End meeting');
  const prBtn = h('button', { type: 'button', class: 'btn primary' }, 'Generate PR');
  const head = h('header', { class: 'meeting-head' },
    h('div', {},
      h('h1', { lang: langOf(meeting.title, lang) }, meeting.title || meeting.room_name || 'Untitled meeting'),
      h('div', { class: 'meta' },
        statusSlot, live,
        h('span', {}, `Language: ${meeting.language || '—'}`),
        meeting.room_name ? h('span', {}, `Room: ${meeting.room_name}`) : null,
        h('span', {}, 'Started ', h('time', { datetime: meeting.started_at }, dateTime(meeting.started_at))))),
    h('div', { class: 'meeting-actions' }, endBtn, prBtn));

  // ---- topic timeline
  const timeline = h('div', { class: 'timeline', role: 'group', 'aria-label': 'Topics over meeting time' });
  const axis = h('div', { class: 'axis', 'aria-hidden': 'true' });
  const topicSummary = h('p', { class: 'muted' }, 'No topics yet: topics appear as the meeting is segmented.');
  const topicList = h('ol', { class: 'topic-list' });
  const timelinePanel = h('section', { class: 'panel', 'aria-labelledby': 'topics-h' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'topics-h' }, 'Topics'), topicSummary),
    timeline, axis, topicList);

  // ---- transcript
  const counts = h('p', { class: 'transcript-status' });
  const transcript = h('ol', {
    class: 'transcript', id: 'transcript', role: 'log', 'aria-live': 'off', 'aria-labelledby': 'transcript-h',
    tabindex: '0', lang,
  });
  const jump = h('button', { type: 'button', class: 'btn small jump', hidden: true }, 'Jump to latest');
  const streamNote = h('p', { class: 'notice', role: 'status', hidden: true });
  const transcriptPanel = h('section', { class: 'panel', 'aria-labelledby': 'transcript-h' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'transcript-h' }, 'Transcript'), counts),
    streamNote, transcript, jump);

  // ---- speakers
  const speakerList = h('ul', { class: 'speakers' });
  const speakersPanel = h('section', { class: 'panel', 'aria-labelledby': 'speakers-h' },
    h('h2', { id: 'speakers-h' }, 'Speakers'), speakerList);

  // ---- ask and catch-up
  const answer = h('div', { class: 'answer', id: 'answer', 'aria-live': 'polite', 'aria-busy': 'false', 'aria-labelledby': 'answer-h' },
    h('h3', { id: 'answer-h', class: 'visually-hidden' }, 'Answer'));
  const q = h('textarea', { id: 'ask-q', name: 'question', rows: '2', maxlength: '4000', 'aria-describedby': 'ask-hint', lang: 'und' });
  const askBtn = h('button', { type: 'submit', class: 'btn primary' }, 'Ask');
  const askForm = h('form', { 'aria-labelledby': 'ask-h' },
    h('label', { for: 'ask-q' }, 'Question'),
    q,
    h('p', { id: 'ask-hint', class: 'hint' }, 'Enter sends, Shift+Enter adds a line. Answers cite the turns they use.'),
    h('div', { class: 'row' }, askBtn));
  const since = h('input', { id: 'since', name: 'since', type: 'text', inputmode: 'numeric', placeholder: 'mm:ss', 'aria-describedby': 'since-hint', autocomplete: 'off' });
  const catchBtn = h('button', { type: 'submit', class: 'btn' }, 'Catch me up');
  const catchForm = h('form', { class: 'catchup' },
    h('fieldset', { class: 'plain' },
      h('legend', {}, 'Catch up'),
      h('label', { for: 'since' }, 'What did I miss since…'),
      h('div', { class: 'row' }, h('div', { class: 'grow' }, since), catchBtn),
      h('p', { id: 'since-hint', class: 'hint' }, 'A time in the meeting, like 12:30. Empty: the last 5 minutes.')));
  const askPanel = h('section', { class: 'panel', 'aria-labelledby': 'ask-h' },
    h('h2', { id: 'ask-h' }, 'Ask about this meeting'), askForm, catchForm, answer);

  // ---- PRs
  const prList = h('ul', { class: 'pr-list' });
  const prNote = h('p', { class: 'muted' }, 'No PRs yet.');
  const prPanel = h('section', { class: 'panel', 'aria-labelledby': 'prs-h' },
    h('h2', { id: 'prs-h' }, 'Pull requests'), prNote, prList);

  main.append(head, timelinePanel,
    h('div', { class: 'meeting-grid' }, transcriptPanel, h('div', { class: 'side' }, speakersPanel, askPanel, prPanel)));

  // ---------------------------------------------------------------- transcript
  function isAtBottom() {
    return transcript.scrollTop + transcript.clientHeight >= transcript.scrollHeight - 48;
  }
  transcript.addEventListener('scroll', () => {
    if (isAtBottom()) {
      state.follow = true;
      state.unseen = 0;
      jump.hidden = true;
    } else {
      state.follow = false;
    }
  }, { passive: true });
  jump.addEventListener('click', () => {
    state.follow = true;
    state.unseen = 0;
    jump.hidden = true;
    transcript.scrollTo({ top: transcript.scrollHeight, behavior: 'auto' });
    transcript.focus({ preventScroll: true });
  });

  function addRows(rows) {
    const frag = document.createDocumentFragment();
    let added = 0;
    for (const r of rows) {
      if (r.seq <= state.lastSeq) continue; // already shown (a reconnect resends nothing older)
      const li = h('li', {
        id: `turn-${r.seq}`, class: r.seq > state.l1Cursor ? 'turn pending' : 'turn', tabindex: '-1',
        dataset: { seq: r.seq },
      },
      h('span', { class: 'when' }, h('time', {}, clock(r.start_ms))),
      h('span', { class: 'who' }, r.speaker_name || r.speaker_id),
      h('p', { class: 'what', lang: langOf(r.text, lang) }, r.text));
      state.rows.set(r.seq, li);
      state.lastSeq = r.seq;
      state.lastEnd = Math.max(state.lastEnd, r.end_ms);
      frag.append(li);
      added++;
    }
    if (added === 0) return;
    transcript.append(frag);
    placeDividers();
    if (state.follow) {
      transcript.scrollTop = transcript.scrollHeight;
    } else {
      state.unseen += added;
      jump.hidden = false;
      jump.textContent = `Jump to latest (${state.unseen} new)`;
    }
    updateCounts();
    renderTimeline();
  }

  function updateCounts() {
    const turns = state.lastSeq + 1;
    const pending = Math.max(0, state.lastSeq - state.l1Cursor);
    counts.replaceChildren(...[
      h('span', { id: 'turn-count' }, `${turns} ${turns === 1 ? 'turn' : 'turns'}`),
      h('span', {}, `${state.topics.length} ${state.topics.length === 1 ? 'topic' : 'topics'}`),
      h('span', { id: 'pending-count' }, `${pending} pending`),
      state.busy ? h('span', { class: 'badge running' }, 'segmenting') : null,
    ].filter(Boolean));
  }

  // Turns after the L1 cursor are not yet in a topic.
  function setL1Cursor(cursor) {
    if (cursor === state.l1Cursor) return;
    const [lo, hi] = cursor > state.l1Cursor ? [state.l1Cursor + 1, cursor] : [cursor + 1, state.l1Cursor];
    const pending = cursor < state.l1Cursor;
    for (let s = lo; s <= hi; s++) state.rows.get(s)?.classList.toggle('pending', pending);
    state.l1Cursor = cursor;
  }

  function goToTurn(seq, { focus = true } = {}) {
    const li = state.rows.get(seq);
    if (!li) return false;
    state.follow = false;
    for (const el of transcript.querySelectorAll('.turn.highlight')) el.classList.remove('highlight');
    li.classList.add('highlight');
    li.scrollIntoView({ block: 'center', behavior: reduceMotion() ? 'auto' : 'smooth' });
    if (focus) li.focus({ preventScroll: true });
    jump.hidden = false;
    jump.textContent = 'Jump to latest';
    return true;
  }

  // ------------------------------------------------------------------ topics
  function topicLabel(t, i) {
    return `Topic ${i + 1}: ${t.title}, ${clock(t.start_ms)} to ${clock(t.end_ms)}`;
  }

  function placeDividers() {
    for (const d of transcript.querySelectorAll('.topic-divider')) d.remove();
    state.topics.forEach((t, i) => {
      const li = state.rows.get(t.start_seq);
      if (!li) return;
      li.before(h('li', { class: 'topic-divider', lang: langOf(t.title, lang) }, `Topic ${i + 1} · ${t.title}`));
    });
  }

  // Rebuilding keeps keyboard focus on the same topic.
  function keepFocus(container, render) {
    const focused = container.contains(document.activeElement) ? document.activeElement.dataset.topic : null;
    render();
    if (focused) container.querySelector(`[data-topic="${CSS.escape(focused)}"]`)?.focus();
  }

  function renderTimeline() {
    const topics = state.topics;
    const total = Math.max(state.lastEnd, ...topics.map((t) => t.end_ms), 1);
    const pct = (ms) => `${Math.min(100, (ms / total) * 100).toFixed(3)}%`;
    keepFocus(timeline, () => {
      clear(timeline);
      topics.forEach((t, i) => {
        const b = h('button', {
          type: 'button', class: `band c${i % PALETTE}`, title: `${t.title} (${clock(t.start_ms)}–${clock(t.end_ms)})`,
          'aria-label': topicLabel(t, i), dataset: { topic: t.id, startSeq: t.start_seq }, lang: langOf(t.title, lang),
        }, t.title);
        b.style.left = pct(t.start_ms);
        b.style.width = pct(Math.max(t.end_ms - t.start_ms, total / 250));
        b.addEventListener('click', () => goToTurn(t.start_seq));
        timeline.append(b);
      });
      const covered = topics.length ? Math.max(...topics.map((t) => t.end_ms)) : 0;
      const pending = Math.max(0, state.lastSeq - state.l1Cursor);
      if (pending > 0 && state.lastEnd > covered) {
        const p = h('div', { class: 'band pending-band', role: 'img', 'aria-label': `${pending} turns not yet in a topic` }, 'pending');
        p.style.left = pct(covered);
        p.style.width = pct(state.lastEnd - covered);
        timeline.append(p);
      }
    });
    axis.replaceChildren(...[0, 1, 2, 3, 4].map((k) => h('span', {}, clock((total * k) / 4))));
  }

  function renderTopics() {
    const n = state.topics.length;
    topicSummary.textContent = n === 0 ? 'No topics yet: topics appear as the meeting is segmented.' : `${n} ${n === 1 ? 'topic' : 'topics'}`;
    keepFocus(topicList, () => {
      topicList.replaceChildren(...state.topics.map((t, i) => h('li', { class: `c${i % PALETTE}`, lang: langOf(`${t.title} ${t.summary}`, lang) },
        h('button', { type: 'button', class: 'linkish', dataset: { topic: t.id }, onclick: () => goToTurn(t.start_seq) }, t.title || `Topic ${i + 1}`),
        h('div', { class: 'muted' }, `${clock(t.start_ms)}–${clock(t.end_ms)} · turns ${t.start_seq}–${t.end_seq}`),
        t.summary ? h('p', { class: 'summary' }, t.summary) : null,
        t.keywords?.length ? h('ul', { class: 'keywords', 'aria-label': 'Keywords' }, t.keywords.map((k) => h('li', {}, k))) : null)));
    });
  }

  // ---------------------------------------------------------------- speakers
  function renderSpeakers() {
    const sps = [...state.speakers].sort((a, b) => b.talk_ms - a.talk_ms);
    const total = sps.reduce((acc, s) => acc + s.talk_ms, 0) || 1;
    const most = sps[0]?.talk_ms || 1;
    speakerList.replaceChildren(...sps.map((s) => {
      const share = Math.round((s.talk_ms / total) * 100);
      const fill = h('span', {});
      fill.style.width = `${((s.talk_ms / most) * 100).toFixed(1)}%`;
      return h('li', { class: 'speaker' },
        h('div', { class: 's-head' },
          h('span', { class: 's-name', lang: langOf(s.name, lang) }, s.name || s.id, s.role ? h('span', { class: 'muted' }, ` · ${s.role.replace('_', ' ')}`) : null),
          h('span', { class: 's-stats' }, `${duration(s.talk_ms)} · ${share}% · ${s.turns} turns`)),
        h('div', { class: 'bar', 'aria-hidden': 'true' }, fill));
    }));
    if (sps.length === 0) speakerList.append(h('li', { class: 'muted' }, 'Nobody has spoken yet.'));
  }

  // ------------------------------------------------------------ the stream
  function setLive(kind) {
    live.className = `badge ${kind}`;
    live.textContent = kind === 'live' ? 'live' : kind === 'offline' ? 'offline' : 'reconnecting';
  }

  function onEvent(event, data) {
    switch (event) {
      case 'transcript':
        addRows(data.rows || []);
        streamNote.hidden = true;
        break;
      case 'topics': {
        const before = state.topics.length;
        state.topics = data.topics || [];
        setL1Cursor(data.l1_cursor);
        renderTopics();
        renderTimeline();
        placeDividers();
        updateCounts();
        if (state.topics.length !== before) announce(`${state.topics.length} topics`);
        break;
      }
      case 'pending':
        setL1Cursor(data.l1_cursor);
        state.busy = data.busy;
        updateCounts();
        renderTimeline();
        break;
      case 'speakers':
        state.speakers = data.speakers || [];
        renderSpeakers();
        break;
      case 'meeting':
        state.status = data.status;
        statusSlot.replaceChildren(statusBadge(data.status));
        endBtn.disabled = data.status !== 'active';
        break;
      case 'error':
        streamNote.hidden = false;
        streamNote.textContent = data?.error?.message || 'The live stream reported an error; retrying.';
        break;
      default:
        break;
    }
  }

  async function follow() {
    let delay = 1000;
    while (!signal.aborted) {
      try {
        await stream(`/v1/meetings/${id}/events?after_seq=${state.lastSeq}`, {
          signal, onEvent,
          onOpen: () => { setLive('live'); delay = 1000; },
        });
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          setLive('offline');
          streamNote.hidden = false;
          streamNote.textContent = errorText(err);
          return;
        }
      }
      if (signal.aborted) return;
      setLive('reconnecting');
      await new Promise((resolve) => {
        const t = setTimeout(resolve, delay);
        signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
      });
      delay = Math.min(delay * 2, 15000);
    }
  }

  // -------------------------------------------------------------- asking
  const threadID = `console-${crypto.randomUUID()}`;
  let asking = null;

  function renderAnswerText(el, text, citations) {
    const byN = new Map(citations.map((c) => [c.n, c]));
    const parts = text.split(/(\[\d+\])/);
    el.replaceChildren(...parts.map((p) => {
      const m = /^\[(\d+)\]$/.exec(p);
      const c = m && byN.get(Number(m[1]));
      if (!c) return p;
      return h('button', {
        type: 'button', class: 'linkish cite-ref', dataset: { seq: c.seq },
        'aria-label': `Citation ${c.n}: ${c.speaker_name} at ${clock(c.start_ms)}`, onclick: () => goToTurn(c.seq),
      }, `[${c.n}]`);
    }));
  }

  async function ask(body, label) {
    asking?.abort();
    const ctl = new AbortController();
    asking = ctl;
    signal.addEventListener('abort', () => ctl.abort(), { once: true });
    const text = h('p', { class: 'answer-text', lang: 'und' });
    const cites = [];
    const meta = h('p', { class: 'hint' });
    answer.replaceChildren(h('h3', { id: 'answer-h' }, label), text, meta);
    answer.setAttribute('aria-busy', 'true');
    askBtn.disabled = true;
    catchBtn.disabled = true;
    meta.textContent = 'Thinking…';
    try {
      let done = null;
      await stream(`/v1/meetings/${id}/ask`, {
        method: 'POST', body, signal: ctl.signal,
        onEvent: (event, data) => {
          if (event === 'token') {
            text.append(data.text);
            meta.textContent = 'Answering…';
          } else if (event === 'citation') {
            cites.push(data);
          } else if (event === 'done') {
            done = data;
          } else if (event === 'error') {
            throw new ApiError(502, data?.error?.code || 'unavailable', data?.error?.message || 'The model did not answer.');
          }
        },
      });
      const citations = done?.citations?.length ? done.citations : cites;
      const answerText = done?.answer ?? text.textContent;
      text.setAttribute('lang', langOf(answerText, lang));
      renderAnswerText(text, answerText, citations);
      meta.textContent = [
        done?.provider ? `Answered by ${done.provider}` : null,
        done?.pending_turns ? `${done.pending_turns} turns not yet in a topic were read raw` : null,
        ...(done?.warnings || []),
      ].filter(Boolean).join(' · ');
      if (citations.length) {
        answer.append(h('h4', { class: 'hint' }, 'Sources'), h('ol', { class: 'citations', 'aria-label': 'Citations' }, citations.map((c) => h('li', {},
          h('button', { type: 'button', class: 'linkish', dataset: { seq: c.seq }, onclick: () => goToTurn(c.seq) },
            `[${c.n}] ${c.speaker_name || c.speaker_id} · ${clock(c.start_ms)}`),
          h('span', { class: 'quote', lang: langOf(c.text, lang) }, c.text.length > 160 ? `${c.text.slice(0, 160)}…` : c.text)))));
      }
      announce(`Answer ready${citations.length ? ` with ${citations.length} citations` : ''}`);
    } catch (err) {
      if (err.name === 'AbortError') return;
      meta.textContent = '';
      answer.append(h('p', { class: 'alert', role: 'alert' }, errorText(err)));
    } finally {
      answer.setAttribute('aria-busy', 'false');
      if (asking === ctl) {
        askBtn.disabled = false;
        catchBtn.disabled = false;
      }
    }
  }

  askForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const question = q.value.trim();
    if (!question) {
      q.setAttribute('aria-invalid', 'true');
      q.focus();
      return;
    }
    q.removeAttribute('aria-invalid');
    ask({ question, thread_id: threadID, mode: 'answer', asker_name: 'console' }, question);
  });
  q.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      askForm.requestSubmit();
    }
  });
  catchForm.addEventListener('submit', (e) => {
    e.preventDefault();
    let sinceMS = parseClock(since.value);
    if (since.value.trim() && sinceMS === null) {
      since.setAttribute('aria-invalid', 'true');
      since.focus();
      return;
    }
    since.removeAttribute('aria-invalid');
    if (sinceMS === null) sinceMS = Math.max(0, state.lastEnd - 5 * 60_000);
    ask({ mode: 'catch_up', since_ms: sinceMS, thread_id: threadID, asker_name: 'console' }, `What happened since ${clock(sinceMS)}`);
  });

  // ------------------------------------------------------------------ PRs
  async function loadPRs() {
    try {
      const { prs } = await api(`/v1/meetings/${id}/prs`, { signal });
      prNote.hidden = prs.length > 0;
      prList.replaceChildren(...prs.map((p) => h('li', {},
        h('a', { href: `#/prs/${p.id}` }, p.title || `PR of ${dateTime(p.created_at)}`),
        statusBadge(p.status))));
    } catch (err) {
      if (err.name === 'AbortError') return;
      prNote.hidden = false;
      prNote.textContent = err instanceof ApiError && err.status === 503 ? 'PRs are not configured on this server.' : errorText(err);
    }
  }

  prBtn.addEventListener('click', async () => {
    prBtn.disabled = true;
    prBtn.textContent = 'Generating…';
    try {
      const res = await api(`/v1/meetings/${id}/generate-pr`, { method: 'POST', body: {}, signal });
      location.hash = `#/prs/${res.pr_id}`;
    } catch (err) {
      if (err.name === 'AbortError') return;
      prPanel.append(h('p', { class: 'alert', role: 'alert' }, errorText(err)));
      prBtn.disabled = false;
      prBtn.textContent = 'Generate PR';
    }
  });

  endBtn.addEventListener('click', async () => {
    if (!window.confirm('End this meeting? Its last topics are segmented and it stops taking turns.')) return;
    endBtn.disabled = true;
    try {
      const m = await api(`/v1/meetings/${id}/end`, { method: 'POST', body: {}, signal });
      onEvent('meeting', m);
      announce('Meeting ended');
    } catch (err) {
      if (err.name === 'AbortError') return;
      endBtn.disabled = state.status !== 'active';
      head.append(h('p', { class: 'alert', role: 'alert' }, errorText(err)));
    }
  });

  // ------------------------------------------------------------ start-up
  updateCounts();
  renderTimeline();
  renderSpeakers();
  for (let after = -1; ;) {
    const page = await api(`/v1/meetings/${id}/transcript?after_seq=${after}&limit=${HISTORY_PAGE}`, { signal });
    addRows(page.rows);
    after = page.next_after_seq;
    if (!page.more) break;
  }
  loadPRs();
  follow();
  const seq = params.get('seq');
  if (seq !== null && /^\d+$/.test(seq)) {
    // Topics come with the stream; the turn itself is already loaded.
    requestAnimationFrame(() => goToTurn(Number(seq)));
  }
}
