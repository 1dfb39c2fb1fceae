import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { structuralSchemaOf } from './build.ts';
import { toStructural } from './structural.ts';

describe('toStructural', () => {
  it('inlines $ref from $defs and drops additionalProperties: false', () => {
    const out = toStructural({
      type: 'object',
      properties: { a: { $ref: '#/$defs/name' } },
      additionalProperties: false,
      $defs: { name: { type: 'string', description: 'A name.' } },
    });
    expect(out).toEqual({ properties: { a: { description: 'A name.', type: 'string' } }, type: 'object' });
  });

  it('keeps maps (additionalProperties without properties)', () => {
    const out = structuralSchemaOf(z.record(z.string(), z.string()).describe('Labels.'));
    expect(out).toEqual({ additionalProperties: { type: 'string' }, description: 'Labels.', type: 'object' });
  });

  it('refuses a union without x-kubernetes-preserve-unknown-fields', () => {
    expect(() => structuralSchemaOf(z.object({ a: z.union([z.string(), z.int()]) }))).toThrow(
      /cannot build structural schema at \.a: unions need x-kubernetes-preserve-unknown-fields/,
    );
  });

  it('turns a preserved union into an untyped node that keeps its CEL rules', () => {
    const schema = z
      .union([z.string(), z.array(z.string())])
      .meta({
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-validations': [{ rule: 'true', message: 'm' }],
      })
      .describe('One or many.');
    expect(structuralSchemaOf(schema)).toEqual({
      description: 'One or many.',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-validations': [{ message: 'm', rule: 'true' }],
    });
  });

  it('refuses a node without a type', () => {
    expect(() => toStructural({ type: 'object', properties: { a: { description: 'untyped' } } })).toThrow(
      /at \.a: every node needs a type/,
    );
  });

  it('refuses keywords the API server does not know', () => {
    expect(() => toStructural({ type: 'string', const: 'x' })).toThrow(/unsupported keyword "const"/);
  });

  it('refuses additionalProperties beside properties', () => {
    expect(() =>
      toStructural({
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'string' },
      }),
    ).toThrow(/additionalProperties beside properties/);
  });

  it('drops zod’s safe-integer bounds and date-time regex but keeps real bounds and the format', () => {
    const out = structuralSchemaOf(z.object({ n: z.int().min(1), t: z.iso.datetime() }));
    expect(out['properties']).toEqual({
      n: { minimum: 1, type: 'integer' },
      t: { format: 'date-time', type: 'string' },
    });
  });

  it('leaves defaulted fields out of required (the API server applies the default)', () => {
    const out = structuralSchemaOf(z.object({ a: z.string().default('x'), b: z.string() }));
    expect(out['required']).toEqual(['b']);
    expect(out['properties']).toMatchObject({ a: { default: 'x' } });
  });
});
