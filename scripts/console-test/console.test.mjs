// Browser test of the agent-api web console (scripts/test-console.sh starts
// agent-api and pr-worker and sets the environment). Debian's Chromium,
// driven by playwright-core, with a fresh profile. Every wait is a
// condition with a deadline; screenshots go to SCREENSHOT_DIR.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run scripts/test-console.sh)`);
  return v;
};
const base = env('CONSOLE_URL');
const key = env('MITHUB_API_KEY');
const mithubctl = env('MITHUBCTL');
const meetingFile = env('MEETING_FILE');
const shots = env('SCREENSHOT_DIR');
const rate = process.env.REPLAY_RATE || '60';
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
const WAIT = 90_000; // the deadline of any one wait

const QUESTION = env('QUESTION');
const TITLE = '출시 리뷰와 리모컨 킥오프 · Launch review and remote control kickoff';
const KOREAN_TURNS = [
  { speaker_id: 'kim-minsu', speaker_name: '김민수', text: '결정: 리모컨 출시는 다음 달 첫째 주로 합니다.' },
  { speaker_id: 'lee-jieun', speaker_name: '이지은', text: '액션 아이템: 이지은 님이 배터리 사양을 금요일까지 정리합니다.' },
  { speaker_id: 'kim-minsu', speaker_name: '김민수', text: '좋습니다. 다음 회의에서 디자인 시안을 함께 검토하죠.' },
];

// A WebVTT file as Zoom or Teams export it: speakers in <v> tags, one
// Korean cue. And one whose second cue ends before it starts (line 8).
const IMPORT_TITLE = 'Imported standup · 가져온 회의';
const IMPORT_VTT = `WEBVTT

1
00:00:01.000 --> 00:00:04.000
<v Alice Park>Welcome, this standup came from another tool.

2
00:00:04.500 --> 00:00:08.000
<v Bob Lee>The export round trip works for SubRip too.

3
00:00:08.500 --> 00:00:12.000
<v 김민수>가져오기 기능은 오늘 배포합니다.

4
00:00:12.500 --> 00:00:15.000
<v Alice Park>Then we are done for today.
`;
const IMPORT_TURNS = [
  ['Alice Park', 'Welcome, this standup came from another tool.'],
  ['Bob Lee', 'The export round trip works for SubRip too.'],
  ['김민수', '가져오기 기능은 오늘 배포합니다.'],
  ['Alice Park', 'Then we are done for today.'],
];
const BAD_VTT = `WEBVTT

1
00:00:01.000 --> 00:00:04.000
<v Alice Park>This cue is fine.

2
00:00:09.000 --> 00:00:05.000
<v Bob Lee>This one ends before it starts.
`;

// ---------------------------------------------------------------- helpers

/** Polls fn until it returns something truthy, or fails after ms. */
async function until(what, fn, ms = WAIT) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The v1 values of a delivery's X-MitHub-Signature that are HMAC-SHA256
 * over "t.body" with secret (none: not signed with it), checking that t
 * is within 5 minutes of now.
 */
function signedWith(req, secret) {
  const parts = String(req.headers['x-mithub-signature'] || '').split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  assert.ok(/^\d+$/.test(t || ''), `signature without t: ${req.headers['x-mithub-signature']}`);
  assert.ok(Math.abs(Date.now() / 1000 - Number(t)) < 300, `signature time ${t} is not now`);
  const want = createHmac('sha256', secret).update(`${t}.`).update(req.body).digest();
  return parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v || ''))
    .filter(([, v]) => timingSafeEqual(Buffer.from(v, 'hex'), want)).length;
}

/** The receiver's POSTs of one event (by X-MitHub-Event-ID). */
function deliveriesOf(eventID) {
  return received.filter((r) => r.method === 'POST' && r.headers['x-mithub-event-id'] === eventID);
}

async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The turns replay sends: a .jsonl file's lines, a QMSum meeting's turns with text. */
function spokenTurns(file) {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.jsonl')) return text.split('\n').filter((l) => l.trim() !== '').length;
  const m = JSON.parse(text);
  return m.meeting_transcripts.filter((t) => (t.content || '').trim() !== '').length;
}

