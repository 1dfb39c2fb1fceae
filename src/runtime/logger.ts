/**
 * Structured JSON logging (pino) with secret redaction applied in the logger itself, so no call
 * site can leak a credential by logging an object that happens to contain one.
 *
 * Contract: any value under a key in `redactedKeys`, at the top level or nested up to
 * `redactionDepth` objects/arrays deep, is written as `[REDACTED]`. Redaction covers structured
 * fields only; never interpolate secrets into the message string.
 */
import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Keys whose values are never logged, wherever they appear. */
export const redactedKeys: readonly string[] = [
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'clientSecret',
  'password',
  'secretValue',
  'privateKey',
  'apiKey',
  'jwt',
  'authorization',
  'Authorization',
  'cookie',
  'set-cookie',
  // Kubernetes Secret payloads; ConfigMap data is caught too, which is the safe direction.
  'data',
  'stringData',
];

/** How many levels of nesting below the log object are covered by the wildcard paths. */
export const redactionDepth = 5;

export const redactionCensor = '[REDACTED]';

const censoredKeys = new Set(redactedKeys);

/** A copy of `obj` (same prototype, so an error stays an error) with own properties as they are. */
function shallowCopy(obj: object): Record<string | number, unknown> {
  if (Array.isArray(obj)) return [...(obj as unknown[])] as unknown as Record<number, unknown>;
  if (Object.getPrototypeOf(obj) === Object.prototype) return { ...(obj as Record<string, unknown>) };
  return Object.create(Object.getPrototypeOf(obj) as object, Object.getOwnPropertyDescriptors(obj)) as Record<
    string,
    unknown
  >;
}

/**
 * `value` with the value of every key in `redactedKeys` replaced by `redactionCensor`, at the
 * top level (`level` 0) and in nested objects and arrays down to `redactionDepth`; objects on
 * the way to a censored value are copied, nothing is mutated, and a value without any such key
 * is returned as it is (no allocation). Own enumerable properties are looked at, as pino's
 * redaction did.
 */
export function redacted<T>(value: T, level = 0): T {
  if (value === null || typeof value !== 'object' || level > redactionDepth) return value;
  let copy: Record<string | number, unknown> | undefined;
  const source = value as Record<string | number, unknown>;
  for (const key of Object.keys(source)) {
    const inner = source[key];
    const replaced = censoredKeys.has(key) ? redactionCensor : redacted(inner, level + 1);
    if (replaced === inner) continue;
    copy ??= shallowCopy(source);
    copy[key] = replaced;
  }
  return (copy ?? value) as T;
}

export interface LoggerOptions {
  /** pino level name, or `silent`. */
  readonly level: Level | 'silent';
  /** Logged as `name` on every line. */
  readonly name?: string;
  /** Where lines go; stdout by default. Tests pass a stream to capture output. */
  readonly destination?: DestinationStream;
}

type ChildFunction = (this: Logger, bindings: Record<string, unknown>, options?: object) => Logger;

/** Creates the root JSON logger. Timestamps are ISO-8601; levels are written as labels. */
export function createLogger(options: LoggerOptions): Logger {
  const logger = pino(
    {
      level: options.level,
      name: options.name,
      // Our own walk instead of pino's `redact` paths: those (every key at every depth, with
      // wildcards) allocate on every child logger and every line, a large share of what the
      // operator allocates while converging (V8's sampling heap profiler, `npm run bench`).
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redacted(bindings),
        log: (obj) => redacted(obj),
      },
    },
    // Synchronous writes: an operator logs little, and nothing is lost when the process exits.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  // pino applies `formatters.bindings` to the root's bindings only; a child's bindings are
  // redacted here (children inherit this `child` through their prototype, the root logger).
  const pinoChild = (Object.getPrototypeOf(logger) as { child: ChildFunction }).child;
  const redactingChild: ChildFunction = function (bindings, childOptions) {
    return pinoChild.call(this, redacted(bindings), childOptions);
  };
  Object.defineProperty(logger, 'child', { value: redactingChild, writable: true, configurable: true });
  return logger;
}

/** The fields bound to every line logged during one reconcile. */
export interface ReconcileLogFields {
  readonly controller: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Defaults to a fresh random id, so the lines of one reconcile can be grouped. */
  readonly reconcileId?: string;
}

const levelMethods = new Set<string>(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = (): void => undefined;

/**
 * A child logger for one reconcile of one object, made when the reconcile first logs a line at
 * an enabled level. Most reconciles log nothing at the default level, and making a pino child
 * runs its bindings through the redaction (CPU and garbage for every reconcile, `npm run bench`).
 * Lines of one reconcile share one reconcile id.
 */
export function reconcileLogger(parent: Logger, fields: ReconcileLogFields): Logger {
  let child: Logger | undefined;
  const real = (): Logger =>
    (child ??= parent.child({ ...fields, reconcileId: fields.reconcileId ?? randomUUID() }));
  return new Proxy(parent, {
    get(_target, property) {
      if (child === undefined && typeof property === 'string' && levelMethods.has(property)) {
        if (!parent.isLevelEnabled(property)) return noop;
      }
      const logger = real();
      const value: unknown = Reflect.get(logger, property, logger);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(logger) : value;
    },
    // e.g. `log.level = 'debug'`: the reconcile's own logger, never the parent.
    set: (_target, property, value) => Reflect.set(real(), property, value),
  });
}
