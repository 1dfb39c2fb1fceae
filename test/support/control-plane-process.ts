// Control-plane process management lives in src/sandbox/control-plane/; re-exported for tests.
export * from '../../src/sandbox/control-plane/process.ts';
