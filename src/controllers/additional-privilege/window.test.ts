import { describe, expect, it } from 'vitest';
import { additionalPrivilegeSpec, type AdditionalPrivilegeSpec } from '../../api/v1alpha1/index.ts';
import {
  EXPIRED,
  NOT_YET_ACTIVE,
  renewalDue,
  untilWindowChange,
  windowDrifted,
  windowReadiness,
  windowRequest,
  type ObservedWindow,
} from './window.ts';
import { TerminalError } from '../../runtime/errors.ts';

const spec = (extra: Record<string, unknown> = {}): AdditionalPrivilegeSpec =>
  additionalPrivilegeSpec.parse({
    connectionRef: { name: 'c' },
    identityRef: { name: 'bot' },
    projectRef: { name: 'shop' },
    slug: 'extra',
    permissions: [{ subject: 'secrets', action: 'read' }],
    ...extra,
  });

const hour = { temporary: { range: '1h' } };
const start = '2030-01-01T10:00:00.000Z';
const window: ObservedWindow = {
  isTemporary: true,
  temporaryRange: '1h',
  temporaryAccessStartTime: start,
  temporaryAccessEndTime: '2030-01-01T11:00:00.000Z',
};
const permanent: ObservedWindow = { isTemporary: false };
const during = new Date('2030-01-01T10:30:00Z');
const after = new Date('2030-01-01T11:00:01Z');
const before = new Date('2030-01-01T09:00:00Z');
const fresh = { generation: 2, renewedGeneration: undefined };
const renewedNow = { generation: 2, renewedGeneration: 2 };

describe('renewalDue', () => {
  it.each([
    {
      reason: 'renew set, window ended, not renewed yet',
      s: { ...hour, renew: true },
      state: fresh,
      now: after,
      due: true,
    },
    {
      reason: 'renewed for an older generation',
      s: { ...hour, renew: true },
      state: { generation: 3, renewedGeneration: 2 },
      now: after,
      due: true,
    },
    { reason: 'renew not set', s: hour, state: fresh, now: after, due: false },
    { reason: 'window still open', s: { ...hour, renew: true }, state: fresh, now: during, due: false },
    {
      reason: 'already renewed for this generation',
      s: { ...hour, renew: true },
      state: renewedNow,
      now: after,
      due: false,
    },
    { reason: 'permanent spec', s: { renew: true }, state: fresh, now: after, due: false },
  ])('$reason → $due', ({ s, state, now, due }) => {
    expect(renewalDue(spec(s), window, state, now)).toBe(due);
  });
});

describe('windowDrifted', () => {
  it.each([
    { reason: 'permanent both', s: {}, w: permanent, drifted: false },
    { reason: 'temporary in the service, permanent in the spec', s: {}, w: window, drifted: true },
    { reason: 'permanent in the service, temporary in the spec', s: hour, w: permanent, drifted: true },
    { reason: 'same range, no start in the spec', s: hour, w: window, drifted: false },
    {
      reason: 'same range spelled differently',
      s: { temporary: { range: '60m' } },
      w: window,
      drifted: false,
    },
    { reason: 'another range', s: { temporary: { range: '2h' } }, w: window, drifted: true },
    {
      reason: 'same start',
      s: { temporary: { range: '1h', startTime: '2030-01-01T10:00:00Z' } },
      w: window,
      drifted: false,
    },
    {
      reason: 'another start',
      s: { temporary: { range: '1h', startTime: '2030-01-02T10:00:00Z' } },
      w: window,
      drifted: true,
    },
  ])('$reason → $drifted', ({ s, w, drifted }) => {
    expect(windowDrifted(spec(s), w, fresh)).toBe(drifted);
  });

  it('does not enforce startTime on a window renewed for this generation', () => {
    const s = spec({ temporary: { range: '1h', startTime: '2029-01-01T00:00:00Z' }, renew: true });
    expect(windowDrifted(s, window, renewedNow)).toBe(false);
    expect(windowDrifted(s, window, { generation: 3, renewedGeneration: 2 })).toBe(true);
  });
});

