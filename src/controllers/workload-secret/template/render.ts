/**
 * The template step of a delivery: without `template.data` the merged keys are delivered as they
 * are; with it, each output key is its rendered template, beside the merged keys when
 * `mergeSourceKeys` is set (a templated key wins).
 *
 * Templates render in a worker with hard limits (`workers.ts`: time, memory, output size, see
 * `limits.ts`), never on the operator's event loop; the workers start on the first WorkloadSecret
 * that has a template. The outcome, failure or success, is remembered per WorkloadSecret
 * (`memo.ts`): as long as the templates and the merged data are the same, nothing renders again.
 * A failure is a terminal `TemplateError` whose message holds no value (`failure.ts`).
 *
 * Templates see every merged key as a variable (`{{ DB_USER }}`) and the whole map as `secrets`
 * (`{{ secrets["db-user"] }}`, for keys that are not identifiers).
 */
import type { WorkloadSecretSpec } from '../../../api/v1alpha1/index.ts';
import { TerminalError } from '../../../runtime/errors.ts';
import type { Request } from '../../../runtime/reconcile.ts';
import { workloadSecretReasons } from '../reasons.ts';
import { MEMO_LIMIT_CHARS } from './limits.ts';
import { RenderMemo, renderDigest } from './memo.ts';
import { failureMessage } from './outcome.ts';
import type { RenderWorkers } from './workers.ts';

const memo = new RenderMemo(MEMO_LIMIT_CHARS);
let workers: Promise<RenderWorkers> | undefined;

/** The process's render workers, created on first use. */
export function renderWorkers(): Promise<RenderWorkers> {
  workers ??= import('./workers.ts').then(({ RenderWorkers: Workers }) => new Workers());
  return workers;
}

/** The memo's key of a WorkloadSecret. */
function ownerOf(request: Request): string {
  return `${request.namespace ?? ''}/${request.name}`;
}

/**
 * Renders `template` over `merged` for the WorkloadSecret `owner` (see the module comment);
 * `TemplateError` on a failure.
 */
export async function renderContent(
  merged: Readonly<Record<string, string>>,
  template: WorkloadSecretSpec['template'],
  owner: Request,
): Promise<Readonly<Record<string, string>>> {
  const templates = Object.entries(template?.data ?? {});
  if (templates.length === 0) return merged;
  const key = ownerOf(owner);
  const digest = renderDigest(templates, merged);
  let outcome = memo.get(key, digest);
  if (!outcome) {
    outcome = await (await renderWorkers()).render({ templates, data: merged });
    memo.set(key, digest, outcome);
  }
  if (!outcome.ok)
    throw new TerminalError(workloadSecretReasons.names.TemplateError, failureMessage(outcome.failure));
  return template?.mergeSourceKeys ? { ...merged, ...outcome.data } : outcome.data;
}

/** Drops what is remembered of the render of `request` (it was deleted). */
export function forgetRender(request: Request): void {
  memo.forget(ownerOf(request));
}
