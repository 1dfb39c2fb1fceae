// The control-plane binaries live in src/sandbox/control-plane/ (the sandbox uses them too);
// re-exported here so tests keep importing from test/support.
export * from '../../src/sandbox/control-plane/binaries.ts';
