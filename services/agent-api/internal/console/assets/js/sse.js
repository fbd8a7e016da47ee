// Server-Sent Events parsing for fetch() streams. EventSource cannot send
// an Authorization header, so the console reads event streams with fetch
// and parses them here, following the WHATWG event-stream format.

export class SSEParser {
  /** @param {(ev: {event: string, data: string, id: string}) => void} onEvent */
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buf = '';
    this.lastId = '';
    this.reset();
  }

  reset() {
    this.event = '';
    this.data = [];
  }

  /** Feeds decoded text; complete events are dispatched. */
  push(text) {
    this.buf += text;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      if (!m) break;
      // A CR at the very end may be the first half of CRLF.
      if (m[0] === '\r' && m.index === this.buf.length - 1) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      this.line(line);
    }
  }

  line(line) {
    if (line === '') {
      if (this.data.length > 0) {
        this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.lastId });
      }
      this.reset();
      return;
    }
    if (line.startsWith(':')) return; // comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event': this.event = value; break;
      case 'data': this.data.push(value); break;
      case 'id': if (!value.includes('\0')) this.lastId = value; break;
      default: break; // retry and unknown fields are ignored
    }
  }
}
