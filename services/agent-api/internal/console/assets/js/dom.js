// Small DOM helpers. Text always goes in as text nodes: nothing from the
// API is parsed as HTML.

/** h('p', {class: 'x', onclick: f}, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

const hangul = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;

/** The language of a piece of text: ko when it has Hangul, else fallback. */
export function langOf(text, fallback = 'en') {
  return hangul.test(text || '') ? 'ko' : fallback;
}

/** 83_000 → "1:23", 3_723_000 → "1:02:03" */
export function clock(ms) {
  const s = Math.max(0, Math.floor((ms || 0) / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** "1:23" or "1:02:03" or "83" (seconds) → ms, or null. */
export function parseClock(text) {
  const t = String(text || '').trim();
  if (!/^\d+(:\d{1,2}){0,2}$/.test(t)) return null;
  return t.split(':').reduce((acc, p) => acc * 60 + Number(p), 0) * 1000;
}

export function duration(ms) {
  const s = Math.round((ms || 0) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function dateTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Announces a message politely to screen readers. */
export function announce(message) {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  // A fresh text node after a tick is announced even when it repeats.
  setTimeout(() => { el.textContent = message; }, 50);
}

export function errorText(err) {
  if (!err) return 'Something went wrong.';
  return err.message || String(err);
}

/** A polite error box for a view. */
export function alertBox(err) {
  return h('p', { class: 'alert', role: 'alert' }, errorText(err));
}

export function statusBadge(status) {
  return h('span', { class: `badge ${status}` }, status);
}
