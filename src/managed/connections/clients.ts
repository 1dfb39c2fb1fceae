/**
 * Building the authenticated service client of one connection.
 *
 * Each connection gets its own transport registry, so its `requestsPerMinute` budget is one
 * token bucket shared by every resource using the connection (and by the retired client of the
 * previous credential version while it drains), independent of other connections to the same
 * URL. A change of the budget makes a new registry, hence a new bucket.
 */
import type { Logger } from 'pino';
import {
  createServiceClient,
  jwtLogin,
  staticToken,
  TransportRegistry,
  universalAuth,
  type Authenticator,
  type AuthProvider,
  type Clock,
  type RequestInfo,
  type ServiceClient,
} from '../../client/index.ts';
import type { AuthCredentials, Credentials } from './credentials.ts';

/** A connection's client plus access to the token it sends (for the credential check). */
export interface ConnectionClient {
  readonly client: ServiceClient;
  /** The access token the client uses now, logging in first when needed. */
  readonly accessToken: (signal?: AbortSignal) => Promise<string>;
}

/** What a client is built from. */
export interface ClientSpec {
  /** Connection identity, e.g. `Connection/team-a/main`. */
  readonly key: string;
  readonly url: string;
  readonly credentials: Credentials;
  readonly requestsPerMinute?: number;
}

function authenticatorFor(auth: AuthCredentials): Authenticator {
  switch (auth.method) {
    case 'token':
      return staticToken(auth.token);
    case 'universalAuth':
      return universalAuth({ clientId: auth.clientId, clientSecret: auth.clientSecret });
    default:
      return jwtLogin({ method: auth.method, identityId: auth.identityId, jwt: auth.jwt });
  }
}

/** Builds connection clients; keeps one transport registry per connection and budget. */
export class ConnectionClientFactory {
  private readonly registries = new Map<string, TransportRegistry>();
  private readonly log: Logger;
  private readonly onRequest: ((info: RequestInfo) => void) | undefined;
  private readonly clock: Clock | undefined;

  /** `clock` replaces the system clock of every client (tests). */
  constructor(options: { log: Logger; onRequest?: (info: RequestInfo) => void; clock?: Clock }) {
    this.log = options.log;
    this.onRequest = options.onRequest;
    this.clock = options.clock;
  }

  /** A new client for `spec` (the caller caches and closes it). */
  build(spec: ClientSpec): ConnectionClient {
    const inner = authenticatorFor(spec.credentials.auth);
    let provider: AuthProvider | undefined;
    const auth: Authenticator = (ctx) => {
      provider = inner(ctx);
      return provider;
    };
    const rpm = spec.requestsPerMinute;
    const client = createServiceClient({
      baseUrl: spec.url,
      auth,
      ...(spec.credentials.tls ? { tls: spec.credentials.tls } : {}),
      ...(rpm ? { rateLimit: { requestsPerMinute: rpm } } : {}),
      registry: this.registryFor(`${spec.key}|${rpm ?? 'unlimited'}`),
      logger: this.log.child({ connection: spec.key }),
      ...(this.onRequest ? { onRequest: this.onRequest } : {}),
      userAgent: 'coffer-operator',
      clock: this.clock,
    });
    return {
      client,
      accessToken: (signal) => {
        if (!provider) throw new Error('cannot read the access token: the client has no authenticator');
        return provider.getToken(signal);
      },
    };
  }

  /** Forgets the registries of a connection (its clients are closed by the client cache). */
  forget(key: string): void {
    for (const name of this.registries.keys()) if (name.startsWith(`${key}|`)) this.registries.delete(name);
  }

  private registryFor(name: string): TransportRegistry {
    let registry = this.registries.get(name);
    if (!registry) {
      registry = new TransportRegistry();
      this.registries.set(name, registry);
    }
    return registry;
  }
}