let passed = 0;
const started = Date.now();
async function step(name, fn) {
  const t0 = Date.now();
  await fn();
  passed++;
  console.log(`console-test: ok ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** Counts of turns and topics in the meeting view. */
function viewCounts(page) {
  return page.evaluate(() => ({
    turns: document.querySelectorAll('#transcript li.turn').length,
    topics: document.querySelectorAll('.timeline .band:not(.pending-band)').length,
    pending: document.querySelectorAll('#transcript li.turn.pending').length,
  }));
}

/** Every form control has a label; the page has its landmarks. */
async function checkAccessible(page, where) {
  const problems = await page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('input, textarea, select')) {
      if (el.type === 'hidden') continue;
      if (!(el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby'))) out.push(`unlabelled ${el.tagName} #${el.id}`);
    }
    for (const el of document.querySelectorAll('button')) {
      if (!(el.textContent.trim() || el.getAttribute('aria-label'))) out.push(`button without a name: ${el.outerHTML.slice(0, 80)}`);
    }
    if (!document.querySelector('header.site-header')) out.push('no banner');
    if (!document.querySelector('main#main')) out.push('no main landmark');
    if (document.querySelectorAll('h1').length !== 1) out.push(`${document.querySelectorAll('h1').length} h1 elements`);
    return out;
  });
  assert.deepEqual(problems, [], `accessibility problems on ${where}`);
}

/** Nothing is wider than the viewport (no sideways scrolling). */
async function checkNoOverflow(page, where) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width + 1, `${where}: page is ${scroll}px wide in a ${width}px viewport`);
}

// ------------------------------------------------------------------ run

// A webhook receiver on loopback (test-console.sh sets
// MITHUB_WEBHOOK_ALLOW_PRIVATE): records every request, answers 204.
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookURL = `http://127.0.0.1:${receiver.address().port}/mithub`;
const files = mkdtempSync(join(tmpdir(), 'mithub-console-files-'));
const importFile = join(files, 'standup.vtt');
const badFile = join(files, 'broken.vtt');
writeFileSync(importFile, IMPORT_VTT);
writeFileSync(badFile, BAD_VTT);

const profile = mkdtempSync(join(tmpdir(), 'mithub-console-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: browserPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
  locale: 'en-US',
  reducedMotion: 'reduce',
});
const page = context.pages()[0] ?? await context.newPage();
page.setDefaultTimeout(WAIT);
const pageErrors = [];
page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
page.on('console', (msg) => {
  // The wrong key on purpose answers 401, the malformed import and the
  // ftp webhook 400; anything else logged as an error (a CSP violation, a
  // failed module) fails the test.
  if (msg.type() !== 'error' || /status of 401/.test(msg.text())) return;
  if (/status of 400/.test(msg.text()) && /\/v1\/(meetings\/import|webhooks)$/.test(msg.location().url)) return;
  pageErrors.push(`console: ${msg.text()}`);
});
page.on('dialog', (d) => d.accept());

