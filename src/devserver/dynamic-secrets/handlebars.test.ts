// The dynamic-secret templates as the service validates and renders them: each helper, the
// statements' missing HTML escaping, and the refusals (blocks, comments, partials, unknown names).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isValidTemplate, renderStatement, renderUsernameTemplate, validateTemplate } from './handlebars.ts';

const values = { username: 'dev-alice.smith', password: "p'&<w", database: 'app' };
const render = (template: string) => renderStatement(template, values);

describe('template helpers', () => {
  it('replace: every match of an RE2 pattern, with group references; a bad pattern leaves the text', () => {
    expect(render('{{replace username "[.-]" "_"}}')).toBe('dev_alice_smith');
    expect(render('{{replace username "^dev-(\\w+)" "$1"}}')).toBe('alice.smith');
    expect(render('{{replace username "(unclosed" "x"}}')).toBe('dev-alice.smith');
  });

  it('replace: a pattern that makes a backtracking engine take exponential time matches in linear time', () => {
    const text = `${'a'.repeat(5000)}!`;
    expect(renderStatement('{{replace t "(a+)+$" "x"}}', { t: text })).toBe(text);
    expect(renderStatement('{{replace t "(a|aa)+!" "x"}}', { t: text })).toBe('x');
  });

  it('random: 1 to 100 letters and digits, else nothing', () => {
    expect(render('{{random 6}}')).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(render('{{random 100}}')).toMatch(/^[A-Za-z0-9]{100}$/);
    expect(render('[{{random 0}}{{random 101}}{{random "6"}}]')).toBe('[]');
  });

  it('truncate: the first N characters, the whole text when N is not a positive number', () => {
    expect(render('{{truncate username 5}}')).toBe('dev-a');
    expect(render('{{truncate username 0}}|{{truncate username "3"}}')).toBe(
      'dev-alice.smith|dev-alice.smith',
    );
    expect(render('[{{truncate missing 3}}]')).toBe('[]');
  });

  it('uppercase, lowercase, substr and stripPrefix', () => {
    expect(render('{{uppercase username}} {{lowercase "MiXeD"}}')).toBe('DEV-ALICE.SMITH mixed');
    expect(render('{{substr username 4 9}}|{{substr username 4}}')).toBe('alice|alice.smith');
    expect(render('{{stripPrefix username "dev-"}}|{{stripPrefix username "prod-"}}')).toBe('alice.smith|dev-alice.smith'); // prettier-ignore
    expect(render('{{truncate (uppercase (stripPrefix username "dev-")) 5}}')).toBe('ALICE');
    expect(() => render('{{substr missing 1}}')).toThrow('substr: the text is not a string');
  });
});

describe('rendering', () => {
  afterEach(() => vi.restoreAllMocks());

  it('renders statements without HTML escaping and username templates with it', () => {
    expect(render(`CREATE ROLE "{{username}}" PASSWORD '{{ password }}'`)).toBe(
      `CREATE ROLE "dev-alice.smith" PASSWORD 'p'&<w'`,
    );
    expect(renderUsernameTemplate('{{identity.name}}', { identity: { name: "o'neil&co" } })).toBe(
      'o&#x27;neil&amp;co',
    );
  });

  it('renders unknown names as nothing and never writes a value through the log helper', () => {
    const writes = (['log', 'info', 'error'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => undefined),
    );
    expect(render('[{{unknown}}]{{uppercase (log password)}}{{uppercase (log password level="error")}}')).toBe('[]'); // prettier-ignore
    for (const write of writes) expect(write).not.toHaveBeenCalled();
  });
});

describe('validation', () => {
  const allowed = ['username', 'database'];

  it('accepts text, the allowed variables and the helpers (with any arguments)', () => {
    expect(isValidTemplate('DROP ROLE "{{username}}"; -- {{ database }}', allowed)).toBe(true);
    expect(isValidTemplate('{{truncate (replace username "x" "y") 8}}{{random 4}}{{{username}}}', allowed)).toBe(true); // prettier-ignore
  });

  it('refuses blocks, comments, partials, literals, other names and parse errors', () => {
    for (const template of [
      '{{#if username}}x{{/if}}',
      '{{! a comment }}',
      '{{> partial}}',
      '{{"literal"}}',
      '{{password}}',
      '{{username.length}}',
      '{{lookup username 0}}',
      '{{#if}}',
    ]) {
      expect(isValidTemplate(template, allowed), template).toBe(false);
    }
  });

  it("answers 400 with the service's message", () => {
    expect(() => validateTemplate('SQL revoke', 'DROP ROLE "{{password}}"', allowed)).toThrow(
      expect.objectContaining({ status: 400, message: 'Template sanitization failed: SQL revoke' }),
    );
  });
});
