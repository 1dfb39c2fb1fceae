/**
 * Particular refusals of the service that callers act on, recognised here from the typed error
 * and the service's own message, so no code outside the client reads a message:
 *
 * | predicate               | the service's answer |
 * |-------------------------|----------------------|
 * | `isMethodNotAttached`   | 404 on reading an identity's auth method, 400 "… does not have …" on changing or revoking it |
 * | `isFolderNotFound`      | 404 `SecretPathNotFound`, or a 404 naming the folder or path (not a missing project or environment) |
 * | `isSecretSyncRefusal`   | 403 refusing to create a native integration, pointing to Secret Syncs |
 * | `isAlreadyBootstrapped` | 400 "… already …" on bootstrapping an instance that has been set up |
 */
import { ForbiddenError, InvalidError, NotFoundError } from './errors.ts';

/** The identity does not have the auth method (any more). */
export function isMethodNotAttached(error: unknown): boolean {
  return (
    error instanceof NotFoundError ||
    (error instanceof InvalidError && /does not have/i.test(error.serviceMessage))
  );
}

/** The secret path's folder does not exist (as opposed to its project or environment). */
export function isFolderNotFound(error: unknown): boolean {
  if (!(error instanceof NotFoundError)) return false;
  return error.errorName === 'SecretPathNotFound' || /folder|path/i.test(error.serviceMessage);
}

/** The service no longer creates native integrations: Secret Syncs replace them. */
export function isSecretSyncRefusal(error: unknown): boolean {
  return error instanceof ForbiddenError && /secret[\s-]*sync/i.test(error.serviceMessage);
}

/** The instance was bootstrapped before. */
export function isAlreadyBootstrapped(error: unknown): boolean {
  return error instanceof InvalidError && /already/i.test(error.serviceMessage);
}
