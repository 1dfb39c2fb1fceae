/**
 * Test support for the Project, Identity and IdentityAuth adapter tests: the shared kind adapter
 * test helpers.
 */
export * from '../testing.ts';
