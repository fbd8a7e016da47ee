// The console's client of the agent-api /v1 routes. The bearer key lives
// in sessionStorage: it is gone when the tab closes.
import { SSEParser } from './sse.js';

const KEY = 'mithub.apiKey';

export const auth = {
  get key() { return sessionStorage.getItem(KEY) || ''; },
  set(key) { sessionStorage.setItem(KEY, key); },
  clear() { sessionStorage.removeItem(KEY); },
};

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(key, accept, json) {
  const h = { Accept: accept, Authorization: `Bearer ${key}` };
  if (json) h['Content-Type'] = 'application/json';
  return h;
}

async function send(path, { method = 'GET', body, signal, key, accept = 'application/json' } = {}) {
  const k = key ?? auth.key;
  let res;
  try {
    res = await fetch(path, {
      method, signal, cache: 'no-store', credentials: 'omit',
      headers: headers(k, accept, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
  if (res.status === 401 && key === undefined) {
    window.dispatchEvent(new CustomEvent('mithub:unauthorized'));
  }
  return res;
}

async function failure(res) {
  let e = null;
  try { e = (await res.json())?.error; } catch { /* not JSON */ }
  return new ApiError(res.status, e?.code || `http_${res.status}`, e?.message || res.statusText || 'Request failed');
}

/** JSON request; resolves to the decoded body, rejects with ApiError. */
export async function api(path, opts = {}) {
  const res = await send(path, opts);
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Reads a text/event-stream response with fetch, calling onEvent for each
 * event with its data decoded from JSON. Resolves when the stream ends.
 */
export async function stream(path, { method = 'GET', body, signal, onEvent, onOpen } = {}) {
  const res = await send(path, { method, body, signal, accept: 'text/event-stream' });
  if (!res.ok) throw await failure(res);
  onOpen?.();
  const parser = new SSEParser((ev) => {
    let data = null;
    try { data = JSON.parse(ev.data); } catch { data = ev.data; }
    onEvent(ev.event, data, ev.id);
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/** Multipart upload (FormData); resolves to the decoded JSON body. */
export async function upload(path, form, { signal } = {}) {
  let res;
  try {
    res = await fetch(path, {
      method: 'POST', signal, cache: 'no-store', credentials: 'omit',
      headers: { Accept: 'application/json', Authorization: `Bearer ${auth.key}` },
      body: form,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network', 'The server could not be reached.');
  }
  if (res.status === 401) window.dispatchEvent(new CustomEvent('mithub:unauthorized'));
  if (!res.ok) throw await failure(res);
  return res.json();
}

export const enc = encodeURIComponent;
