import { describe, expect, it } from 'vitest';
import { directKindControllers, kindControllers } from '../controllers/index.ts';
import { routineEvents } from './event-policy.ts';

describe('routineEvents', () => {
  const isRoutine = routineEvents(['Delivered']);

  it('puts the Normal events every resource records, and those a kind declares, under the shared budget', () => {
    for (const reason of [
      'CreatedExternal',
      'UpdatedExternal',
      'PublishedSecret',
      'DeletedExternal',
      'Delivered',
    ])
      expect(isRoutine({ type: 'Normal', reason, message: 'm' }), reason).toBe(true);
  });

  it('never budgets a Warning or a Normal event that is not routine', () => {
    expect(isRoutine({ type: 'Warning', reason: 'Delivered', message: 'm' })).toBe(false);
    expect(isRoutine({ type: 'Normal', reason: 'AdoptedExternal', message: 'm' })).toBe(false);
    expect(isRoutine({ type: 'Normal', reason: 'RolloutRestarted', message: 'm' })).toBe(false);
    expect(routineEvents([])({ type: 'Normal', reason: 'Delivered', message: 'm' })).toBe(false);
  });

  it("takes a kind's routine events from its registration (WorkloadSecret's deliveries)", () => {
    const declared = [...kindControllers, ...directKindControllers].flatMap(
      (kind) => kind.routineEvents ?? [],
    );
    expect(declared).toContain('Delivered');
  });
});
