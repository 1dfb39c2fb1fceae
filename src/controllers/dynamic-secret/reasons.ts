/**
 * Reasons of DynamicSecret. It has none of its own: a missing Secret or key is the common
 * `SecretNotFound` / `SecretKeyNotFound`, and the service's refusals (an unreachable provider, a
 * missing folder) are the managed reconciler's generic reasons.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const dynamicSecretReasons = declareReasons('DynamicSecret', {});
