// Attach (POST), get (GET), update (PATCH) and revoke (DELETE) of the seven identity auth
// methods, all at `/api/v1/auth/<method>/identities/{identityId}`.
import type { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import * as s from './identity-auth-schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** The four operations of one auth method; each returns the method's configuration. */
export interface AuthMethodApi<Config, AttachInput, UpdateInput> {
  /** POST: a second attach is a 400. */
  attach(identityId: string, input: AttachInput, options?: CallOptions): Promise<Config>;
  /** GET: 404 when the method is not attached. */
  get(identityId: string, options?: CallOptions): Promise<Config>;
  /** PATCH: only fields present are changed; 400 when not attached. */
  update(identityId: string, input: UpdateInput, options?: CallOptions): Promise<Config>;
  /** DELETE: also revokes the access tokens issued through the method; 400 when not attached. */
  revoke(identityId: string, options?: CallOptions): Promise<Config>;
}

interface MethodDef<R extends z.ZodType, A extends z.ZodType, U extends z.ZodType> {
  /** Metric name part, e.g. `token`. */
  name: string;
  /** Path segment, e.g. `token-auth`. */
  path: string;
  /** Response envelope key, e.g. `identityTokenAuth`. */
  key: string;
  response: R;
  attach: A;
  update: U;
}

function methodApi<R extends z.ZodType, A extends z.ZodType, U extends z.ZodType>(
  http: HttpClient,
  def: MethodDef<R, A, U>,
): AuthMethodApi<z.output<R>, z.input<A>, z.input<U>> {
  const path = (identityId: string, op: string): string =>
    `/api/v1/auth/${def.path}/identities/${seg(identityId, 'identityId', op)}`;
  const schema = envelope(def.key, def.response);
  const op = (verb: string): string => `identityAuth.${def.name}.${verb}`;
  return {
    attach: async (identityId, input, options) => {
      const body = validateRequest(def.attach, input, op('attach'));
      return http.call(
        { operation: op('attach'), method: 'POST', path: path(identityId, op('attach')), body },
        schema,
        options,
      );
    },
    get: async (identityId, options) =>
      http.call({ operation: op('get'), method: 'GET', path: path(identityId, op('get')) }, schema, options),
    update: async (identityId, input, options) => {
      const body = validateRequest(def.update, input, op('update'));
      return http.call(
        { operation: op('update'), method: 'PATCH', path: path(identityId, op('update')), body },
        schema,
        options,
      );
    },
    revoke: async (identityId, options) =>
      http.call(
        { operation: op('revoke'), method: 'DELETE', path: path(identityId, op('revoke')) },
        schema,
        options,
      ),
  };
}

export type TokenAuth = z.output<typeof s.tokenAuthResponse>;
export type UniversalAuth = z.output<typeof s.universalAuthResponse>;
export type JwtAuth = z.output<typeof s.jwtAuthResponse>;
export type OidcAuth = z.output<typeof s.oidcAuthResponse>;
export type TlsCertAuth = z.output<typeof s.tlsCertAuthResponse>;
export type AwsAuth = z.output<typeof s.awsAuthResponse>;
export type KubernetesAuth = z.output<typeof s.kubernetesAuthResponse>;

export type TokenAuthAttachInput = z.input<typeof s.tokenAuthAttach>;
export type TokenAuthUpdateInput = z.input<typeof s.tokenAuthUpdate>;
export type UniversalAuthAttachInput = z.input<typeof s.universalAuthAttach>;
export type UniversalAuthUpdateInput = z.input<typeof s.universalAuthUpdate>;
export type JwtAuthAttachInput = z.input<typeof s.jwtAuthAttach>;
export type JwtAuthUpdateInput = z.input<typeof s.jwtAuthUpdate>;
export type OidcAuthAttachInput = z.input<typeof s.oidcAuthAttach>;
export type OidcAuthUpdateInput = z.input<typeof s.oidcAuthUpdate>;
export type TlsCertAuthAttachInput = z.input<typeof s.tlsCertAuthAttach>;
export type TlsCertAuthUpdateInput = z.input<typeof s.tlsCertAuthUpdate>;
export type AwsAuthAttachInput = z.input<typeof s.awsAuthAttach>;
export type AwsAuthUpdateInput = z.input<typeof s.awsAuthUpdate>;
export type KubernetesAuthAttachInput = z.input<typeof s.kubernetesAuthAttach>;
export type KubernetesAuthUpdateInput = z.input<typeof s.kubernetesAuthUpdate>;

/** One `AuthMethodApi` per auth method. */
export interface IdentityAuthApi {
  token: AuthMethodApi<TokenAuth, TokenAuthAttachInput, TokenAuthUpdateInput>;
  universal: AuthMethodApi<UniversalAuth, UniversalAuthAttachInput, UniversalAuthUpdateInput>;
  jwt: AuthMethodApi<JwtAuth, JwtAuthAttachInput, JwtAuthUpdateInput>;
  oidc: AuthMethodApi<OidcAuth, OidcAuthAttachInput, OidcAuthUpdateInput>;
  tlsCert: AuthMethodApi<TlsCertAuth, TlsCertAuthAttachInput, TlsCertAuthUpdateInput>;
  aws: AuthMethodApi<AwsAuth, AwsAuthAttachInput, AwsAuthUpdateInput>;
  kubernetes: AuthMethodApi<KubernetesAuth, KubernetesAuthAttachInput, KubernetesAuthUpdateInput>;
}

export function identityAuthApi(http: HttpClient): IdentityAuthApi {
  return {
    token: methodApi(http, {
      name: 'token',
      path: 'token-auth',
      key: 'identityTokenAuth',
      response: s.tokenAuthResponse,
      attach: s.tokenAuthAttach,
      update: s.tokenAuthUpdate,
    }),
    universal: methodApi(http, {
      name: 'universal',
      path: 'universal-auth',
      key: 'identityUniversalAuth',
      response: s.universalAuthResponse,
      attach: s.universalAuthAttach,
      update: s.universalAuthUpdate,
    }),
    jwt: methodApi(http, {
      name: 'jwt',
      path: 'jwt-auth',
      key: 'identityJwtAuth',
      response: s.jwtAuthResponse,
      attach: s.jwtAuthAttach,
      update: s.jwtAuthUpdate,
    }),
    oidc: methodApi(http, {
      name: 'oidc',
      path: 'oidc-auth',
      key: 'identityOidcAuth',
      response: s.oidcAuthResponse,
      attach: s.oidcAuthAttach,
      update: s.oidcAuthUpdate,
    }),
    tlsCert: methodApi(http, {
      name: 'tlsCert',
      path: 'tls-cert-auth',
      key: 'identityTlsCertAuth',
      response: s.tlsCertAuthResponse,
      attach: s.tlsCertAuthAttach,
      update: s.tlsCertAuthUpdate,
    }),
    aws: methodApi(http, {
      name: 'aws',
      path: 'aws-auth',
      key: 'identityAwsAuth',
      response: s.awsAuthResponse,
      attach: s.awsAuthAttach,
      update: s.awsAuthUpdate,
    }),
    kubernetes: methodApi(http, {
      name: 'kubernetes',
      path: 'kubernetes-auth',
      key: 'identityKubernetesAuth',
      response: s.kubernetesAuthResponse,
      attach: s.kubernetesAuthAttach,
      update: s.kubernetesAuthUpdate,
    }),
  };
}
