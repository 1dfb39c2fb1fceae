// Usernames (random or from the username template), passwords and redaction of the
// dynamic-secret providers. The template engine itself: handlebars.test.ts.
import { describe, expect, it } from 'vitest';
import { generatePassword, generateUsername, redact } from './templates.ts';

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

  it('renders username templates with the helpers', () => {
    const dynamicSecret = { name: 'db', type: 'sql-database' };
    const make = (template: string, identityName = 'ci-runner.prod') =>
      generateUsername({ template, identityName, dynamicSecret, nowMs: 1_700_000_000_000 });
    expect(make('{{truncate identity.name 8}}_{{random 6}}')).toMatch(/^ci-runne_[A-Za-z0-9]{6}$/);
    expect(make('{{replace identity.name "[.]" "_"}}-{{unixTimestamp}}')).toBe('ci-runner_prod-1700000000');
    expect(make('{{uppercase dynamicSecret.name}}_{{lowercase dynamicSecret.type}}')).toBe('DB_sql-database');
    expect(make('{{truncate randomUsername 5}}')).toMatch(/^[A-Za-z0-9]{5}$/);
    // HTML escaping (the service's default for usernames) turns "'" into "&#x27;", which is refused.
    expect(() => make('{{identity.name}}', "o'neil")).toThrow(
      'Generated username contains unsupported characters',
    );
    expect(() => make('{{random 100}}{{random 29}}')).toThrow(
      'Generated username contains unsupported characters',
    );
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
