import { describe, expect, it, vi } from 'vitest';
import type { TerminalError } from '../../../runtime/errors.ts';
import { renderContent as render, renderWorkers } from './render.ts';

let owners = 0;
/** Each call renders as another WorkloadSecret, so the memo never answers for another test. */
const renderContent = (...args: [Parameters<typeof render>[0], Parameters<typeof render>[1]]) =>
  render(...args, { namespace: 'unit', name: `ws-${owners++}` });

const source = {
  DB_USER: 'app',
  DB_PASSWORD: 'p@ss"word',
  CONFIG_JSON: '{"port": 8080, "hosts": ["a", "b"]}',
  'db-host': 'db.internal',
};

async function failure(data: Record<string, string>): Promise<TerminalError> {
  try {
    await renderContent(source, { data, mergeSourceKeys: false });
  } catch (error) {
    return error as TerminalError;
  }
  throw new Error('expected a failure');
}

describe('renderContent', () => {
  it('delivers the source keys as they are without templates', async () => {
    expect(await renderContent(source, undefined)).toBe(source);
    expect(await renderContent(source, { mergeSourceKeys: false })).toBe(source);
  });

  it('renders keys and whole documents; mergeSourceKeys keeps the source keys beside them', async () => {
    const template = {
      data: {
        DATABASE_URL: 'postgres://{{ DB_USER }}:{{ DB_PASSWORD }}@{{ secrets["db-host"] }}/app',
        'config.yaml': 'user: {{ DB_USER }}\npassword: {{ DB_PASSWORD | toJson }}\n',
      },
      mergeSourceKeys: false,
    };
    const only = await renderContent(source, template);
    expect(only).toEqual({
      DATABASE_URL: 'postgres://app:p@ss"word@db.internal/app',
      'config.yaml': 'user: app\npassword: "p@ss\\"word"\n',
    });
    const merged = await renderContent(source, { ...template, mergeSourceKeys: true });
    expect(Object.keys(merged).sort()).toEqual([...Object.keys(source), ...Object.keys(only)].sort());
  });

  it('offers the added filters and Liquid’s default', async () => {
    const out = await renderContent(source, {
      mergeSourceKeys: false,
      data: {
        enc: '{{ DB_USER | b64enc }}',
        dec: '{{ "YXBw" | b64dec }}',
        port: '{% assign c = CONFIG_JSON | fromJson %}{{ c.port }} {{ c.hosts | toJson }}',
        yaml: '{% assign c = CONFIG_JSON | fromJson %}{{ c | toYaml }}',
        back: '{% assign y = "a: 1" | fromYaml %}{{ y.a }}',
        fallback: '{{ MISSING | default: "none" }}',
      },
    });
    expect(out).toEqual({
      enc: 'YXBw',
      dec: 'app',
      port: '8080 ["a","b"]',
      yaml: 'port: 8080\nhosts:\n  - a\n  - b\n',
      back: '1',
      fallback: 'none',
    });
  });

  it('reports errors as TemplateError with the key, line and column, never a value', async () => {
    const undefinedVariable = await failure({ 'config.yaml': 'a: 1\nb: {{ DB_HOST }}' });
    expect(undefinedVariable.errorClass).toBe('terminal');
    expect(undefinedVariable.reason).toBe('TemplateError');
    expect(undefinedVariable.message).toMatch(
      /^template of key "config.yaml", line 2 column 7: undefined variable: DB_HOST$/,
    );
    const badSyntax = await failure({ K: 'x\n\n  {% if %}' });
    expect(badSyntax.message).toMatch(/line 3 column 8: invalid value expression/);
    const unknownFilter = await failure({ K: '{{ DB_USER | nope }}' });
    expect(unknownFilter.message).toMatch(/line 1 column 1: .*nope/);
    const badJson = await failure({ K: '{{ DB_PASSWORD | fromJson }}' });
    expect(badJson.message).toContain('fromJson: the input is not valid JSON');
    expect(badJson.message).not.toContain('p@ss');
    const badBase64 = await failure({ K: '{{ DB_PASSWORD | b64dec }}' });
    expect(badBase64.message).toContain('b64dec: the input is not base64');
    expect(badBase64.message).not.toContain('p@ss');
  });

  it('has no file access: include, render and layout are refused with a fixed message', async () => {
    for (const tag of ['include "/etc/passwd"', 'render "x"', 'layout "x"', 'include DB_PASSWORD']) {
      const error = await failure({ K: `a\n {% ${tag} %}` });
      expect(error.reason).toBe('TemplateError');
      expect(error.message).toBe(
        'template of key "K", line 2 column 2: include, render and layout are not available',
      );
    }
  });

  it('names a failed lookup by the template text, never by the value it looked up', async () => {
    const error = await failure({ K: '{{ secrets[DB_PASSWORD] }}' });
    expect(error.message).toBe(
      'template of key "K", line 1 column 4: undefined variable: secrets[DB_PASSWORD]',
    );
    const nested = await failure({ K: '{% assign c = CONFIG_JSON | fromJson %}{{ c[DB_PASSWORD].x }}' });
    expect(nested.message).toMatch(/undefined variable: c\[DB_PASSWORD\]\.x$/);
    expect(nested.message).not.toContain('p@ss');
  });

  it('positions an error raised in text Liquid parsed from a value at run time', async () => {
    const error = await failure({
      K: '{% assign c = CONFIG_JSON | fromJson %}\n{{ c.hosts | where_exp: "h", DB_PASSWORD }}',
    });
    expect(error.message).toMatch(
      /^template of key "K", line 2 column 1: (cannot render|undefined variable:) \{\{ c\.hosts/,
    );
    expect(error.message).not.toContain('p@ss');
  });

  it('refuses base64 that decodes to bytes that are not UTF-8 (never U+FFFD)', async () => {
    const error = await failure({ K: '{{ "/w==" | b64dec }}' });
    expect(error.message).toContain('b64dec: the decoded bytes are not UTF-8 text');
    const bom = await renderContent(source, {
      mergeSourceKeys: false,
      data: { K: '{{ "77u/YQ==" | b64dec }}' },
    });
    expect(bom.K).toBe('\uFEFFa');
  });

  it('delivers the same outcome again without rendering while templates and data are unchanged', async () => {
    const owner = { namespace: 'unit', name: 'memo' };
    const data = { K: '{{ DB_USER }}' };
    const first = await render(source, { data, mergeSourceKeys: false }, owner);
    expect(await render(source, { data, mergeSourceKeys: false }, owner)).toBe(first);
    const changed = await render({ ...source, DB_USER: 'other' }, { data, mergeSourceKeys: false }, owner);
    expect(changed).toEqual({ K: 'other' });
  });

  it('does not run a known failure again (a time limit included) until templates or data change', async () => {
    const renders = vi.spyOn(await renderWorkers(), 'render');
    try {
      const owner = { namespace: 'unit', name: 'memo-failure' };
      const loops =
        '{% for i in (1..100000) %}{% for j in (1..100000) %}{% if i == j %}{% endif %}{% endfor %}{% endfor %}';
      const template = { data: { K: loops }, mergeSourceKeys: false };
      const first = await render(source, template, owner).catch((error: Error) => error.message);
      expect(first).toMatch(/time limit exceeded/);
      expect(await render(source, template, owner).catch((error: Error) => error.message)).toBe(first);
      expect(renders).toHaveBeenCalledTimes(1);
      await render(source, { ...template, data: { K: '{{ DB_USER }}' } }, owner);
      expect(renders).toHaveBeenCalledTimes(2);
    } finally {
      renders.mockRestore();
    }
  }, 30_000);
});
