/**
 * The kind pages' field tables come from the schema: every spec field at its path (list items
 * with `[]`), its type (enums by value), its description, and "Required." where the CRD requires it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { structuralSchemaOf } from '../../src/api/crd/build.ts';
import { fieldRegions, fieldTable } from '../../scripts/generate/field-tables.ts';

describe('field tables', () => {
  it('lists nested and list fields with their type, description and whether they are required', () => {
    const spec = z.object({
      mode: z.enum(['a', 'b']).default('a').describe('How | which.'),
      items: z
        .array(
          z.object({ key: z.string().describe('The key.'), note: z.string().optional().describe('A note.') }),
        )
        .describe('Items.'),
    });
    expect(fieldTable(structuralSchemaOf(spec))).toBe(
      [
        '| field | type | meaning |',
        '|---|---|---|',
        '| `mode` | `a`, `b` | How \\| which. |',
        '| `items` | object[] | Items. Required. |',
        '| `items[].key` | string | The key. Required. |',
        '| `items[].note` | string | A note. |',
        '',
      ].join('\n'),
    );
  });

  it("fills every kind page's fields region (hand-written prose around it stays)", () => {
    for (const region of fieldRegions()) {
      const page = readFileSync(join(import.meta.dirname, '..', '..', region.path), 'utf8');
      expect(page, region.path).toContain(
        `<!-- generated:fields -->\n${region.content}<!-- /generated:fields -->`,
      );
      expect(page.indexOf('## Fields'), region.path).toBeLessThan(page.indexOf('<!-- generated:fields -->'));
    }
  });
});
