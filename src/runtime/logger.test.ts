import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  reconcileLogger,
  redacted,
  redactedKeys,
  redactionCensor,
  redactionDepth,
} from './logger.ts';

const secret = 'S3CR3T-must-not-leak';

/** A logger whose output lines are collected in memory. */
function captured(level: 'info' | 'debug' = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, next) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      next();
    },
  });
  const log = createLogger({ level, name: 'test', destination });
  return { log, lines, text: () => lines.join('\n') };
}

/** `{ a: { a: { key: value } } }` with `depth` wrapping objects. */
function nested(key: string, depth: number): Record<string, unknown> {
  let obj: Record<string, unknown> = { [key]: secret };
  for (let i = 0; i < depth; i++) obj = { [`level${i}`]: obj };
  return obj;
}

const cases = redactedKeys.flatMap((key) =>
  Array.from({ length: redactionDepth + 1 }, (_, depth) => ({ key, depth })),
);

describe('createLogger redaction', () => {
  it.each(cases)('hides "$key" at depth $depth', ({ key, depth }) => {
    const { log, text, lines } = captured();
    log.info(nested(key, depth), 'something happened');
    log.flush();
    expect(lines).toHaveLength(1);
    expect(text()).not.toContain(secret);
    expect(text()).toContain(redactionCensor);
  });

  it('hides secrets inside arrays and Secret objects', () => {
    const { log, text } = captured();
    log.info({
      items: [{ token: secret }, { clientSecret: secret }],
      secret: {
        kind: 'Secret',
        metadata: { name: 'creds' },
        data: { key: Buffer.from(secret).toString('base64') },
        stringData: { key: secret },
      },
      request: { headers: { authorization: `Bearer ${secret}`, 'set-cookie': secret } },
    });
    expect(text()).not.toContain(secret);
    expect(text()).not.toContain(Buffer.from(secret).toString('base64'));
    expect(text()).toContain('creds');
  });

  it('hides secret properties of logged errors', () => {
    const { log, text } = captured();
    const err = Object.assign(new Error('cannot log in: rejected'), { accessToken: secret });
    log.error({ err }, 'login failed');
    expect(text()).not.toContain(secret);
    expect(text()).toContain('cannot log in: rejected');
  });

  it('hides secrets bound to a child logger', () => {
    const { log, text } = captured();
    log.child({ component: 'login', auth: { clientSecret: secret } }).info('bound');
    expect(text()).not.toContain(secret);
    expect(text()).toContain('login');
  });

  it('hands back an object without secrets as it is, and copies only the way to a secret', () => {
    const clean = { a: { b: [1, { c: 'x' }] }, d: 'y' };
    expect(redacted(clean)).toBe(clean);
    const dirty = { keep: { same: true }, path: { to: [{ token: secret }] } };
    const out = redacted(dirty);
    expect(out).not.toBe(dirty);
    expect(out.keep).toBe(dirty.keep);
    expect(out.path.to[0]).toEqual({ token: redactionCensor });
    expect(dirty.path.to[0]?.token).toBe(secret);
    const err = Object.assign(new Error('boom'), { password: secret });
    const hidden = redacted({ err }).err;
    expect(hidden).toBeInstanceOf(Error);
    expect(hidden.message).toBe('boom');
    expect(hidden.password).toBe(redactionCensor);
    expect(err.password).toBe(secret);
  });

  it('keeps ordinary fields and does not mutate the logged object', () => {
    const { log, lines } = captured();
    const obj = { password: secret, user: 'alice' };
    log.info(obj, 'hello');
    expect(obj.password).toBe(secret);
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'info',
      name: 'test',
      msg: 'hello',
      user: 'alice',
      password: redactionCensor,
    });
    expect(typeof line.time).toBe('string');
  });
});

describe('reconcileLogger', () => {
  it('binds controller, kind, object and a reconcile id, and still redacts', () => {
    const { log, lines } = captured('debug');
    const child = reconcileLogger(log, {
      controller: 'project',
      kind: 'Project',
      namespace: 'ns',
      name: 'p1',
    });
    child.debug({ token: secret }, 'observed');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      controller: 'project',
      kind: 'Project',
      namespace: 'ns',
      name: 'p1',
      token: redactionCensor,
    });
    expect(line.reconcileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('makes no child logger until a line is logged at an enabled level, then one for all lines', () => {
    const { log, lines } = captured('info');
    const children: unknown[] = [];
    const parent = new Proxy(log, {
      get(target, property) {
        if (property === 'child') {
          return (...args: Parameters<typeof log.child>) => {
            children.push(args[0]);
            return target.child(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const child = reconcileLogger(parent, { controller: 'c', kind: 'K', name: 'n' });
    child.debug('not enabled');
    child.trace({ token: secret }, 'not enabled either');
    expect(children).toHaveLength(0);
    expect(lines).toHaveLength(0);
    child.info('first');
    child.warn('second');
    child.debug('still not enabled');
    expect(children).toHaveLength(1);
    const ids = lines.map((l) => (JSON.parse(l) as { reconcileId?: string }).reconcileId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(child.isLevelEnabled('info')).toBe(true);
  });

  it('uses a given reconcile id', () => {
    const { log, lines } = captured();
    reconcileLogger(log, { controller: 'c', kind: 'K', name: 'n', reconcileId: 'r-1' }).info('x');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ reconcileId: 'r-1' });
  });
});
