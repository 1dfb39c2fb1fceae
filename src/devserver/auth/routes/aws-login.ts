/**
 * AWS IAM login (`POST /api/v1/auth/aws-auth/login`, body `{identityId, iamHttpRequestMethod,
 * iamRequestBody, iamRequestHeaders}` — body and headers base64, headers a JSON object): the
 * caller's signed `sts:GetCallerIdentity` request is replayed to STS, which checks the signature
 * and answers who signed it; then the account and principal ARN are checked as the service does
 * (identity-aws-auth-service.ts): account among `allowedAccountIds` (exact), principal ARN
 * (`arn:aws:iam::<account>:<user|role>/<name>`, assumed roles as their role) matching an entry of
 * `allowedPrincipalArns` with `*` wildcards. The service derives the STS URL from the region in
 * the Authorization header; the devserver, which has no network, always replays to the configured
 * `stsEndpoint` (a fake STS in tests), after the same region check. No lockout, as the service.
 */
import { z } from 'zod';
import type { DevApp } from '../../app.ts';
import { issueAccessToken, tokenResponse } from '../access-tokens.ts';
import { describeFetchError } from '../outbound.ts';
import { badRequest, notFound, unauthorized } from '../../domain/errors.ts';
import type { RouteDef } from '../../http/types.ts';
import { configString } from './common-fields.ts';

const loginSchema = z.object({
  identityId: z.string().trim().min(1),
  iamHttpRequestMethod: z.string().default('POST'),
  iamRequestBody: z.string(),
  iamRequestHeaders: z.string(),
  subOrganizationName: z.string().optional(),
});

interface CallerIdentity {
  Account: string;
  Arn: string;
}

function decodeHeaders(encoded: string): Record<string, string> {
  try {
    const value = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, string>;
  } catch {
    // Falls through to the 400 below.
  }
  throw badRequest('Invalid AWS request headers');
}

/** The region in `Credential=<key>/<date>/<region>/sts/aws4_request`, when well-formed. */
function regionOf(headers: Record<string, string>): string | undefined {
  const auth = headers.Authorization ?? headers.authorization ?? '';
  const credential = auth.split(' ').find((field) => field.startsWith('Credential='));
  const region = credential?.split('/')[2];
  return region && region.length <= 20 && /^[a-z0-9-]+$/.test(region) ? region : undefined;
}

async function callerIdentity(
  endpoint: string,
  method: string,
  headers: Record<string, string>,
  body: string,
): Promise<CallerIdentity> {
  let res: Response;
  try {
    res = await fetch(endpoint, { method, headers, body, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw badRequest(`Failed to reach the STS endpoint: ${describeFetchError(error)}`);
  }
  const data = (await res.json().catch(() => undefined)) as
    { GetCallerIdentityResponse?: { GetCallerIdentityResult?: Partial<CallerIdentity> } } | undefined;
  const result = data?.GetCallerIdentityResponse?.GetCallerIdentityResult;
  if (!res.ok || typeof result?.Account !== 'string' || typeof result.Arn !== 'string') {
    throw unauthorized(`Request failed with status code ${res.status}`);
  }
  return { Account: result.Account, Arn: result.Arn };
}

/** `arn:aws:iam::<account>:<type>/<name>` as the service normalises it; undefined when unrecognised. */
function principalArn(arn: string): string | undefined {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn') return undefined;
  const [type, ...rest] = (parts[5] ?? '').split('/');
  if (type === 'assumed-role' && rest.length >= 2) return `arn:aws:iam::${parts[4]}:role/${rest[0]}`;
  if ((type === 'user' || type === 'role' || type === 'instance-profile') && rest.length >= 1) {
    return `arn:aws:iam::${parts[4]}:${type}/${rest[rest.length - 1]}`;
  }
  return undefined;
}

function wildcardMatches(pattern: string, value: string): boolean {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`).test(value);
}

function checkCaller(config: Record<string, unknown>, caller: CallerIdentity): void {
  const accounts = configString(config, 'allowedAccountIds');
  if (accounts && !accounts.split(',').some((a) => a.trim() === caller.Account)) {
    throw unauthorized('Access denied: AWS account ID not allowed.');
  }
  const arns = configString(config, 'allowedPrincipalArns');
  if (!arns) return;
  const principal = principalArn(caller.Arn);
  if (!principal) throw badRequest(`Unrecognized ARN: "${caller.Arn}"`);
  if (!arns.split(',').some((entry) => wildcardMatches(entry.trim(), principal))) {
    throw unauthorized(`Access denied: AWS principal ARN not allowed. [principal-arn=${principal}]`);
  }
}

async function login(app: DevApp, body: unknown): Promise<unknown> {
  const input = loginSchema.parse(body ?? {});
  const record = Object.values(app.state.authMethods).find(
    (m) => m.identityId === input.identityId && m.method === 'aws-auth',
  );
  if (!record) throw notFound('AWS auth method not found for identity, did you configure AWS auth?');
  const identity = app.state.identities[record.identityId];
  if (!identity) throw unauthorized('Identity not found');
  const headers = decodeHeaders(input.iamRequestHeaders);
  if (!regionOf(headers)) throw badRequest('Invalid AWS region');
  const requestBody = Buffer.from(input.iamRequestBody, 'base64').toString('utf8');
  const endpoint = configString(record.config, 'stsEndpoint');
  const caller = await callerIdentity(endpoint, input.iamHttpRequestMethod, headers, requestBody);
  checkCaller(record.config, caller);
  identity.lastLoginAuthMethod = 'aws-auth';
  identity.lastLoginTime = app.iso();
  const { record: token, jwt } = issueAccessToken(app, record);
  return tokenResponse(token, jwt);
}

/** The AWS-auth login route. */
export function awsLoginRoutes(app: DevApp): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/auth/aws-auth/login',
      bucket: 'write',
      auth: false,
      write: false,
      handler: (ctx) => login(app, ctx.body),
    },
  ];
}