let replay = null;
let failed = false;
try {
  const total = spokenTurns(meetingFile);
  const meeting = await api('POST', '/v1/meetings', { title: TITLE, room_name: 'console-test', language: 'en' });

  await step('sign in with a bearer key kept in sessionStorage', async () => {
    await page.goto(`${base}/`);
    assert.equal(new URL(page.url()).pathname, '/console/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted.').waitFor();
    await page.getByLabel('API key').fill(key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Meetings', level: 1 }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('mithub.apiKey')), key);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    const link = page.getByRole('link', { name: TITLE });
    await link.waitFor();
    assert.equal(await link.getAttribute('lang'), 'ko');
    await checkAccessible(page, 'the meeting list');
    await shot(page, '1280-meetings');
  });

  await step('keyboard: the header is reachable from the page heading, the skip link moves focus to main', async () => {
    // Navigation focuses the page's h1; going back walks the header.
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1');
    const visited = [];
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Shift+Tab');
      const name = await page.evaluate(() => document.activeElement?.textContent.trim());
      visited.push(name);
      if (name === 'Skip to content') break;
    }
    assert.equal(visited.at(-1), 'Skip to content', `Shift+Tab visited ${visited.join(' | ')}`);
    for (const want of ['Sign out', 'Memory bank', 'Search', 'Meetings']) assert.ok(visited.includes(want), `${want} not reached: ${visited}`);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Refresh');
  });

  let secret = '';
  let hookID = '';
  await step('webhooks: register one for meeting.ended and pr.approved; its secret is shown once', async () => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await checkAccessible(page, 'the webhooks page');
    // A URL that is not http(s) is refused with a message, and nothing is stored.
    await page.getByLabel('URL').fill('ftp://hooks.example.com/mithub');
    await page.getByRole('button', { name: 'Register' }).click();
    const err = page.locator('form[aria-labelledby="wh-new"] p.alert');
    await err.waitFor();
    assert.match(await err.textContent(), /http/i);
    assert.equal((await api('GET', '/v1/webhooks')).webhooks.length, 0);

    await page.getByLabel('URL').fill(hookURL);
    for (const ev of ['pr.ready', 'pr.rejected', 'memory_bank.updated']) await page.getByLabel(ev).uncheck();
    await page.getByRole('button', { name: 'Register' }).click();
    const shown = page.locator('main pre.mono');
    await shown.waitFor();
    secret = (await shown.textContent()).trim();
    assert.match(secret, /^whsec_[0-9a-f]{32,}$/);
    assert.equal(await err.isHidden(), true, 'the earlier error is cleared');
    const panel = page.getByRole('region', { name: `Webhook ${hookURL}` });
    await panel.locator('.badge.active').waitFor();
    assert.match(await panel.textContent(), /Events: meeting\.ended, pr\.approved/);
    const { webhooks } = await api('GET', '/v1/webhooks');
    assert.equal(webhooks.length, 1);
    assert.deepEqual(webhooks[0].events, ['meeting.ended', 'pr.approved']);
    assert.equal(webhooks[0].secret, undefined, 'the list answers no secret');
    hookID = webhooks[0].id;
    await shot(page, '1280-webhook-secret');
    // Shown once: coming back to the page does not show it.
    await page.getByRole('link', { name: 'Meetings', exact: true }).click();
    await page.getByRole('heading', { name: 'Meetings', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await panel.waitFor();
    assert.equal(await page.locator('main pre.mono').count(), 0);
    assert.ok(!(await page.locator('main').textContent()).includes(secret), 'the secret is shown again');
    await page.getByRole('link', { name: 'Meetings', exact: true }).click();
    await page.getByRole('heading', { name: 'Meetings', level: 1 }).waitFor();
  });

  await step('replay a meeting: the transcript streams in and topics appear', async () => {
    await page.getByRole('link', { name: TITLE }).click();
    await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
    await page.locator('.badge.live').waitFor();
    await checkAccessible(page, 'the meeting view');

    // Record, as the DOM changes, how many turns the transcript shows and
    // how many turns had arrived when the first topic band appeared.
    await page.evaluate(() => {
      const rec = { counts: [], firstTopicAt: -1 };
      window.consoleTest = rec;
      const turns = () => document.querySelectorAll('#transcript li.turn').length;
      new MutationObserver(() => rec.counts.push(turns()))
        .observe(document.getElementById('transcript'), { childList: true });
      new MutationObserver(() => {
        if (rec.firstTopicAt < 0 && document.querySelector('.timeline .band:not(.pending-band)')) rec.firstTopicAt = turns();
      }).observe(document.querySelector('.timeline'), { childList: true });
    });

    replay = spawn(mithubctl, ['replay', '--meeting', meeting.id, '--meeting-file', meetingFile, '--rate', rate, '--batch', '5'],
      { env: { ...process.env, MITHUB_API_URL: base, MITHUB_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
    let replayErr = '';
    replay.stderr.on('data', (b) => { replayErr += b; });
    const code = await new Promise((resolve) => replay.on('exit', (c) => resolve(c)));
    replay = null;
    assert.equal(code, 0, `mithubctl replay failed: ${replayErr}`);

    await page.waitForFunction((n) => document.querySelectorAll('#transcript li.turn').length === n, total);
    await page.waitForFunction(() => document.querySelectorAll('.timeline .band:not(.pending-band)').length >= 1);
    const rec = await page.evaluate(() => window.consoleTest);
    const partial = new Set(rec.counts.filter((n) => n > 0 && n < total));
    assert.ok(partial.size >= 5, `the transcript grew in only ${partial.size} steps before it was complete`);
    assert.ok(rec.firstTopicAt > 0 && rec.firstTopicAt < total,
      `the first topic appeared with ${rec.firstTopicAt} of ${total} turns shown: not while the meeting was replayed`);
    // The turns after the last full chunk wait for segmentation.
    const c = await viewCounts(page);
    assert.ok(c.pending > 0 && c.pending < 25, `${c.pending} pending turns`);
    assert.equal(await page.locator('#turn-0').getAttribute('class'), 'turn', 'turn 0 is in a topic');
    assert.ok(await page.locator('.speakers .speaker').count() >= 4, 'speakers with talk time');
    const widths = await page.$$eval('.speakers .bar > span', (els) => els.map((e) => parseFloat(e.style.width)));
    assert.equal(Math.max(...widths), 100);
    assert.ok(widths.every((w) => w > 0 && w <= 100), `bar widths ${widths}`);
    await page.locator('.topic-divider').first().waitFor();
  });

  await step('Korean turns arrive live and render as Korean', async () => {
    const last = await api('GET', `/v1/meetings/${meeting.id}/transcript?after_seq=${total - 2}`);
    let at = last.rows.at(-1).end_ms + 1000;
    const utterances = KOREAN_TURNS.map((t, i) => {
      const u = { segment_id: `console-ko-${i}`, ...t, start_ms: at, end_ms: at + 3000, confidence: 0.95 };
      at += 3500;
      return u;
    });
    await api('POST', `/v1/meetings/${meeting.id}/utterances`, { utterances });
    const lastKo = page.locator(`#turn-${total + 2} .what`);
    await lastKo.waitFor();
    assert.equal(await lastKo.textContent(), KOREAN_TURNS[2].text);
    assert.equal(await lastKo.getAttribute('lang'), 'ko');
    assert.equal(await page.locator(`#turn-${total} .who`).textContent(), '김민수');
    await page.locator(`#turn-${total + 2}`).scrollIntoViewIfNeeded();
    await shot(page, '1280-meeting-live');
  });

  await step('ask a question: the answer streams with citations, and a citation scrolls to its turn', async () => {
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByLabel('Question').press('Enter');
    await page.locator('#answer .citations li').first().waitFor();
    await page.waitForFunction(() => document.querySelector('#answer').getAttribute('aria-busy') === 'false');
    assert.equal(await page.locator('#answer').getAttribute('aria-live'), 'polite');
    const text = (await page.locator('#answer .answer-text').textContent()).trim();
    assert.ok(text.length > 20, `answer "${text}"`);
    const cite = page.locator('#answer .citations button').first();
    const seq = Number(await cite.getAttribute('data-seq'));
    assert.ok(Number.isInteger(seq) && seq >= 0 && seq < total, `citation seq ${seq}`);
    // Scroll the transcript away first, so following the citation has to
    // bring the turn back.
    await page.evaluate((s) => {
      const t = document.getElementById('transcript');
      t.scrollTop = s > 150 ? 0 : t.scrollHeight;
    }, seq);
    await cite.click();
    await page.waitForFunction((s) => {
      const el = document.getElementById(`turn-${s}`);
      const box = el.getBoundingClientRect();
      const view = document.getElementById('transcript').getBoundingClientRect();
      return el.classList.contains('highlight') && document.activeElement === el &&
        box.top >= view.top - 1 && box.bottom <= view.bottom + 1 && box.top >= 0 && box.bottom <= window.innerHeight;
    }, seq);
    await shot(page, '1280-answer-citation');
  });

  await step('catch up on what was said since a time', async () => {
    await page.getByLabel('What did I miss since…').fill('1:00');
    await page.getByRole('button', { name: 'Catch me up' }).click();
    await page.getByRole('heading', { name: 'What happened since 1:00' }).waitFor();
    await page.waitForFunction(() => document.querySelector('#answer').getAttribute('aria-busy') === 'false' &&
      document.querySelector('#answer .answer-text')?.textContent.trim().length > 0);
  });

  await step('a topic band is a keyboard control that jumps to its first turn', async () => {
    const band = page.locator('.timeline .band:not(.pending-band)').nth(1);
    const start = Number(await band.getAttribute('data-start-seq'));
    await band.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((s) => document.activeElement?.id === `turn-${s}`, start);
  });

  await step('end the meeting: the last turns are segmented', async () => {
    await page.getByRole('button', { name: 'End meeting' }).click();
    await page.locator('.meeting-head .badge.ended').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#transcript li.turn.pending').length === 0 &&
      document.getElementById('pending-count')?.textContent === '0 pending');
  });

  let prID = '';
  await step('generate a PR: agenda, decisions and action items', async () => {
    await page.getByRole('button', { name: 'Generate PR' }).click();
    await page.waitForURL(/#\/prs\/[0-9a-f-]{36}$/);
    prID = page.url().split('/').at(-1);
    await page.locator('.meeting-head .badge.succeeded').waitFor();
    for (const name of ['Agenda', 'Decisions', 'Action items', 'Memory bank updates']) {
      await page.getByRole('heading', { name, level: 2 }).waitFor();
    }
    assert.ok(await page.locator('[aria-labelledby="agenda-h"] ol.items > li').count() >= 2, 'agenda items');
    const decisions = await page.locator('[aria-labelledby="decisions-h"]').textContent();
    assert.ok(decisions.includes('리모컨 출시'), `the Korean decision is missing: ${decisions}`);
    const actions = await page.locator('[aria-labelledby="actions-h"]').textContent();
    assert.ok(actions.includes('배터리 사양'), `the Korean action item is missing: ${actions}`);
    await checkAccessible(page, 'the PR view');
    await shot(page, '1280-pr');
  });

  await step('approve the PR: its updates reach the memory bank', async () => {
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.meeting-head .badge.approved').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true);
    const pr = await api('GET', `/v1/prs/${prID}`);
    assert.equal(pr.status, 'approved');
    await page.getByRole('link', { name: 'Open the memory bank' }).click();
    await page.getByRole('heading', { name: 'Memory bank: default', level: 1 }).waitFor();
    const decisions = await page.locator('[aria-labelledby="cat-03-decisions"] pre.md').textContent();
    assert.ok(decisions.includes('리모컨 출시'), 'the approved decision is in the memory bank');
    await page.getByRole('heading', { name: 'Project status by meeting' }).waitFor();
    await checkAccessible(page, 'the memory bank');
    await shot(page, '1280-memory-bank');
  });

  /** Opens the webhook's delivery log until every event in want shows succeeded. */
  async function deliveryLogShows(want) {
    const panel = page.getByRole('region', { name: `Webhook ${hookURL}` });
    await until(`the delivery log to show ${want.join(', ')} succeeded`, async () => {
      await panel.getByRole('button', { name: 'Deliveries' }).click();
      await panel.locator('table, p.muted').first().waitFor();
      const rows = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        event: tr.cells[0].textContent, status: tr.cells[1].textContent, attempts: tr.cells[2].textContent, answer: tr.cells[3].textContent.trim(),
      })));
      return want.every((id) => rows.some((r) => r.event === id && r.status === 'succeeded' && r.attempts === '1' && r.answer === '204'));
    });
  }

  await step('webhooks: meeting.ended and pr.approved arrive signed; the log shows them succeeded; rotate the secret', async () => {
    const ended = `meeting.ended:${meeting.id}`;
    const approved = `pr.approved:${prID}`;
    await until('the receiver to get meeting.ended and pr.approved', () => deliveriesOf(ended).length && deliveriesOf(approved).length);
    for (const [id, type] of [[ended, 'meeting.ended'], [approved, 'pr.approved']]) {
      const req = deliveriesOf(id)[0];
      assert.equal(req.url, '/mithub');
      assert.equal(req.headers['x-mithub-event'], type);
      assert.match(req.headers['idempotency-key'] || '', /\S/);
      assert.equal(signedWith(req, secret), 1, `${id} is not signed with the secret`);
      assert.equal(signedWith(req, `${secret}0`), 0, 'a wrong secret verifies');
      const body = JSON.parse(req.body.toString('utf8'));
      assert.equal(body.type, type);
      assert.equal(body.id, id);
      assert.equal(body.data.meeting_id, meeting.id);
    }
    assert.equal(JSON.parse(deliveriesOf(approved)[0].body).data.pr_id, prID);
    assert.ok(received.every((r) => ['meeting.ended', 'pr.approved'].includes(r.headers['x-mithub-event'])), 'an event that was not asked for');

    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await deliveryLogShows([ended, approved]);
    await checkAccessible(page, 'the webhooks page with its delivery log');
    await shot(page, '1280-webhook-deliveries');

    const panel = page.getByRole('region', { name: `Webhook ${hookURL}` });
    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('The previous secret also signs until').waitFor();
    const rotated = (await page.locator('main pre.mono').textContent()).trim();
    assert.match(rotated, /^whsec_[0-9a-f]{32,}$/);
    assert.notEqual(rotated, secret);
    const w = await api('GET', `/v1/webhooks/${hookID}`);
    assert.ok(w.previous_secret_expires_at, 'the previous secret has a grace period');
    secret = { current: rotated, previous: secret };
  });

  let query = '';
  await step('search across meetings and open a result at its turn', async () => {
    // A word the meeting's topics are known to have.
    const { topics } = await api('GET', `/v1/meetings/${meeting.id}/topics`);
    query = topics.at(-1).keywords[0];
    assert.ok(query, 'the last topic has keywords');
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Search all meetings').fill(query);
    await page.getByLabel('Search all meetings').press('Enter');
    const first = page.locator('.results li h2 a').first();
    await first.waitFor();
    const href = await first.getAttribute('href');
    const seq = Number(new URLSearchParams(href.split('?')[1]).get('seq'));
    await checkAccessible(page, 'search');
    await shot(page, '1280-search');
    await first.click();
    await page.waitForFunction((s) => document.getElementById(`turn-${s}`)?.classList.contains('highlight'), seq);
  });

  const importedMeetings = async () => (await api('GET', '/v1/meetings?limit=200')).meetings.filter((m) => m.title === IMPORT_TITLE);
  let imported = '';
  await step('import a WebVTT file: the meeting opens ended, with its speakers and the Korean turn', async () => {
    await page.getByRole('link', { name: 'Meetings', exact: true }).click();
    await page.getByRole('heading', { name: 'Import a transcript', level: 2 }).waitFor();
    await page.getByLabel('File').setInputFiles(importFile);
    await page.getByLabel('Title').fill(IMPORT_TITLE);
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.locator('form[aria-labelledby="import-h"] [role=status]');
    await page.waitForFunction(() => /^Imported /.test(document.querySelector('form[aria-labelledby="import-h"] [role=status]').textContent));
    assert.match(await result.textContent(), /^Imported 4 segments \(vtt\) into /);
    const link = result.getByRole('link', { name: IMPORT_TITLE });
    imported = (await link.getAttribute('href')).split('/').at(-1);
    // The list shows it too, ended, with its 4 turns.
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: IMPORT_TITLE }) });
    await row.locator('.badge.ended').waitFor();
    assert.equal(await row.locator('td.num').textContent(), '4');
    await checkAccessible(page, 'the meeting list after an import');
    await shot(page, '1280-import');

    await link.click();
    await page.getByRole('heading', { name: IMPORT_TITLE, level: 1 }).waitFor();
    await page.locator('.meeting-head .badge.ended').waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('#transcript li.turn').length === n, IMPORT_TURNS.length);
    const turns = await page.$$eval('#transcript li.turn', (els) => els.map((el) => [el.querySelector('.who').textContent, el.querySelector('.what').textContent]));
    assert.deepEqual(turns, IMPORT_TURNS);
    assert.equal(await page.locator('#turn-2 .what').getAttribute('lang'), 'ko');
    assert.equal(await page.getByRole('button', { name: 'End meeting' }).isDisabled(), true);
    await checkAccessible(page, 'an imported meeting');
    await shot(page, '1280-imported-meeting');
  });

  await step('import the same file again: it links the same meeting and stores nothing', async () => {
    await page.getByRole('link', { name: 'Meetings', exact: true }).click();
    await page.getByLabel('File').setInputFiles(importFile);
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.locator('form[aria-labelledby="import-h"] [role=status]');
    await page.waitForFunction(() => /^Already imported/.test(document.querySelector('form[aria-labelledby="import-h"] [role=status]').textContent));
    assert.match(await result.textContent(), /^Already imported \(4 segments\): /);
    assert.equal((await result.getByRole('link').getAttribute('href')), `#/meetings/${imported}`);
    const same = await importedMeetings();
    assert.deepEqual(same.map((m) => m.id), [imported]);
    assert.equal(same[0].counters.utterances, 4);
  });

  await step('a malformed file: the error names its line and nothing is created', async () => {
    const before = (await api('GET', '/v1/meetings?limit=200')).meetings.length;
    await page.getByLabel('File').setInputFiles(badFile);
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.locator('form[aria-labelledby="import-h"] [role=status]');
    await page.waitForFunction(() => /line \d+/.test(document.querySelector('form[aria-labelledby="import-h"] [role=status]').textContent));
    assert.match(await result.textContent(), /^line 8: .*before/);
    assert.equal(await page.getByRole('button', { name: 'Import' }).isDisabled(), false);
    assert.equal((await api('GET', '/v1/meetings?limit=200')).meetings.length, before);
  });

  await step('webhooks: the import\'s meeting.ended is signed with the new and the previous secret', async () => {
    const id = `meeting.ended:${imported}`;
    await until('the receiver to get the import\'s meeting.ended', () => deliveriesOf(id).length);
    const req = deliveriesOf(id)[0];
    assert.equal(signedWith(req, secret.current), 1, 'not signed with the new secret');
    assert.equal(signedWith(req, secret.previous), 1, 'not signed with the previous secret during the grace period');
    const body = JSON.parse(req.body.toString('utf8'));
    assert.equal(body.data.title, IMPORT_TITLE);
    assert.equal(body.data.utterances, 4);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await deliveryLogShows([id, `meeting.ended:${meeting.id}`, `pr.approved:${prID}`]);
  });

  await step('phone width (375 px): every view fits without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    const views = [
      ['meetings', '#/meetings', () => page.getByRole('heading', { name: 'Meetings', level: 1 }).waitFor()],
      ['meeting', `#/meetings/${meeting.id}`, () => page.locator(`#turn-${total + 2}`).waitFor()],
      ['pr', `#/prs/${prID}`, () => page.locator('.meeting-head .badge.approved').waitFor()],
      ['memory-bank', '#/memory/default', () => page.getByRole('heading', { name: 'Project status by meeting' }).waitFor()],
      ['search', `#/search?q=${encodeURIComponent(query)}`, () => page.locator('.results li').first().waitFor()],
      ['imported-meeting', `#/meetings/${imported}`, () => page.locator('#turn-3').waitFor()],
      ['webhooks', '#/webhooks', async () => {
        // The secret (one long word) and the delivery log, both open.
        const panel = page.getByRole('region', { name: `Webhook ${hookURL}` });
        await panel.getByRole('button', { name: 'Rotate secret' }).click();
        await page.locator('main pre.mono').waitFor();
        await panel.getByRole('button', { name: 'Deliveries' }).click();
        await panel.locator('tbody tr').nth(2).waitFor();
        // The log's table scrolls in its own box, its cells unbroken.
        const cell = panel.locator('tbody tr td.mono').first();
        const { height, lineHeight } = await cell.evaluate((el) => ({ height: el.clientHeight, lineHeight: parseFloat(getComputedStyle(el).lineHeight) || 20 }));
        assert.ok(height < 2.5 * lineHeight + 20, `an event id wraps over ${height}px`);
      }],
    ];
    for (const [name, hash, ready] of views) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await ready();
      await checkNoOverflow(page, name);
      await shot(page, `375-${name}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step('webhooks: delete through the page', async () => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const panel = page.getByRole('region', { name: `Webhook ${hookURL}` });
    await panel.getByRole('button', { name: 'Delete' }).click(); // the confirm dialog is accepted
    await page.getByText('No webhooks yet.').waitFor();
    assert.equal(await panel.count(), 0);
    assert.equal((await api('GET', '/v1/webhooks')).webhooks.length, 0);
  });

  await step('sign out forgets the key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('mithub.apiKey')), null);
  });

  assert.deepEqual(pageErrors, [], 'the page logged errors');
} catch (err) {
  failed = true;
  console.error(`console-test: FAILED: ${err.stack || err}`);
  if (pageErrors.length) console.error(`console-test: page errors:\n  ${pageErrors.join('\n  ')}`);
  await shot(page, 'failure').catch(() => {});
} finally {
  replay?.kill();
  await context.close();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
}
console.log(`console-test: ${((Date.now() - started) / 1000).toFixed(1)}s`);
console.log(`console: ${passed} passed, ${failed ? 1 : 0} failed`);
process.exit(failed ? 1 : 0);
