import { describe, expect, it } from 'vitest';
import { internRepeatedStrings, StringInterner } from './intern.ts';

/** A fresh parse, so equal strings are distinct instances as they come off the wire. */
function parsed(name: string, message = 'the external object is available'): unknown {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'coffer.dev/v1alpha1',
      kind: 'SecretBatch',
      metadata: {
        name,
        namespace: 'team-a',
        uid: `uid-${name}`,
        creationTimestamp: `2026-01-01T00:00:${name}Z`,
        finalizers: ['coffer.dev/finalizer'],
      },
      spec: { connectionRef: { name: 'coffer' }, projectRef: { name: 'payments' }, environment: 'prod' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Available',
            message,
            lastTransitionTime: '2026-01-01T00:01:00Z',
          },
        ],
        lastSyncTime: '2026-01-01T00:02:00Z',
        events: { state: 'Active' },
        ownedKeys: [{ key: 'DATABASE_URL', hash: `hash-${name}` }],
      },
    }),
  );
}

/** Records every string the interner is asked for. */
class RecordingInterner extends StringInterner {
  readonly seen = new Set<string>();
  override intern(value: string): string {
    this.seen.add(value);
    return super.intern(value);
  }
}

describe('internRepeatedStrings', () => {
  it('keeps every value and interns only the repeated fields', () => {
    const interner = new RecordingInterner();
    for (let i = 0; i < 100; i++) {
      const name = String(i).padStart(2, '0');
      expect(internRepeatedStrings(parsed(name), interner)).toEqual(parsed(name));
    }
    expect([...interner.seen].sort()).toEqual(
      [
        'coffer.dev/v1alpha1',
        'SecretBatch',
        'team-a',
        'coffer.dev/finalizer',
        'coffer',
        'payments',
        'prod',
        'Ready',
        'True',
        'Available',
        'the external object is available',
        'Active',
        'DATABASE_URL',
        '2026-01-01T00:01:00Z',
        '2026-01-01T00:02:00Z',
        ...Array.from({ length: 100 }, (_, i) => `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`),
      ].sort(),
    );
  });

  it('holds each repeated value once, however many objects repeat it', () => {
    const interner = new StringInterner();
    internRepeatedStrings(parsed('01'), interner);
    const afterOne = interner.size;
    for (let i = 2; i < 50; i++) internRepeatedStrings(parsed(String(i).padStart(2, '0')), interner);
    // Each further object adds only its own creationTimestamp; everything else is shared.
    expect(interner.size).toBe(afterOne + 48);
  });

  it('stays within its limit by starting over', () => {
    const interner = new StringInterner(3);
    for (let i = 0; i < 10; i++) internRepeatedStrings(parsed('x', `failed: request ${i}`), interner);
    expect(interner.size).toBeLessThanOrEqual(3);
  });

  it('holds the external id once per object and shares organization and environment names', () => {
    const project = () =>
      JSON.parse(
        JSON.stringify({
          metadata: { name: 'p', annotations: { 'coffer.dev/external-id': 'proj-1234' } },
          spec: { environments: [{ name: 'Development', slug: 'dev' }] },
          status: {
            id: 'proj-1234',
            createdId: 'proj-1234',
            organizationId: 'org-1',
            environments: [{ name: 'Development', slug: 'dev', id: 'env-1' }],
          },
        }),
      ) as {
        metadata: { annotations: Record<string, string> };
        spec: { environments: { name: string; slug: string }[] };
        status: { id: string; createdId: string; organizationId: string; environments: { slug: string }[] };
      };
    const interner = new RecordingInterner();
    const a = internRepeatedStrings(project(), interner);
    internRepeatedStrings(project(), interner);
    expect(a).toEqual(project());
    expect(interner.seen).toEqual(new Set(['org-1', 'Development', 'dev']));
    // Only equal ids are shared: a status id that differs from the annotation keeps its value.
    const other = project();
    other.status.createdId = 'proj-other';
    const b = internRepeatedStrings(other, interner);
    expect(b.status).toMatchObject({ id: 'proj-1234', createdId: 'proj-other' });
  });

  it('leaves anything that is not an object alone', () => {
    const interner = new StringInterner();
    expect(internRepeatedStrings('x', interner)).toBe('x');
    expect(internRepeatedStrings({ spec: { fooRef: 'plain' } }, interner)).toEqual({
      spec: { fooRef: 'plain' },
    });
    expect(interner.size).toBe(0);
  });
});
