// Statement templates, usernames and passwords of the dynamic-secret providers.
import { describe, expect, it } from 'vitest';
import {
  generatePassword,
  generateUsername,
  redact,
  renderTemplate,
  usesOnly,
  validateTemplate,
} from './templates.ts';

describe('statement templates', () => {
  it('substitutes the variables, with or without spaces inside the braces', () => {
    expect(
      renderTemplate(`CREATE ROLE "{{username}}" PASSWORD '{{ password }}'`, {
        username: 'u1',
        password: 'p1',
      }),
    ).toBe(`CREATE ROLE "u1" PASSWORD 'p1'`);
  });

  it('refuses expressions outside the allowed variables', () => {
    expect(usesOnly('DROP ROLE "{{username}}"', ['username', 'database'])).toBe(true);
    expect(() =>
      validateTemplate('SQL revoke', 'DROP ROLE "{{password}}"', ['username', 'database']),
    ).toThrow('SQL revoke template has disallowed expressions: password');
  });
});

describe('generated credentials', () => {
  it('makes 32-character alphanumeric usernames, or renders the username template', () => {
    const dynamicSecret = { name: 'db', type: 'sql-database' };
    const random = generateUsername({ template: null, identityName: 'ci', dynamicSecret, nowMs: 0 });
    expect(random).toMatch(/^[A-Za-z0-9]{32}$/);
    const templated = generateUsername({ template: '{{identity.name}}-{{dynamicSecret.name}}-{{unixTimestamp}}', identityName: 'ci', dynamicSecret, nowMs: 5000 }); // prettier-ignore
    expect(templated).toBe('ci-db-5');
    expect(() =>
      generateUsername({ template: '{{identity.name}}!', identityName: 'ci', dynamicSecret, nowMs: 0 }),
    ).toThrow('Generated username contains unsupported characters');
  });

  it('makes passwords of the required length and classes', () => {
    const password = generatePassword();
    expect(password).toHaveLength(48);
    expect(password).toMatch(/[a-z]/);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/[0-9]/);
    expect(password).toMatch(/^[A-Za-z0-9]+$/);
    const custom = generatePassword({ length: 12, required: { lowercase: 0, uppercase: 0, digits: 2, symbols: 10 }, allowedSymbols: '#' }); // prettier-ignore
    expect(custom.split('').sort().join('')).toMatch(/^#{10}[0-9]{2}$/);
  });

  it('redacts every given secret from a message', () => {
    expect(redact('role "abc" failed for abc with pw', ['abc', 'pw', ''])).toBe(
      'role "[REDACTED]" failed for [REDACTED] with [REDACTED]',
    );
  });
});
