import { describe, expect, it } from 'vitest';
import { integrationSpec } from '../../api/v1alpha1/index.ts';
import type { Integration } from '../../client/index.ts';
import { createRequest, matchesNaturalKey, settingsPlan, statusOf } from './mapping.ts';

const spec = (extra: Record<string, unknown> = {}) =>
  integrationSpec.parse({
    connectionRef: { name: 'c' },
    projectRef: { name: 'p' },
    integration: 'aws-secret-manager',
    environment: 'prod',
    secretPath: '/app',
    app: 'shop-secrets',
    auth: {
      accessIdSecretRef: { name: 'aws', key: 'id' },
      accessTokenSecretRef: { name: 'aws', key: 'secret' },
    },
    ...extra,
  });

const integration = (extra: Partial<Integration> = {}): Integration => ({
  id: 'i1',
  integration: 'aws-secret-manager',
  integrationAuthId: 'a1',
  isActive: true,
  secretPath: '/app',
  app: 'shop-secrets',
  environment: { id: 'e1', name: 'Production', slug: 'prod' },
  ...extra,
});

describe('matchesNaturalKey', () => {
  it('matches on integration, environment, folder (trailing slash ignored) and app', () => {
    expect(matchesNaturalKey(spec(), integration())).toBe(true);
    expect(matchesNaturalKey(spec(), integration({ secretPath: '/app/' }))).toBe(true);
    expect(matchesNaturalKey(spec(), integration({ integration: 'github' }))).toBe(false);
    expect(matchesNaturalKey(spec(), integration({ secretPath: '/' }))).toBe(false);
    expect(matchesNaturalKey(spec(), integration({ app: null }))).toBe(false);
    expect(matchesNaturalKey(spec({ app: undefined }), integration({ app: null }))).toBe(true);
    const dev = integration({ environment: { id: 'e2', name: 'Dev', slug: 'dev' } });
    expect(matchesNaturalKey(spec(), dev)).toBe(false);
  });
});

describe('settingsPlan', () => {
  it('finds nothing to change when the settings match, yet always sends secretPath', () => {
    expect(settingsPlan(spec(), integration())).toEqual({
      diff: [],
      body: { isActive: true, environment: 'prod', secretPath: '/app', app: 'shop-secrets' },
    });
  });

  it('names every differing setting and leaves unset optional ones alone', () => {
    const drifted = integration({
      isActive: false,
      secretPath: '/',
      region: 'us-east-1',
      environment: { id: 'e2', name: 'Dev', slug: 'dev' },
    });
    const plan = settingsPlan(spec({ region: 'eu-west-1', path: '/shop' }), drifted);
    expect(plan.diff).toEqual(['isActive', 'environment', 'secretPath', 'region', 'path']);
    expect(plan.body).toMatchObject({ region: 'eu-west-1', path: '/shop', isActive: true });
    expect(plan.body).not.toHaveProperty('targetEnvironment');
  });
});

describe('createRequest and statusOf', () => {
  it('builds the create body with the source environment', () => {
    expect(createRequest(spec({ region: 'eu-west-1' }), 'a9')).toEqual({
      integrationAuthId: 'a9',
      isActive: true,
      sourceEnvironment: 'prod',
      secretPath: '/app',
      app: 'shop-secrets',
      region: 'eu-west-1',
    });
  });

  it('mirrors the service fields and the credential state', () => {
    const seen = integration({ isSynced: false, syncMessage: 'denied', lastUsed: '2030-01-01T00:00:00Z' });
    expect(statusOf(seen, { authHash: 'h', credentialsApplied: true })).toEqual({
      integrationAuthId: 'a1',
      isActive: true,
      isSynced: false,
      syncMessage: 'denied',
      lastUsed: '2030-01-01T00:00:00.000Z',
      authHash: 'h',
      credentialsApplied: true,
    });
    expect(statusOf(integration({ isSynced: null, lastUsed: 'not a date' }), {})).toEqual({
      integrationAuthId: 'a1',
      isActive: true,
    });
  });
});
