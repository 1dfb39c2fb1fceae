// AWS IAM login over real HTTP: the devserver replays the caller's signed GetCallerIdentity
// request to the configured STS endpoint (here a local fake STS that answers by access key id, as
// STS answers by signature) and checks the account and principal ARN it answers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from './test-support.ts';

const CALLERS: Record<string, { Account: string; Arn: string; UserId: string }> = {
  AKIDAPP: {
    Account: '123456789012',
    Arn: 'arn:aws:sts::123456789012:assumed-role/app-role/i-0abc',
    UserId: 'A:i',
  },
  AKIDOTHERACCOUNT: { Account: '999999999999', Arn: 'arn:aws:iam::999999999999:user/app-role', UserId: 'B' },
  AKIDOTHERROLE: { Account: '123456789012', Arn: 'arn:aws:iam::123456789012:role/batch', UserId: 'C' },
};

let t: TestServer;
let sts: Server;
let stsUrl = '';
let identityId = '';
/** Bodies the fake STS received, to check the request was replayed as signed. */
const received: string[] = [];

function signedRequest(accessKeyId: string, region = 'us-east-1'): Record<string, string> {
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const headers = {
    'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
    'X-Amz-Date': '20300101T000000Z',
    Authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20300101/${region}/sts/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=00ff`,
  };
  return {
    iamHttpRequestMethod: 'POST',
    iamRequestBody: Buffer.from(body).toString('base64'),
    iamRequestHeaders: Buffer.from(JSON.stringify(headers)).toString('base64'),
  };
}

function login(id: string, request: Record<string, string>): Promise<CallResult> {
  return t.call('POST', '/api/v1/auth/aws-auth/login', { token: null, body: { identityId: id, ...request } });
}

function messageOf(res: CallResult): unknown {
  return (res.body as { message?: unknown }).message;
}

beforeAll(async () => {
  sts = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      const key = /Credential=([A-Z]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const caller = CALLERS[key];
      res.setHeader('content-type', 'application/json');
      if (!caller || !body.includes('Action=GetCallerIdentity')) {
        res.statusCode = 403;
        res.end(JSON.stringify({ Error: { Code: 'SignatureDoesNotMatch' } }));
        return;
      }
      res.end(JSON.stringify({ GetCallerIdentityResponse: { GetCallerIdentityResult: caller } }));
    });
  });
  await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
  stsUrl = `http://127.0.0.1:${(sts.address() as AddressInfo).port}/`;
  t = await startTestServer();
  const { orgId } = await t.bootstrap();
  const created = await t.call('POST', '/api/v1/identities', {
    body: { name: 'aws-workload', organizationId: orgId, role: 'no-access' },
  });
  identityId = (created.body as { identity: { id: string } }).identity.id;
  const attached = await t.call('POST', `/api/v1/auth/aws-auth/identities/${identityId}`, {
    body: {
      stsEndpoint: stsUrl,
      allowedAccountIds: '123456789012',
      allowedPrincipalArns: 'arn:aws:iam::123456789012:role/app-*',
    },
  });
  expect(attached.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
  sts?.close();
});

describe('AWS auth login', () => {
  it('logs in an assumed role whose account and role are allowed', async () => {
    const res = await login(identityId, signedRequest('AKIDAPP'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tokenType: 'Bearer' });
    expect(received.at(-1)).toBe('Action=GetCallerIdentity&Version=2011-06-15');
  });

  it('refuses another account and a principal that does not match', async () => {
    const account = await login(identityId, signedRequest('AKIDOTHERACCOUNT'));
    expect([account.status, messageOf(account)]).toEqual([401, 'Access denied: AWS account ID not allowed.']);
    const role = await login(identityId, signedRequest('AKIDOTHERROLE'));
    expect([role.status, messageOf(role)]).toEqual([
      401,
      'Access denied: AWS principal ARN not allowed. [principal-arn=arn:aws:iam::123456789012:role/batch]',
    ]);
  });

  it('refuses what STS rejects, a bad region, and an identity without the method', async () => {
    const rejected = await login(identityId, signedRequest('AKIDFORGED'));
    expect(rejected.status).toBe(401);
    const region = await login(identityId, signedRequest('AKIDAPP', 'US_EAST'));
    expect([region.status, messageOf(region)]).toEqual([400, 'Invalid AWS region']);
    const missing = await login('00000000-0000-4000-8000-000000000000', signedRequest('AKIDAPP'));
    expect([missing.status, messageOf(missing)]).toEqual([
      404,
      'AWS auth method not found for identity, did you configure AWS auth?',
    ]);
  });
});
