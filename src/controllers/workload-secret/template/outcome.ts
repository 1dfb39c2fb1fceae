/**
 * What passes between the operator and a render worker (`workers.ts`, `worker.ts`): a job and its
 * outcome, with the failure described without a value (`failure.ts` builds it in the worker).
 * Loads no Liquid: the operator's side imports only this.
 */
import { limitText, type LimitKind } from './limits.ts';

/** One delivery's templates: output key → Liquid source, and the merged source keys. */
export interface RenderJob {
  readonly templates: readonly (readonly [string, string])[];
  readonly data: Readonly<Record<string, string>>;
  /** Ms the render may take (the worker is terminated a little later from outside). */
  readonly budgetMs: number;
}

/** A template failure: the output key, a position, and what went wrong (never a value). */
export interface TemplateFailure {
  readonly key: string;
  readonly line?: number;
  readonly column?: number;
  readonly what: string;
  /** The limit the render met, if that is what ended it. */
  readonly limit?: LimitKind;
}

export type RenderOutcome =
  | { readonly ok: true; readonly data: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly failure: TemplateFailure };

/** A render met a limit (`TemplateError` names the limit). */
export class TemplateLimitError extends Error {
  readonly limit: LimitKind;
  constructor(limit: LimitKind) {
    super(limitText(limit));
    this.limit = limit;
  }
}

/** The message of `failure` for status, events and logs. */
export function failureMessage(failure: TemplateFailure): string {
  const at = failure.line === undefined ? '' : `, line ${failure.line} column ${failure.column ?? 0}`;
  return `template of key ${JSON.stringify(failure.key)}${at}: ${failure.what}`;
}
