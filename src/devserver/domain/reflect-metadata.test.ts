import { describe, expect, it } from 'vitest';
import { reflectMetadata } from './reflect-metadata.ts';

describe('reflect metadata shim', () => {
  it('is installed on Reflect', () => {
    expect(typeof (Reflect as unknown as { getMetadata?: unknown }).getMetadata).toBe('function');
  });

  it('stores own metadata per target and property and inherits along prototypes', () => {
    class Base {}
    class Child extends Base {}
    reflectMetadata.defineMetadata('k', 1, Base);
    reflectMetadata.defineMetadata('k', 'p', Base, 'prop');
    expect(reflectMetadata.getOwnMetadata('k', Base)).toBe(1);
    expect(reflectMetadata.getOwnMetadata('k', Base, 'prop')).toBe('p');
    expect(reflectMetadata.getOwnMetadata('k', Child)).toBeUndefined();
    expect(reflectMetadata.hasOwnMetadata('k', Child)).toBe(false);
    expect(reflectMetadata.getMetadata('k', Child)).toBe(1);
    expect(reflectMetadata.hasMetadata('k', Child)).toBe(true);
    expect(reflectMetadata.hasMetadata('other', Child)).toBe(false);
    reflectMetadata.metadata('m', 'v')(Child);
    expect(reflectMetadata.getMetadata('m', Child)).toBe('v');
    expect(reflectMetadata.getMetadata('m', Base)).toBeUndefined();
  });
});
