// Incremental Server-Sent Events parser (the WHATWG framing): `field: value` lines, frames
// separated by a blank line, `:` comments ignored, CR, LF or CRLF line ends, chunks split
// anywhere. Unlike a browser it also yields frames without data, such as `event: ping`.

/** One SSE frame; `event` defaults to `message`, `data` joins multiple data lines with \n. */
export interface SseFrame {
  id?: string;
  event: string;
  data?: string;
}

interface Pending {
  id?: string;
  event?: string;
  data: string[];
}

/** Feed decoded text with `push`; it returns the frames completed by that text. */
export class SseParser {
  private buffer = '';
  private pending: Pending = { data: [] };

  push(text: string): SseFrame[] {
    this.buffer += text;
    const frames: SseFrame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.pending.data.push(value);
    else if (field === 'event') this.pending.event = value;
    else if (field === 'id' && !value.includes('\0')) this.pending.id = value;
    return undefined;
  }

  private dispatch(): SseFrame | undefined {
    const { id, event, data } = this.pending;
    this.pending = { data: [] };
    if (id === undefined && event === undefined && data.length === 0) return undefined;
    const frame: SseFrame = { event: event === undefined || event === '' ? 'message' : event };
    if (id !== undefined) frame.id = id;
    if (data.length > 0) frame.data = data.join('\n');
    return frame;
  }
}