describe('windowRequest', () => {
  const now = new Date('2030-06-01T00:00:00Z');
  const plain = { now, renewing: false, keepRenewedStart: false };

  it.each([
    { reason: 'permanent', s: {}, w: window, options: plain, want: { isTemporary: false } },
    { reason: 'a new window starts now', s: hour, w: undefined, options: plain, start: now.toISOString() },
    {
      reason: 'a range change keeps the start',
      s: { temporary: { range: '2h' } },
      w: window,
      options: plain,
      start,
    },
    { reason: 'from permanent: now', s: hour, w: permanent, options: plain, start: now.toISOString() },
    {
      reason: 'the spec start wins',
      s: { temporary: { range: '1h', startTime: '2031-01-01T00:00:00Z' } },
      w: window,
      options: plain,
      start: '2031-01-01T00:00:00.000Z',
    },
    {
      reason: 'a renewed start is kept',
      s: { temporary: { range: '1h', startTime: '2031-01-01T00:00:00Z' } },
      w: window,
      options: { ...plain, keepRenewedStart: true },
      start,
    },
    {
      reason: 'renewing starts now',
      s: hour,
      w: window,
      options: { ...plain, renewing: true },
      start: now.toISOString(),
    },
  ])('$reason', ({ s, w, options, want, start: expected }) => {
    const request = windowRequest(spec(s), w, options);
    if (want) expect(request).toEqual(want);
    else
      expect(request).toMatchObject({
        isTemporary: true,
        temporaryMode: 'relative',
        temporaryAccessStartTime: expected,
      });
  });
});

describe('windows that would end past year 9999', () => {
  const now = new Date('2030-06-01T00:00:00Z');
  const plain = { now, renewing: false, keepRenewedStart: false };

  it('refuses a spec whose start plus range ends after 9999, naming startTime', () => {
    const result = additionalPrivilegeSpec.safeParse({
      ...spec(),
      temporary: { range: '1y', startTime: '9999-06-01T00:00:00Z' },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['temporary', 'startTime'] });
    expect(result.error?.issues[0]?.message).toContain('would end after 9999-12-31T23:59:59Z');
  });

  it('accepts a window that ends exactly at the last storable second', () => {
    const s = spec({ temporary: { range: '1h', startTime: '9999-12-31T22:59:59Z' } });
    expect(windowRequest(s, undefined, plain)).toMatchObject({ temporaryRange: '1h' });
  });

  it('refuses a new range from a kept start with InvalidSpec naming spec.temporary.range', () => {
    const late: ObservedWindow = { ...window, temporaryAccessStartTime: '9999-06-01T00:00:00.000Z' };
    let thrown: unknown;
    try {
      windowRequest(spec({ temporary: { range: '1y' } }), late, plain);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TerminalError);
    expect(thrown).toMatchObject({ reason: 'InvalidSpec' });
    expect((thrown as Error).message).toMatch(
      /^invalid spec: spec\.temporary\.range: the window from 9999-06-01/,
    );
  });
});

describe('windowReadiness and untilWindowChange', () => {
  it('permanent: ready, no early requeue', () => {
    expect(windowReadiness(spec(), permanent, fresh, after)).toBeUndefined();
    expect(untilWindowChange(permanent, after)).toBeUndefined();
  });

  it('before the start: NotYetActive, look again at the start', () => {
    expect(windowReadiness(spec(hour), window, fresh, before)).toMatchObject({ reason: NOT_YET_ACTIVE });
    expect(untilWindowChange(window, before)).toBe(3_600_000);
  });

  it('inside the window: ready, look again just after the end', () => {
    expect(windowReadiness(spec(hour), window, fresh, during)).toBeUndefined();
    expect(untilWindowChange(window, during)).toBe(1_800_000 + 500);
  });

  it('after the end: Expired, with a hint to renew; no early requeue', () => {
    const notReady = windowReadiness(spec(hour), window, fresh, after);
    expect(notReady).toEqual({
      reason: EXPIRED,
      message:
        'the temporary window ended at 2030-01-01T11:00:00.000Z; set renew: true to grant a fresh window',
    });
    expect(untilWindowChange(window, after)).toBeUndefined();
  });

  it('after the end of a renewed window: Expired, explaining how to renew again', () => {
    const notReady = windowReadiness(spec({ ...hour, renew: true }), window, renewedNow, after);
    expect(notReady?.reason).toBe(EXPIRED);
    expect(notReady?.message).toMatch(/renew already granted a window for this generation/);
  });
});
