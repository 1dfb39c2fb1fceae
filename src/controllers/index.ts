/**
 * The kind controllers the operator runs (`src/operator/assemble.ts`), taken from the kind
 * registry (`registry.ts`, one line per kind) in its order.
 *
 * `kindControllers`: kinds that mirror a service object, on the generic managed reconciler.
 *
 * `directKindControllers`: kinds that mirror no service object (connections and Bootstrap), on
 * the small direct reconciler (`src/managed/direct/`).
 */
import type { DirectKindController } from '../managed/direct/kind.ts';
import type { KindController } from './kind-controller.ts';
import { kindRegistry } from './registry.ts';

export { findKind, findRegistration, kindDefinitions, kindRegistry } from './registry.ts';

export const kindControllers: readonly KindController[] = kindRegistry.flatMap(({ runtime }) =>
  runtime.reconciler === 'managed' ? [runtime.controller] : [],
);

export const directKindControllers: readonly DirectKindController[] = kindRegistry.flatMap(({ runtime }) =>
  runtime.reconciler === 'direct' ? [runtime.controller] : [],
);
