/**
 * Template failures described without a value, by construction. A message is built from the
 * output key, a position, and either a text known to hold no value — a parse error (the parser
 * only sees the template), a `FilterError` (written to describe the input's shape), a limit — or
 * a fixed phrase with the failing token's text *taken from the template source itself* (spec,
 * not a value). Liquid's runtime messages (a failed lookup, an undefined variable built from data
 * such as `secrets[SOME_KEY]`) and the text of any other error never pass.
 */
import { AssertionError, LiquidError, UndefinedVariableError, type Token } from 'liquidjs';
import { FilterError } from './filters.ts';
import { limitText, type LimitKind } from './limits.ts';
import { TemplateLimitError, type TemplateFailure } from './outcome.ts';

/** The message Liquid's own counters use when a limit is met (`Limiter` in liquidjs). */
const liquidLimits: Readonly<Record<string, LimitKind>> = {
  'memory alloc limit exceeded': 'memory',
  'template render limit exceeded': 'time',
};

/** V8's own messages for a string or array over its maximum length: memory. */
const engineMemoryLimit = /^Invalid (string|array|typed array) length$/;

const MAX_SOURCE_TEXT = 80;

/** The errors of a Liquid failure from the outermost inwards (`originalError` links). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [error];
  let at: unknown = error;
  while (at instanceof LiquidError && at.originalError && chain.length < 16) {
    at = at.originalError;
    chain.push(at);
  }
  return chain;
}

function tokenOf(error: unknown): Token | undefined {
  return error instanceof LiquidError ? (error as LiquidError & { token?: Token }).token : undefined;
}

/** The innermost token of the chain that belongs to `source` (never one built from a value). */
function sourceToken(chain: readonly unknown[], source: string): Token | undefined {
  for (const error of [...chain].reverse()) {
    const token = tokenOf(error);
    if (token && token.input === source) return token;
  }
  return undefined;
}

/** The token's text from the template, on one line and shortened. */
function sourceText(token: Token): string {
  const text = token.getText().replace(/\s+/g, ' ').trim();
  return text.length > MAX_SOURCE_TEXT ? `${text.slice(0, MAX_SOURCE_TEXT)}…` : text;
}

/** The limit the innermost cause is, if it is one. */
function limitOf(cause: unknown): LimitKind | undefined {
  if (cause instanceof TemplateLimitError) return cause.limit;
  if (cause instanceof AssertionError) return liquidLimits[cause.message];
  if (cause instanceof RangeError && engineMemoryLimit.test(cause.message)) return 'memory';
  return undefined;
}

/** What the innermost cause says, when it is known to hold no value (a limit, a filter's message). */
function knownCause(cause: unknown): Pick<TemplateFailure, 'what' | 'limit'> | undefined {
  const limit = limitOf(cause);
  if (limit) return { what: limitText(limit), limit };
  if (cause instanceof FilterError) return { what: cause.message };
  return undefined;
}

/** The key and the position of the innermost source token of `chain`, with that token. */
function located(key: string, source: string, chain: readonly unknown[], fallback?: Token) {
  const token = sourceToken(chain, source) ?? (fallback?.input === source ? fallback : undefined);
  const [line, column] = token ? token.getPosition() : [undefined, undefined];
  return { token, at: { key, ...(line === undefined ? {} : { line, column }) } };
}

/**
 * Describes a failure of rendering (not parsing) `source`, the template of `key`; `fallback` is
 * the top-level template's token, for an error that carries no token of the source.
 */
export function renderFailure(
  key: string,
  source: string,
  error: unknown,
  fallback?: Token,
): TemplateFailure {
  const chain = causes(error);
  const { token, at } = located(key, source, chain, fallback);
  const known = knownCause(chain[chain.length - 1]);
  if (known) return { ...at, ...known };
  if (!token) return { ...at, what: 'cannot render the template' };
  if (chain.some((e) => e instanceof UndefinedVariableError))
    return { ...at, what: `undefined variable: ${sourceText(token)}` };
  return { ...at, what: `cannot render ${sourceText(token)}` };
}

/**
 * Describes a failure of parsing `source`. The parser sees only the template, so its message is
 * kept (without the position Liquid appends: it is reported separately).
 */
export function parseFailure(key: string, source: string, error: unknown): TemplateFailure {
  const chain = causes(error);
  const { at } = located(key, source, chain);
  const known = knownCause(chain[chain.length - 1]);
  if (known) return { ...at, ...known };
  if (!(error instanceof LiquidError)) return { ...at, what: 'cannot parse the template' };
  return { ...at, what: error.message.replace(/, line:\d+, col:\d+$/, '') };
}
