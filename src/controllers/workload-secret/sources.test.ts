// Reading a source when the service answers a missing folder or environment with an empty 200
// (releases before the SecretPathNotFound check, docs/service-facts.md): an empty list is checked
// against the folder's parent, so a missing folder or environment waits with SourceNotFound while
// an existing empty folder delivers nothing (an empty source), and the check costs one call. The
// current answers (404, 403) are proven against the devserver in
// test/integration/workload-secret.test.ts and workload-secret-access.test.ts.
import { describe, expect, it } from 'vitest';
import type { WorkloadSecretSource } from '../../api/v1alpha1/index.ts';
import {
  ForbiddenError,
  NotFoundError,
  type Folder,
  type SecretList,
  type ServiceClient,
} from '../../client/index.ts';
import type { ManagedObject } from '../../managed/external-client.ts';
import { WaitingError } from '../../runtime/errors.ts';
import { readSource, type SourceContext } from './sources.ts';

interface Calls {
  folders: { projectId: string; environment: string; path: string }[];
  slugs: string[];
}

/** The folder tree of an earlier release: env `dev` with `/app`; anything else lists empty. */
function legacyService(options: { foldersRefused?: boolean } = {}): { client: ServiceClient; calls: Calls } {
  const calls: Calls = { folders: [], slugs: [] };
  const tree: Record<string, string[]> = { '/': ['app'], '/app': [] };
  const fail = (Kind: typeof NotFoundError, status: number, message: string) =>
    new Kind({ operation: 'folders.list', status, message });
  const client = {
    secrets: { list: (): Promise<SecretList> => Promise.resolve({ secrets: [], imports: [] }) },
    projects: {
      getBySlug: (slug: string) => {
        calls.slugs.push(slug);
        return Promise.resolve({ id: 'p-1', name: 'P', slug });
      },
    },
    folders: {
      list: (query: { projectId: string; environment: string; path: string }): Promise<Folder[]> => {
        calls.folders.push(query);
        if (options.foldersRefused) return Promise.reject(fail(ForbiddenError, 403, 'not allowed'));
        if (query.environment !== 'dev')
          return Promise.reject(
            fail(NotFoundError, 404, `Environment with slug '${query.environment}' not found`),
          );
        const names = tree[query.path] ?? [];
        return Promise.resolve(names.map((name) => ({ id: name, name })));
      },
    },
  };
  return { client: client as unknown as ServiceClient, calls };
}

function context(client: ServiceClient): SourceContext {
  const unused = () => {
    throw new Error('not used by sources named by id or slug');
  };
  return {
    client,
    services: { reader: unused, log: { info: unused } } as unknown as SourceContext['services'],
    signal: new AbortController().signal,
  };
}

const source = (extra: Partial<WorkloadSecretSource>): WorkloadSecretSource => ({
  projectId: 'p-1',
  environment: 'dev',
  secretPath: '/',
  recursive: false,
  expandReferences: true,
  ...extra,
});

const obj = {} as ManagedObject<unknown>;

async function refusal(read: Promise<unknown>): Promise<WaitingError> {
  const error = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WaitingError);
  return error as WaitingError;
}

describe('readSource against a release that lists a missing folder as empty', () => {
  it('a missing folder waits with SourceNotFound after one folder list of its parent', async () => {
    const { client, calls } = legacyService();
    const error = await refusal(readSource(obj, source({ secretPath: '/app/missing' }), context(client)));
    expect(error.reason).toBe('SourceNotFound');
    expect(error.message).toContain('path /app/missing');
    expect(calls.folders).toEqual([{ projectId: 'p-1', environment: 'dev', path: '/app' }]);
  });

  it('a missing parent lists no folders: SourceNotFound', async () => {
    const { client } = legacyService();
    const error = await refusal(readSource(obj, source({ secretPath: '/gone/deeper' }), context(client)));
    expect(error.reason).toBe('SourceNotFound');
  });

  it('an unknown environment, even at /, waits with SourceNotFound (the folder list answers 404)', async () => {
    const { client, calls } = legacyService();
    const error = await refusal(readSource(obj, source({ environment: 'staging' }), context(client)));
    expect(error.reason).toBe('SourceNotFound');
    expect(error.message).toContain("Environment with slug 'staging' not found");
    expect(calls.folders).toEqual([{ projectId: 'p-1', environment: 'staging', path: '/' }]);
  });

  it('a project named by slug is looked up for the check', async () => {
    const { client, calls } = legacyService();
    const named = source({ projectId: undefined, projectSlug: 'shop', secretPath: '/missing' });
    expect((await refusal(readSource(obj, named, context(client)))).reason).toBe('SourceNotFound');
    expect(calls.slugs).toEqual(['shop']);
    expect(calls.folders).toEqual([{ projectId: 'p-1', environment: 'dev', path: '/' }]);
  });

  it('an existing empty folder, or the root of a known environment, is an empty source', async () => {
    const { client } = legacyService();
    for (const secretPath of ['/app', '/']) {
      const read = await readSource(obj, source({ secretPath }), context(client));
      expect(read.pairs).toEqual([]);
      expect(read.report.count).toBe(0);
    }
  });

  it('a folder list the identity may not make (403) gives the benefit of the doubt', async () => {
    const { client } = legacyService({ foldersRefused: true });
    const read = await readSource(obj, source({ secretPath: '/app/missing' }), context(client));
    expect(read.pairs).toEqual([]);
  });
});
