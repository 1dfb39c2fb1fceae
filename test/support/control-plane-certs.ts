// The control-plane PKI lives in src/sandbox/control-plane/; re-exported for tests.
export * from '../../src/sandbox/control-plane/certs.ts';
