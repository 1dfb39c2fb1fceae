/**
 * The main path of a managed reconcile for a resource that is not being deleted: finalizer,
 * references, observe, create or update, output Secrets, Ready. Each step sets `run.step` so a
 * failure is reported with the right action and event reason.
 */
import { Reasons } from '../runtime/conditions.ts';
import { WaitingError } from '../runtime/errors.ts';
import { ensureFinalizer } from '../runtime/finalizers.ts';
import { ANNOTATION_EXTERNAL_ID, getAnnotation } from '../runtime/object-meta.ts';
import { createMarkOf } from './create-mark.ts';
import { createExternal, recoverInterruptedCreate, type ExternalState } from './create.ts';
import type {
  AdapterStatus,
  BoundContext,
  ExternalClient,
  ExternalContext,
  ManagedSpecFields,
  Observation,
  SecretOutputs,
} from './external-client.ts';
import { guardedAnnotator } from './guarded-annotations.ts';
import { assertMayWrite, refuseForeign } from './ownership.ts';
import { view, type ConditionState, type Run } from './run.ts';
import { isObserveOnly } from './spec.ts';
import { managedReasons } from './reasons.ts';

type Exists<Status extends AdapterStatus> = Extract<Observation<Status>, { exists: true }>;

/** Resolves references and connects; shared with deletion. */
export async function connect<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  deleting: boolean,
): Promise<{ client: ExternalClient<Spec, Refs, Status>; context: ExternalContext<Refs> }> {
  const { adapter, waitRequeueMs } = run.settings;
  const { signal, log } = run.context;
  run.step = 'resolve';
  const references = adapter.resolveReferences
    ? await adapter.resolveReferences(view(run), { deleting, waitRequeueMs, signal, log })
    : (undefined as Refs);
  run.step = 'connect';
  const externalId = getAnnotation(run.obj, ANNOTATION_EXTERNAL_ID);
  const context: ExternalContext<Refs> = {
    references,
    signal,
    log,
    annotate: guardedAnnotator(run),
    ...(externalId ? { externalId } : {}),
  };
  return { client: await adapter.connect(view(run), context), context };
}

async function whenMissing<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
): Promise<ExternalState<Status>> {
  if (isObserveOnly(run.spec)) {
    run.ready = {
      status: 'False',
      reason: Reasons.Unavailable,
      message: 'the external object does not exist',
    };
    const which = context.externalId
      ? `external object ${context.externalId} does not exist`
      : `no external object matches this resource: set the ${ANNOTATION_EXTERNAL_ID} annotation to the id of an existing one`;
    throw new WaitingError(
      managedReasons.names.NotFound,
      `${which} (managementPolicy ObserveOnly never creates it)`,
      run.pollIntervalMs,
    );
  }
  run.step = 'create';
  assertMayWrite(run, client, context);
  return createExternal(run, client, context, context.externalId);
}

async function whenExists<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: BoundContext<Refs>,
  observation: Exists<Status>,
): Promise<ExternalState<Status>> {
  const id = context.externalId;
  const mustUpdate = !observation.upToDate && !isObserveOnly(run.spec);
  if (mustUpdate) {
    run.step = 'update';
    assertMayWrite(run, client, context);
  }
  if (run.obj.status?.id !== id) {
    run.events.push({ type: 'Normal', reason: 'AdoptedExternal', message: `adopted external object ${id}` });
  }
  if (!mustUpdate) return { id, status: observation.status, secretData: observation.secretData };
  const update = await client.update(view(run), context);
  const what = observation.diff ? `: ${observation.diff}` : '';
  run.events.push({
    type: 'Normal',
    reason: 'UpdatedExternal',
    message: `updated external object ${id}${what}`,
  });
  return {
    id,
    status: update.status ?? observation.status,
    secretData: update.secretData ?? observation.secretData,
  };
}

async function publish<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  outputs: SecretOutputs | undefined,
): Promise<void> {
  run.step = 'publish';
  for (const output of outputs ?? []) {
    const result = await run.settings.secrets.write(run.obj, output);
    if (result !== 'unchanged') {
      run.events.push({
        type: 'Normal',
        reason: 'PublishedSecret',
        message: `${result} Secret ${output.name}`,
      });
    }
  }
}

function readiness<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  status: Status | undefined,
): ConditionState {
  const notReady = client.readyCheck?.(view(run), status);
  if (notReady) return { status: 'False', ...notReady };
  return { status: 'True', reason: Reasons.Available, message: 'the external object is available' };
}

/**
 * Observes the object the resource names (or, without a name, the adapter's natural-key lookup).
 * An object found by natural key is someone else's: `AlreadyExists` (ownership.ts, rule 1).
 */
async function observeOwn<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
  client: ExternalClient<Spec, Refs, Status>,
  context: ExternalContext<Refs>,
): Promise<(Exists<Status> & { readonly id: string }) | { readonly exists: false }> {
  run.step = 'observe';
  const observation = await client.observe(view(run), context);
  if (!observation.exists) return observation;
  const id = observation.externalId ?? context.externalId;
  if (!id) throw new Error('cannot observe external object: the adapter found an object but returned no id');
  if (id !== context.externalId) await refuseForeign(run, [id]);
  return { ...observation, id };
}

/**
 * Brings the external object in line with the spec and returns what status should record.
 * Throws on failure (classified by the caller).
 */
export async function syncExternal<Spec extends ManagedSpecFields, Refs, Status extends AdapterStatus>(
  run: Run<Spec, Refs, Status>,
): Promise<ExternalState<Status>> {
  const observeOnly = isObserveOnly(run.spec);
  // The finalizer is added before this resource owns anything in the service, so deletion is
  // never missed: with the create-pending mark in one write (create.ts), or before adopting or
  // updating an object that exists. An interrupted create's mark came with the finalizer. Only
  // the operator's own mark (annotation and status agree) leads to a recovery.
  const { client, context: initial } = await connect(run, false);
  let context = initial;
  if (!context.externalId && createMarkOf(run.obj) && !observeOnly) {
    const adopted = await recoverInterruptedCreate(run, client, context);
    if (adopted) context = { ...context, externalId: adopted };
  }
  const observation = await observeOwn(run, client, context);
  if (observation.exists && !observeOnly) {
    run.step = 'finalize';
    run.obj = await ensureFinalizer(run.settings.patcher, run.obj);
  }
  const state = observation.exists
    ? await whenExists(run, client, { ...context, externalId: observation.id }, observation)
    : await whenMissing(run, client, context);
  await publish(run, state.secretData);
  run.ready = readiness(run, client, state.status);
  run.requeueHintMs = client.requeueAfterMs?.(view(run), state.status);
  return state;
}
