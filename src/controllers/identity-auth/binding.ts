/**
 * One uniform interface over the seven auth-method APIs of the client, each bound to its body and
 * drift functions (`method-fields.ts`, `kubernetes-fields.ts`) and to the material read from the
 * cluster for it, so the adapter does not care which method it handles.
 */
import { createHash } from 'node:crypto';
import type { AuthMethod, IdentityAuthSpec } from '../../api/v1alpha1/index.ts';
import {
  type AuthMethodApi,
  type CallOptions,
  isMethodNotAttached,
  type ServiceClient,
} from '../../client/index.ts';
import type { ClusterMaterial } from './cluster-material.ts';
import { kubernetesAttachBody, kubernetesDrift, kubernetesUpdateBody } from './kubernetes-fields.ts';
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
  attach(spec: IdentityAuthSpec, material: ClusterMaterial): A;
  update(spec: IdentityAuthSpec, material: ClusterMaterial): U;
  drift(spec: IdentityAuthSpec, material: ClusterMaterial, config: C): string[];
}

function bind<C extends CommonConfig, A, U>(
  api: AuthMethodApi<C, A, U>,
  mapping: Mapping<C, A, U>,
  material: ClusterMaterial,
): MethodBinding {
  const observed = (config: C): ObservedConfig => ({
    config,
    drift: (spec) => [...fields.commonDrift(spec, config), ...mapping.drift(spec, material, config)],
  });
  return {
    attach: async (identityId, spec, options) =>
      observed(await api.attach(identityId, mapping.attach(spec, material), options)),
    async get(identityId, options) {
      try {
        return observed(await api.get(identityId, options));
      } catch (error) {
        if (isMethodNotAttached(error)) return undefined;
        throw error;
      }
    },
    update: async (identityId, spec, options) =>
      observed(await api.update(identityId, mapping.update(spec, material), options)),
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
/** A spec-only mapping function used where the material is not needed. */
const specOnly =
  <T>(map: (spec: IdentityAuthSpec) => T) =>
  (spec: IdentityAuthSpec): T =>
    map(spec);
const specDrift =
  <C>(drift: (spec: IdentityAuthSpec, config: C) => string[]) =>
  (spec: IdentityAuthSpec, _material: ClusterMaterial, config: C): string[] =>
    drift(spec, config);

/** The binding of `method` on `client`, with the cluster material read for it (default none). */
export function bindingFor(
  client: ServiceClient,
  method: AuthMethod,
  material: ClusterMaterial = {},
): MethodBinding {
  const apis = client.identityAuth;
  switch (method) {
    case 'token':
      return bind(
        apis.token,
        { attach: specOnly(fields.tokenBody), update: specOnly(fields.tokenBody), drift: noDrift },
        material,
      );
    case 'universal':
      return bind(
        apis.universal,
        {
          attach: specOnly(fields.universalBody),
          update: specOnly(fields.universalBody),
          drift: specDrift(fields.universalDrift),
        },
        material,
      );
    case 'jwt':
      return bind(
        apis.jwt,
        { attach: fields.jwtBody, update: fields.jwtBody, drift: fields.jwtDrift },
        material,
      );
    case 'oidc':
      return bind(
        apis.oidc,
        {
          attach: specOnly(fields.oidcBody),
          update: specOnly(fields.oidcBody),
          drift: specDrift(fields.oidcDrift),
        },
        material,
      );
    case 'tlsCert':
      return bind(
        apis.tlsCert,
        {
          attach: specOnly(fields.tlsCertBody),
          update: specOnly(fields.tlsCertBody),
          drift: specDrift(fields.tlsCertDrift),
        },
        material,
      );
    case 'aws':
      return bind(
        apis.aws,
        {
          attach: specOnly(fields.awsBody),
          update: specOnly(fields.awsBody),
          drift: specDrift(fields.awsDrift),
        },
        material,
      );
    case 'kubernetes':
      return bind(
        apis.kubernetes,
        { attach: kubernetesAttachBody, update: kubernetesUpdateBody, drift: kubernetesDrift },
        material,
      );
  }
}

/**
 * sha256 of the JWT key material last sent (`publicKeys` — the cluster's with `clusterIssuer` —
 * and `jwksCaCert`): the service never returns it, so this hash in status is how a changed spec
 * or a rotated cluster key is noticed. Undefined for other methods.
 */
export function jwtKeysHash(spec: IdentityAuthSpec, material: ClusterMaterial = {}): string | undefined {
  if (spec.method !== 'jwt' || !spec.jwt) return undefined;
  const jwt = fields.jwtBlock(spec, material);
  const keys = JSON.stringify([jwt.publicKeys ?? [], jwt.jwksCaCert ?? '']);
  return createHash('sha256').update(keys).digest('hex');
}
