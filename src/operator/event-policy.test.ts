import { describe, expect, it } from 'vitest';
import { isRoutineEvent } from './event-policy.ts';

describe('isRoutineEvent', () => {
  it('puts the Normal events every resource records under the shared budget, WorkloadSecret deliveries included', () => {
    for (const reason of [
      'CreatedExternal',
      'UpdatedExternal',
      'PublishedSecret',
      'DeletedExternal',
      'Delivered',
    ])
      expect(isRoutineEvent({ type: 'Normal', reason, message: 'm' }), reason).toBe(true);
  });

  it('never budgets a Warning or a Normal event that is not routine', () => {
    expect(isRoutineEvent({ type: 'Warning', reason: 'Delivered', message: 'm' })).toBe(false);
    expect(isRoutineEvent({ type: 'Normal', reason: 'AdoptedExternal', message: 'm' })).toBe(false);
    expect(isRoutineEvent({ type: 'Normal', reason: 'RolloutRestarted', message: 'm' })).toBe(false);
  });
});
