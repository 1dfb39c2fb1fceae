import { describe, expect, it } from 'vitest';
import { joinList, sameClaims, sameList, sameTrustedIps, splitList } from './lists.ts';

describe('comma lists', () => {
  it('splits and joins like the service', () => {
    expect(splitList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(splitList(null)).toEqual([]);
    expect(joinList(['a', ' b'])).toBe('a, b');
    expect(joinList(undefined)).toBe('');
  });

  it.each([
    { reason: 'same entries, other order and spacing', spec: ['b', 'a'], service: 'a,b', same: true },
    { reason: 'unset spec equals an empty string', spec: undefined, service: '', same: true },
    { reason: 'unset spec equals null', spec: undefined, service: null, same: true },
    { reason: 'an entry missing', spec: ['a', 'b'], service: 'a', same: false },
    { reason: 'an extra entry', spec: ['a'], service: 'a, b', same: false },
  ])('$reason', ({ spec, service, same }) => {
    expect(sameList(spec, service)).toBe(same);
  });
});

describe('claims', () => {
  it.each([
    { reason: 'same claims, values normalised', spec: { sub: 'x,y' }, service: { sub: 'y, x' }, same: true },
    { reason: 'none on both sides', spec: undefined, service: null, same: true },
    { reason: 'a claim missing in the service', spec: { sub: 'x' }, service: {}, same: false },
    { reason: 'an extra claim in the service', spec: {}, service: { aud: 'x' }, same: false },
    { reason: 'a value changed', spec: { sub: 'x' }, service: { sub: 'z' }, same: false },
    { reason: 'a non-string value', spec: { sub: 'x' }, service: { sub: 1 }, same: false },
  ])('$reason', ({ spec, service, same }) => {
    expect(sameClaims(spec as Record<string, string> | undefined, service)).toBe(same);
  });
});

describe('trusted IPs', () => {
  it.each([
    {
      reason: 'the default ranges as the service returns them',
      spec: ['0.0.0.0/0', '::/0'],
      service: [
        { ipAddress: '0.0.0.0', type: 'ipv4', prefix: 0 },
        { ipAddress: '::', type: 'ipv6', prefix: 0 },
      ],
      same: true,
    },
    {
      reason: 'a single address with or without its full prefix',
      spec: ['10.0.0.1', '2001:DB8::1'],
      service: [{ ipAddress: '10.0.0.1', prefix: 32 }, { ipAddress: '2001:db8::1' }],
      same: true,
    },
    {
      reason: 'another range',
      spec: ['10.0.0.0/8'],
      service: [{ ipAddress: '10.0.0.0', prefix: 16 }],
      same: false,
    },
    {
      reason: 'one range fewer',
      spec: ['10.0.0.0/8', '::/0'],
      service: [{ ipAddress: '10.0.0.0', prefix: 8 }],
      same: false,
    },
  ])('$reason', ({ spec, service, same }) => {
    expect(sameTrustedIps(spec, service)).toBe(same);
  });
});
