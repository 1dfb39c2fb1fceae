import { describe, expect, it } from 'vitest';
import type { Condition } from '../runtime/conditions.ts';
import { allSettled, type ResourceState } from './status.ts';
import { changedLines, failureLines, renderTable, summaryLine } from './table.ts';

const condition = (type: string, status: 'True' | 'False', reason: string, message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: 1,
});

const ready: ResourceState = {
  kind: 'Project',
  name: 'demo',
  namespace: 'default',
  registered: true,
  blocked: false,
  exists: true,
  isReady: true,
  isSynced: true,
  ready: condition('Ready', 'True', 'Available'),
  synced: condition('Synced', 'True', 'ReconcileSuccess'),
};
const waiting: ResourceState = {
  kind: 'Identity',
  name: 'demo-ci',
  namespace: 'default',
  registered: true,
  blocked: false,
  exists: true,
  isReady: false,
  isSynced: false,
  ready: condition('Ready', 'False', 'Unavailable', 'see Synced'),
  synced: condition('Synced', 'False', 'ReferenceNotReady', 'waiting for Project demo'),
};
const noController: ResourceState = {
  kind: 'Integration',
  name: 'x',
  namespace: 'default',
  registered: false,
  blocked: true,
  exists: true,
  isReady: false,
  isSynced: false,
};

describe('sandbox table', () => {
  it('aligns columns and explains a wait with the Synced condition', () => {
    const lines = renderTable([ready, waiting, noController]);
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+READY\s+SYNCED\s+REASON\s+MESSAGE$/);
    expect(lines[1]).toMatch(/^Project\s+demo\s+True\s+True\s+Available$/);
    expect(lines[2]).toMatch(
      /Identity\s+demo-ci\s+False\s+False\s+ReferenceNotReady\s+waiting for Project demo$/,
    );
    expect(lines[3]).toContain('NoController');
    expect(lines[1]?.indexOf('True')).toBe(lines[2]?.indexOf('False'));
  });

  it('cuts rows to the terminal width', () => {
    for (const line of renderTable([waiting], 40)) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('is done when everything not blocked is Ready and Synced', () => {
    expect(allSettled([ready, noController])).toBe(true);
    expect(allSettled([ready, waiting])).toBe(false);
    expect(summaryLine([ready, waiting, noController], 2500)).toBe(
      '1/2 Ready and Synced, 1 waiting on kinds without a controller in this build · reconciling · 2.5 s',
    );
    expect(summaryLine([ready], 1000)).toBe('1/1 Ready and Synced · all Ready and Synced · 1.0 s');
  });

  it('is not done while a Ready resource is not Synced, and says why', () => {
    const refused: ResourceState = {
      ...ready,
      kind: 'Identity',
      name: 'demo-ci',
      isSynced: false,
      synced: condition('Synced', 'False', 'ProtectedObject', 'identity i-1 is protected'),
    };
    expect(allSettled([ready, refused])).toBe(false);
    expect(renderTable([refused])[1]).toMatch(
      /^Identity\s+demo-ci\s+True\s+False\s+ProtectedObject\s+identity i-1 is protected$/,
    );
    expect(failureLines([refused])).toContain('    Synced=False ProtectedObject: identity i-1 is protected');
  });

  it('prints only changed rows for non-terminal output', () => {
    const first = changedLines([ready, waiting], new Map());
    expect(first.lines).toHaveLength(2);
    const second = changedLines(
      [ready, { ...waiting, ...ready, kind: 'Identity', name: 'demo-ci' }],
      first.next,
    );
    expect(second.lines).toEqual(['Identity/demo-ci: Ready=True Synced=True Available']);
  });

  it('lists the failing conditions after a timeout', () => {
    expect(failureLines([ready, waiting, noController])).toEqual([
      'Identity/demo-ci (namespace default):',
      '    Ready=False Unavailable: see Synced',
      '    Synced=False ReferenceNotReady: waiting for Project demo',
    ]);
  });
});
