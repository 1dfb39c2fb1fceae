/**
 * The kind controllers the operator runs (`src/operator/assemble.ts`), taken from the kind
 * registry (`registry.ts`, one line per kind) in its order, completed from each registration:
 * `dependencies` and `announces` from its declared references, `usesConnection` from a
 * `spec.connectionRef` reference, `routineEvents` as declared.
 *
 * `kindControllers`: kinds that mirror a service object, on the generic managed reconciler.
 *
 * `directKindControllers`: kinds that mirror no service object, on the small direct reconciler
 * (`src/managed/direct/`); which kinds those are is each registration's `runtime.reconciler`.
 */
import type { DirectKindController } from '../managed/direct/kind.ts';
import type { KindController } from './kind-controller.ts';
import {
  announcedFrom,
  connectionReference,
  dependenciesFrom,
  type KindRegistration,
} from './registration.ts';
import { kindRegistry } from './registry.ts';

export { findKind, findRegistration, kindDefinitions, kindRegistry } from './registry.ts';

/** What a registration's references and events say about running the kind (both reconcilers). */
function fromRegistration({ references, routineEvents }: KindRegistration) {
  return {
    ...(references.some((reference) => reference.watch)
      ? { dependencies: dependenciesFrom(references) }
      : {}),
    usesConnection: references.some((reference) => reference.path === connectionReference.path),
    routineEvents: routineEvents ?? [],
  };
}

export const kindControllers: readonly KindController[] = kindRegistry.flatMap((registration) => {
  const { runtime, references } = registration;
  if (runtime.reconciler !== 'managed') return [];
  const announces = references.some((reference) => reference.announce)
    ? announcedFrom(references)
    : undefined;
  return [{ ...runtime.controller, ...fromRegistration(registration), ...(announces ? { announces } : {}) }];
});

export const directKindControllers: readonly DirectKindController[] = kindRegistry.flatMap((registration) =>
  registration.runtime.reconciler === 'direct'
    ? [{ ...registration.runtime.controller, ...fromRegistration(registration) }]
    : [],
);
