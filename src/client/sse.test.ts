import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.ts';

describe('SseParser', () => {
  it('parses frames with id, event and data, and frames without data such as pings', () => {
    const parser = new SseParser();
    const frames = parser.push('id: 17\nevent: secret:update\ndata: {"a":1}\n\nevent: ping\n\n');
    expect(frames).toEqual([{ id: '17', event: 'secret:update', data: '{"a":1}' }, { event: 'ping' }]);
  });

  it('joins multiple data lines, defaults the event to "message" and ignores comments', () => {
    const parser = new SseParser();
    expect(parser.push(': keep-alive\ndata: one\ndata:two\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('accepts CRLF and CR line ends, also when split across chunks', () => {
    const parser = new SseParser();
    expect(parser.push('event: a\r')).toEqual([]);
    expect(parser.push('\ndata: x\r\n\r')).toEqual([]);
    expect(parser.push('\nevent: b\rdata: y\r\r')).toEqual([{ event: 'a', data: 'x' }]);
    // The final CR could be half of a CRLF, so the frame completes with the next chunk.
    expect(parser.push('\n')).toEqual([{ event: 'b', data: 'y' }]);
  });

  it('keeps a partial frame until it is complete', () => {
    const parser = new SseParser();
    expect(parser.push('event: secret:cre')).toEqual([]);
    expect(parser.push('ate\ndata: {"k"')).toEqual([]);
    expect(parser.push(':2}\n\n')).toEqual([{ event: 'secret:create', data: '{"k":2}' }]);
  });

  it('ignores unknown fields and blank lines between frames', () => {
    const parser = new SseParser();
    expect(parser.push('\n\nretry: 5000\nfoo: bar\n\n')).toEqual([]);
  });
});
