/**
 * DynamicSecret adapter: a dynamic secret of one folder (`/api/v1/dynamic-secrets`).
 *
 * - observe: by id (see `lookup.ts`), or by the spec's name without one (the natural key); the
 *   admin credential is read from its Secret first, so a missing Secret or key is reported before
 *   anything is written, and its value is compared with what the service stores (`mapping.ts`);
 * - create / update (PATCH by name, renaming with `newName`) / delete by name (not forced: the
 *   service revokes the leases, then removes the definition).
 *
 * The credential is only sent to the service: never in status, `diff`, events, logs or errors.
 */
import type { DynamicSecretSpec } from '../../api/v1alpha1/index.ts';
import type { DynamicSecret, ServiceClient } from '../../client/index.ts';
import type {
  ExternalClient,
  ManagedAdapter,
  ManagedObject,
  Observation,
} from '../../managed/external-client.ts';
import { naturalKeyMatch } from '../../managed/external-client.ts';
import type { OperatorServices } from '../kind-controller.ts';
import { readCredential } from './credentials.ts';
import { findById, findByName, recordedName, scopeOf } from './lookup.ts';
import {
  createInputs,
  desiredProvider,
  driftedFields,
  statusOf,
  updateData,
  type DynamicSecretStatusFields,
} from './mapping.ts';
import { resolveDynamicSecretRefs, type DynamicSecretRefs } from './references.ts';

type Status = DynamicSecretStatusFields;
type Obj = ManagedObject<DynamicSecretSpec>;

function dynamicSecretClient(
  client: ServiceClient,
  services: OperatorServices,
): ExternalClient<DynamicSecretSpec, DynamicSecretRefs, Status> {
  const desired = async (obj: Obj) =>
    desiredProvider(obj.spec, await readCredential(services.secrets, obj.metadata.namespace ?? '', obj.spec));
  const locate = (obj: Obj, projectSlug: string, id: string | undefined, signal: AbortSignal) => {
    const scope = scopeOf(obj.spec, projectSlug);
    return id
      ? findById(client, obj, scope, { id, signal })
      : findByName(client, scope, obj.spec.name, signal);
  };
  const observation = (obj: Obj, ds: DynamicSecret, inputs: Record<string, unknown>, projectSlug: string) => {
    const drifted = driftedFields(obj.spec, inputs, ds);
    return {
      exists: true,
      upToDate: drifted.length === 0,
      externalId: ds.id,
      status: statusOf(ds, projectSlug),
      ...(drifted.length > 0 ? { diff: drifted.join(', ') } : {}),
    } satisfies Observation<Status>;
  };
  return {
    async observe(obj, ctx) {
      const { inputs } = await desired(obj);
      const { projectSlug } = ctx.references;
      const ds = await locate(obj, projectSlug, ctx.externalId, ctx.signal);
      return ds ? observation(obj, ds, inputs, projectSlug) : { exists: false };
    },
    async create(obj, ctx) {
      const provider = await desired(obj);
      const { projectSlug } = ctx.references;
      const { spec } = obj;
      const ds = await client.dynamicSecrets.create(
        {
          ...scopeOf(spec, projectSlug),
          name: spec.name,
          provider: { type: provider.type, inputs: createInputs(provider.inputs) },
          defaultTTL: spec.defaultTTL,
          ...(spec.maxTTL ? { maxTTL: spec.maxTTL } : {}),
          ...(spec.usernameTemplate ? { usernameTemplate: spec.usernameTemplate } : {}),
        },
        { signal: ctx.signal },
      );
      return { externalId: ds.id, status: statusOf(ds, projectSlug) };
    },
    async update(obj, ctx) {
      const { inputs } = await desired(obj);
      const { projectSlug } = ctx.references;
      const current = await locate(obj, projectSlug, ctx.externalId, ctx.signal);
      const name = current?.name ?? recordedName(obj) ?? obj.spec.name;
      const body = { ...scopeOf(obj.spec, projectSlug), data: updateData(obj.spec, inputs, name) };
      const ds = await client.dynamicSecrets.update(name, body, { signal: ctx.signal });
      return { status: statusOf(ds, projectSlug) };
    },
    async delete(obj, ctx) {
      const { projectSlug } = ctx.references;
      const current = await locate(obj, projectSlug, ctx.externalId, ctx.signal);
      if (!current) return;
      const scope = scopeOf(obj.spec, projectSlug);
      await client.dynamicSecrets.delete(current.name, scope, { signal: ctx.signal });
    },
    async findByNaturalKey(obj, ctx) {
      const ds = await findByName(
        client,
        scopeOf(obj.spec, ctx.references.projectSlug),
        obj.spec.name,
        ctx.signal,
      );
      return ds ? [naturalKeyMatch(ds)] : [];
    },
  };
}

/** The DynamicSecret adapter on the operator's services. */
export function dynamicSecretAdapter(
  services: OperatorServices,
): ManagedAdapter<DynamicSecretSpec, DynamicSecretRefs, Status> {
  return {
    resolveReferences: (obj, context) => resolveDynamicSecretRefs(services, obj, context),
    async connect(obj) {
      const connection = await services.connectionFor(obj);
      return dynamicSecretClient(connection.client, services);
    },
  };
}
