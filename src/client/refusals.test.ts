import { describe, expect, it } from 'vitest';
import { serviceErrorFor } from './classify.ts';
import {
  isAlreadyBootstrapped,
  isFolderNotFound,
  isMethodNotAttached,
  isSecretSyncRefusal,
} from './refusals.ts';

const answer = (status: number, message: string, errorName?: string) =>
  serviceErrorFor({ operation: 'x', status, message, ...(errorName ? { errorName } : {}) });

describe('refusals', () => {
  it('isMethodNotAttached: a 404, or a 400 saying the identity does not have the method', () => {
    expect(isMethodNotAttached(answer(404, 'Not found'))).toBe(true);
    expect(isMethodNotAttached(answer(400, 'The identity does not have universal auth'))).toBe(true);
    expect(isMethodNotAttached(answer(400, 'Invalid TTL'))).toBe(false);
    expect(isMethodNotAttached(answer(500, 'does not have'))).toBe(false);
  });

  it('isFolderNotFound: a 404 about the folder or path, not about the project', () => {
    expect(isFolderNotFound(answer(404, 'x', 'SecretPathNotFound'))).toBe(true);
    expect(isFolderNotFound(answer(404, 'Folder with path /a not found'))).toBe(true);
    expect(isFolderNotFound(answer(404, 'Environment with slug dev not found'))).toBe(false);
    expect(isFolderNotFound(answer(400, 'Folder path invalid'))).toBe(false);
  });

  it('isSecretSyncRefusal: a 403 pointing to Secret Syncs', () => {
    expect(isSecretSyncRefusal(answer(403, 'Please create a Secret Sync instead.'))).toBe(true);
    expect(isSecretSyncRefusal(answer(403, 'You are not allowed'))).toBe(false);
    expect(isSecretSyncRefusal(answer(400, 'secret sync'))).toBe(false);
  });

  it('isAlreadyBootstrapped: a 400 saying the instance was set up already', () => {
    expect(isAlreadyBootstrapped(answer(400, 'Instance has already been set up'))).toBe(true);
    expect(isAlreadyBootstrapped(answer(400, 'Invalid email'))).toBe(false);
    expect(isAlreadyBootstrapped(answer(401, 'already'))).toBe(false);
  });
});
