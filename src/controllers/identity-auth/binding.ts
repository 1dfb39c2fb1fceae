/**
 * One uniform interface over the six auth-method APIs of the client, each bound to its body and
 * drift functions (`method-fields.ts`), so the adapter does not care which method it handles.
 */
import { createHash } from 'node:crypto';
import type { AuthMethod, IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import {
  type AuthMethodApi,
  type CallOptions,
  isMethodNotAttached,
  type ServiceClient,
} from '../../client/index.ts';
import * as fields from './method-fields.ts';
import type { CommonConfig } from './method-fields.ts';

/** A configuration as read from the service, with what differs from a spec. */
export interface ObservedConfig {
  readonly config: CommonConfig & { readonly clientId?: string };
  /** Names of the fields that differ from `spec` (empty when up to date). */
  drift(spec: IdentityAuthSpec): string[];
}

/** Attach, read, update and revoke one method of an identity. */
export interface MethodBinding {
  attach(identityId: string, spec: IdentityAuthSpec, options: CallOptions): Promise<ObservedConfig>;
  /** Undefined when the method is not attached. */
  get(identityId: string, options: CallOptions): Promise<ObservedConfig | undefined>;
  update(identityId: string, spec: IdentityAuthSpec, options: CallOptions): Promise<ObservedConfig>;
  /** Succeeds when the method is not attached (any more). */
  revoke(identityId: string, options: CallOptions): Promise<void>;
}

interface Mapping<C, A, U> {
  attach(spec: IdentityAuthSpec): A;
  update(spec: IdentityAuthSpec): U;
  drift(spec: IdentityAuthSpec, config: C): string[];
}

function bind<C extends CommonConfig, A, U>(
  api: AuthMethodApi<C, A, U>,
  mapping: Mapping<C, A, U>,
): MethodBinding {
  const observed = (config: C): ObservedConfig => ({
    config,
    drift: (spec) => [...fields.commonDrift(spec, config), ...mapping.drift(spec, config)],
  });
  return {
    attach: async (identityId, spec, options) =>
      observed(await api.attach(identityId, mapping.attach(spec), options)),
    async get(identityId, options) {
      try {
        return observed(await api.get(identityId, options));
      } catch (error) {
        if (isMethodNotAttached(error)) return undefined;
        throw error;
      }
    },
    update: async (identityId, spec, options) =>
      observed(await api.update(identityId, mapping.update(spec), options)),
    async revoke(identityId, options) {
      try {
        await api.revoke(identityId, options);
      } catch (error) {
        if (!isMethodNotAttached(error)) throw error;
      }
    },
  };
}

const noDrift = (): string[] => [];

/** The binding of `method` on `client`. */
export function bindingFor(client: ServiceClient, method: AuthMethod): MethodBinding {
  const apis = client.identityAuth;
  switch (method) {
    case 'token':
      return bind(apis.token, { attach: fields.tokenBody, update: fields.tokenBody, drift: noDrift });
    case 'universal':
      return bind(apis.universal, {
        attach: fields.universalBody,
        update: fields.universalBody,
        drift: fields.universalDrift,
      });
    case 'jwt':
      return bind(apis.jwt, { attach: fields.jwtBody, update: fields.jwtBody, drift: fields.jwtDrift });
    case 'oidc':
      return bind(apis.oidc, { attach: fields.oidcBody, update: fields.oidcBody, drift: fields.oidcDrift });
    case 'tlsCert':
      return bind(apis.tlsCert, {
        attach: fields.tlsCertBody,
        update: fields.tlsCertBody,
        drift: fields.tlsCertDrift,
      });
    case 'aws':
      return bind(apis.aws, { attach: fields.awsBody, update: fields.awsBody, drift: fields.awsDrift });
  }
}

/**
 * sha256 of the JWT key material last sent (`publicKeys`, `jwksCaCert`): the service never
 * returns it, so this hash in status is how a changed spec is noticed. Undefined for other methods.
 */
export function jwtKeysHash(spec: IdentityAuthSpec): string | undefined {
  if (spec.method !== 'jwt' || !spec.jwt) return undefined;
  const material = JSON.stringify([spec.jwt.publicKeys ?? [], spec.jwt.jwksCaCert ?? '']);
  return createHash('sha256').update(material).digest('hex');
}
