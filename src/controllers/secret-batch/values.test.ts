import { describe, expect, it } from 'vitest';
import { secretBatchSpec } from '../../api/v1alpha1/index.ts';
import { TerminalError, WaitingError } from '../../runtime/errors.ts';
import type { SecretSource } from '../kind-controller.ts';
import { readDesired, referencedSecrets } from './values.ts';

const source = (secrets: Record<string, Record<string, string>>): SecretSource => ({
  read: (ns, name) => Promise.resolve(secrets[`${ns}/${name}`]),
});

const spec = (extra: Record<string, unknown>) =>
  secretBatchSpec.parse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    environment: 'dev',
    ...extra,
  });

describe('referencedSecrets', () => {
  it('lists each Secret once, in the resource namespace', () => {
    const s = spec({
      secrets: [
        { key: 'A', valueFrom: { secretKeyRef: { name: 'one', key: 'a' } } },
        { key: 'B', valueFrom: { secretKeyRef: { name: 'one', key: 'b' } } },
        { key: 'C', value: 'literal' },
      ],
      fromSecret: { name: 'two' },
    });
    expect(referencedSecrets('ns', s)).toEqual([
      { name: 'one', namespace: 'ns' },
      { name: 'two', namespace: 'ns' },
    ]);
  });
});

describe('readDesired', () => {
  it('merges literals, Secret keys and fromSecret (listed keys win), sorted by key', async () => {
    const s = spec({
      secrets: [
        { key: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } }, comment: 'db' },
        { key: 'app_MODE', value: 'listed' },
      ],
      fromSecret: { name: 'app', keyPrefix: 'app_' },
    });
    const desired = await readDesired(
      source({ 'ns/db': { password: 's3cr3t' }, 'ns/app': { MODE: 'from-secret', URL: 'u' } }),
      'ns',
      s,
    );
    expect(desired).toEqual([
      { key: 'DB_PASSWORD', value: 's3cr3t', comment: 'db' },
      { key: 'app_MODE', value: 'listed' },
      { key: 'app_URL', value: 'u' },
    ]);
  });

  it('waits for a missing Secret or key, naming it but no value', async () => {
    const s = spec({ secrets: [{ key: 'A', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] });
    const missing: unknown = await readDesired(source({}), 'ns', s).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(WaitingError);
    expect((missing as WaitingError).reason).toBe('SecretNotFound');
    const noKey: unknown = await readDesired(source({ 'ns/db': { other: 'hidden-value' } }), 'ns', s).catch(
      (e: unknown) => e,
    );
    expect((noKey as WaitingError).reason).toBe('SecretKeyNotFound');
    expect((noKey as Error).message).not.toContain('hidden-value');
  });

  it('rejects a fromSecret key the service cannot name', async () => {
    const s = spec({ fromSecret: { name: 'app', keyPrefix: 'a/' } });
    const error: unknown = await readDesired(source({ 'ns/app': { K: 'v' } }), 'ns', s).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TerminalError);
    expect((error as TerminalError).reason).toBe('InvalidKey');
  });
});
