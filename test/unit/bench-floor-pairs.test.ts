import { describe, expect, it } from 'vitest';
import { requestDelta, sumRequests } from '../../scripts/bench/apiserver-requests.ts';
import { floorFirst, median, pairRows, runPairs, type Convergence } from '../../scripts/bench/floor-pairs.ts';
import { beyondFloor, beyondFloorText, compareRequests } from '../../scripts/bench/request-table.ts';

const converged = (readyMs: number, requests: [string, number][] = []): Convergence => ({
  readyMs,
  requests: new Map(requests),
});

describe('the benchmark against the floor over several runs', () => {
  it('alternates the order of the sides and runs the floor first in the last pair', async () => {
    const order: string[] = [];
    const pairs = await runPairs(
      3,
      {
        operator: (run, last) => {
          order.push(`operator ${run}${last ? ' (kept)' : ''}`);
          return Promise.resolve(converged(1000 * run + 100));
        },
        floor: (run) => {
          order.push(`floor ${run}`);
          return Promise.resolve(converged(1000 * run));
        },
      },
      () => undefined,
    );
    expect(order).toEqual(['floor 1', 'operator 1', 'operator 2', 'floor 2', 'floor 3', 'operator 3 (kept)']);
    expect(pairs.map((pair) => pair.floorFirst)).toEqual([true, false, true]);
    expect([1, 2, 3, 4].map((run) => floorFirst(run, 4))).toEqual([false, true, false, true]);
  });

  it('prints the median ratio with its min–max spread', () => {
    const pairs = [
      { run: 1, floorFirst: true, operator: converged(15_600), floor: converged(11_200) },
      { run: 2, floorFirst: false, operator: converged(11_500), floor: converged(10_000) },
      { run: 3, floorFirst: true, operator: converged(12_900), floor: converged(10_000) },
    ];
    const rows = Object.fromEntries(pairRows(pairs, 1.1));
    expect(rows['operator / floor: median of 3 runs (min–max)']).toBe('1.29 (1.15–1.39; target ≤ 1.1)');
    expect(rows['run 2 (operator first): operator / floor, apply → all Ready']).toBe(
      '11.5 s / 10.0 s = 1.15',
    );
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("lists per resource the operator's requests beyond the floor's, the largest excess first", () => {
    const before = new Map([['GET secrets', 10]]);
    const operator = sumRequests([
      requestDelta(
        before,
        new Map([
          ['GET secrets', 810],
          ['PATCH projects', 200],
          ['PUT leases', 3],
        ]),
      ),
      new Map([
        ['POST events', 160],
        ['PATCH projects', 200],
      ]),
    ]);
    const floor = new Map([
      ['PATCH projects', 200],
      ['PUT leases', 2],
    ]);
    const compared = compareRequests(operator, floor, 2000);
    expect(compared.find((row) => row.key === 'GET secrets')).toEqual({
      key: 'GET secrets',
      operator: 0.4,
      floor: 0,
    });
    expect(beyondFloor(compared).map((row) => row.key)).toEqual([
      'GET secrets',
      'PATCH projects',
      'POST events',
    ]);
    expect(beyondFloorText(compared)).toBe('GET secrets +0.40, PATCH projects +0.10, POST events +0.08');
    expect(beyondFloorText(compareRequests(floor, floor, 2000))).toBe('none');
  });
});
