import { describe, expect, it } from 'vitest';
import type { DomainError } from './errors.ts';
import {
  EventHub,
  formatSseFrame,
  PING_FRAME,
  REFRESH_FAILED_FRAME,
  registrationMatches,
  SubscribeBodySchema,
  type Registration,
  type SseTarget,
  type Timers,
} from './event-hub.ts';
import type { SecretChange } from './secret-model.ts';

class FakeTimers implements Timers {
  private next = 0;
  readonly intervals = new Map<number, { callback: () => void; ms: number }>();
  setInterval(callback: () => void, ms: number): unknown {
    this.next += 1;
    this.intervals.set(this.next, { callback, ms });
    return this.next;
  }
  clearInterval(handle: unknown): void {
    this.intervals.delete(handle as number);
  }
  fire(ms: number): void {
    for (const { callback, ms: every } of [...this.intervals.values()]) if (every === ms) callback();
  }
}

class Sink implements SseTarget {
  readonly chunks: string[] = [];
  ended = 0;
  failWrites = false;
  write(chunk: string): void {
    if (this.failWrites) throw new Error('socket closed');
    this.chunks.push(chunk);
  }
  end(): void {
    this.ended += 1;
  }
  /** Parsed `data:` payloads of non-ping frames. */
  events(): Array<{ event: string; data: unknown }> {
    return this.chunks
      .filter((c) => c !== PING_FRAME)
      .map((chunk) => {
        const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
        const data = /^data: (.*)$/m.exec(chunk)?.[1];
        return { event, data: data === undefined ? undefined : (JSON.parse(data) as unknown) };
      });
  }
}

const change = (
  type: SecretChange['type'],
  secretKey: string,
  secretPath = '/',
  environment = 'dev',
): SecretChange => ({
  type,
  environment,
  secretPath,
  secretKey,
});

function hub(timers = new FakeTimers()) {
  return { timers, hub: new EventHub({ timers, now: () => 1_700_000_000_000 }) };
}

describe('formatSseFrame', () => {
  it('formats id, event and JSON data, ending with a blank line', () => {
    expect(formatSseFrame({ id: '1', event: 'secret:create', data: { a: 1 } })).toBe(
      'id: 1\nevent: secret:create\ndata: {"a":1}\n\n',
    );
    expect(PING_FRAME).toBe('event: ping\n\n');
    expect(REFRESH_FAILED_FRAME).toBe(
      'event: error\ndata: {"message":"Permission denied or refresh failed"}\n\n',
    );
  });
});

describe('registrationMatches', () => {
  const reg = (event: Registration['event'], environmentSlug?: string, secretPath = '/'): Registration =>
    environmentSlug === undefined ? { event } : { event, conditions: { environmentSlug, secretPath } };
  it.each([
    [reg('secret:update'), change('secret:update', 'K', '/any', 'prod'), true],
    [reg('secret:create'), change('secret:update', 'K'), false],
    [reg('secret:update', 'dev'), change('secret:update', 'K', '/deep/x'), true],
    [reg('secret:update', 'prod'), change('secret:update', 'K'), false],
    [reg('secret:update', 'dev', '/app'), change('secret:update', 'K', '/app'), true],
    [reg('secret:update', 'dev', '/app'), change('secret:update', 'K', '/app/api'), true],
    [reg('secret:update', 'dev', '/app'), change('secret:update', 'K', '/apple'), true],
    [reg('secret:update', 'dev', '/app'), change('secret:update', 'K', '/'), false],
    [reg('secret:update', 'dev', '/app/**'), change('secret:update', 'K', '/app'), true],
    [reg('secret:update', 'dev', '/app/**'), change('secret:update', 'K', '/app/a/b'), true],
    [reg('secret:update', 'dev', '/app/**'), change('secret:update', 'K', '/apple'), false],
    [reg('secret:update', 'dev', '/*/api'), change('secret:update', 'K', '/svc/api'), true],
    [reg('secret:update', 'dev', '/*/api'), change('secret:update', 'K', '/svc/web'), false],
  ])('%j vs %j -> %s', (registration, c, expected) => {
    expect(registrationMatches(registration, c)).toBe(expected);
  });
});

describe('SubscribeBodySchema', () => {
  it('defaults the path and bounds the registrations', () => {
    expect(
      SubscribeBodySchema.parse({
        projectId: 'p',
        register: [{ event: 'secret:create', conditions: { environmentSlug: 'dev' } }],
      }),
    ).toEqual({
      projectId: 'p',
      register: [{ event: 'secret:create', conditions: { environmentSlug: 'dev', secretPath: '/' } }],
    });
    const eleven = Array.from({ length: 11 }, () => ({ event: 'secret:create' }));
    expect(SubscribeBodySchema.safeParse({ projectId: 'p', register: eleven }).success).toBe(false);
    expect(SubscribeBodySchema.safeParse({ projectId: 'p', register: [] }).success).toBe(false);
    expect(
      SubscribeBodySchema.safeParse({ projectId: 'p', register: [{ event: 'secret:rename' }] }).success,
    ).toBe(false);
    expect(
      SubscribeBodySchema.safeParse({
        projectId: 'p',
        register: [{ event: 'secret:create', conditions: {} }],
      }).success,
    ).toBe(false);
  });
});

