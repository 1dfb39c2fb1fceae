/**
 * The template step of a delivery: without `template.data` the merged keys are delivered as they
 * are; with it, each output key is its rendered template, beside the merged keys when
 * `mergeSourceKeys` is set (a templated key wins). The Liquid engine is imported only here, on the
 * first WorkloadSecret that has a template, so an operator without templates never loads it.
 *
 * Templates see every merged key as a variable (`{{ DB_USER }}`) and the whole map as `secrets`
 * (`{{ secrets["db-user"] }}`, for keys that are not identifiers).
 */
import type { WorkloadSecretSpec } from '../../../api/v1alpha1/index.ts';
import { TerminalError } from '../../../runtime/errors.ts';
import { workloadSecretReasons } from '../reasons.ts';

/** Renders `template` over `merged` (see the module comment); `TemplateError` on a failure. */
export async function renderContent(
  merged: Readonly<Record<string, string>>,
  template: WorkloadSecretSpec['template'],
): Promise<Readonly<Record<string, string>>> {
  const templates = Object.entries(template?.data ?? {});
  if (templates.length === 0) return merged;
  const { renderTemplate, TemplateFailure } = await import('./engine.ts');
  const scope = { secrets: merged, ...merged };
  const out: Record<string, string> = template?.mergeSourceKeys ? { ...merged } : {};
  for (const [key, text] of templates) {
    try {
      out[key] = await renderTemplate(key, text, scope);
    } catch (error) {
      if (error instanceof TemplateFailure)
        throw new TerminalError(workloadSecretReasons.names.TemplateError, error.message);
      throw error;
    }
  }
  return out;
}