describe('EventHub', () => {
  it('delivers matching changes in the newest variant shape, one frame per group', () => {
    const { hub: h } = hub();
    const sink = new Sink();
    h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [
        { event: 'secret:update', conditions: { environmentSlug: 'dev', secretPath: '/' } },
        { event: 'secret:delete' },
      ],
    });
    const sent = h.publish('p1', [
      change('secret:update', 'A'),
      change('secret:update', 'B'),
      change('secret:update', 'C', '/app'),
      change('secret:update', 'P', '/', 'prod'),
      change('secret:create', 'N'),
      change('secret:delete', 'D', '/', 'prod'),
    ]);
    expect(sent).toBe(3);
    expect(sink.chunks[0]).toBe(
      'id: 1700000000000\nevent: secret:update\ndata: {"type":"secret-manager","data":{"eventType":"secret:update","payload":[{"environment":"dev","secretPath":"/","secretKeys":"A"},{"environment":"dev","secretPath":"/","secretKeys":"B"}]}}\n\n',
    );
    expect(sink.events().map((e) => e.event)).toEqual(['secret:update', 'secret:update', 'secret:delete']);
  });

  it('ignores other projects and filters per change with canReceive', () => {
    const { hub: h } = hub();
    const sink = new Sink();
    h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [{ event: 'secret:create' }],
      canReceive: (c) => c.secretKey !== 'HIDDEN',
    });
    expect(h.publish('p2', [change('secret:create', 'A')])).toBe(0);
    h.publish('p1', [change('secret:create', 'HIDDEN'), change('secret:create', 'SHOWN')]);
    expect(sink.events()).toEqual([
      {
        event: 'secret:create',
        data: {
          type: 'secret-manager',
          data: {
            eventType: 'secret:create',
            payload: [{ environment: 'dev', secretPath: '/', secretKeys: 'SHOWN' }],
          },
        },
      },
    ]);
  });

  it('caps concurrent streams per project and actor at 5', () => {
    const { hub: h } = hub();
    const open = (projectId: string, actorKey: string) =>
      h.subscribe({ projectId, actorKey, target: new Sink(), register: [{ event: 'secret:create' }] });
    const subs = Array.from({ length: 5 }, () => open('p1', 'a'));
    let error: DomainError | undefined;
    try {
      open('p1', 'a');
    } catch (e) {
      error = e as DomainError;
    }
    expect(error?.status).toBe(429);
    expect(error?.message).toBe('Too many active connections for project p1');
    expect(() => open('p1', 'b')).not.toThrow();
    expect(() => open('p2', 'a')).not.toThrow();
    subs[0]?.close();
    expect(() => open('p1', 'a')).not.toThrow();
    expect(h.count('p1', 'a')).toBe(5);
    expect(h.count()).toBe(7);
  });

  it('pings every 15 s and stops after close', () => {
    const { hub: h, timers } = hub();
    const sink = new Sink();
    const sub = h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [{ event: 'secret:create' }],
    });
    expect([...timers.intervals.values()].map((i) => i.ms)).toEqual([15_000]);
    timers.fire(15_000);
    timers.fire(15_000);
    expect(sink.chunks).toEqual([PING_FRAME, PING_FRAME]);
    sub.close();
    sub.close();
    expect(sub.closed).toBe(true);
    expect(sink.ended).toBe(1);
    expect(timers.intervals.size).toBe(0);
    expect(h.publish('p1', [change('secret:create', 'A')])).toBe(0);
  });

  it('closes a stream whose target fails to write', () => {
    const { hub: h } = hub();
    const sink = new Sink();
    const sub = h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [{ event: 'secret:create' }],
    });
    sink.failWrites = true;
    expect(() => h.publish('p1', [change('secret:create', 'A')])).not.toThrow();
    expect(sub.closed).toBe(true);
    expect(h.count()).toBe(0);
  });

  it.each([
    ['false', () => false],
    [
      'a throw',
      () => {
        throw new Error('token expired');
      },
    ],
    ['a rejection', () => Promise.reject(new Error('x'))],
    ['a false promise', () => Promise.resolve(false)],
  ])('sends an error frame and closes when refresh gives %s', async (_name, refresh) => {
    const { hub: h, timers } = hub();
    const sink = new Sink();
    const sub = h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [{ event: 'secret:create' }],
      refresh,
    });
    timers.fire(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.chunks).toEqual([REFRESH_FAILED_FRAME]);
    expect(sub.closed).toBe(true);
  });

  it('keeps the stream when refresh succeeds', async () => {
    const { hub: h, timers } = hub();
    const sink = new Sink();
    const sub = h.subscribe({
      projectId: 'p1',
      actorKey: 'a',
      target: sink,
      register: [{ event: 'secret:create' }],
      refresh: () => Promise.resolve(true),
    });
    timers.fire(60_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sub.closed).toBe(false);
    expect(sink.chunks).toEqual([]);
  });

  it('closeAll ends every stream', () => {
    const { hub: h } = hub();
    const sinks = [new Sink(), new Sink()];
    for (const target of sinks)
      h.subscribe({ projectId: 'p', actorKey: 'a', target, register: [{ event: 'secret:create' }] });
    h.closeAll();
    expect(sinks.map((s) => s.ended)).toEqual([1, 1]);
    expect(h.count()).toBe(0);
  });
});
