// Secret folders: create, list, delete on `/api/v2/folders` (project by `projectId`) and on
// the older `/api/v1/folders` (project by `workspaceId`) that official clients still use.
import { z } from 'zod';
import type { CallOptions, HttpClient } from './http.ts';
import { optString, timestamp } from './schemas.ts';
import { envelope, seg, validateRequest } from './validate.ts';

/** A folder. */
export const folderSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  path: z.string().optional(),
  parentId: z.string().nullish(),
  envId: z.string().optional(),
  description: optString,
  version: z.number().int().nullish(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});
export type Folder = z.output<typeof folderSchema>;

const folderName = z
  .string()
  .trim()
  .min(1)
  .regex(/^[a-zA-Z0-9_-]+$/, 'Folder name can only contain letters, numbers, dashes and underscores');

/** Builds the three request schemas for one project-id field name. */
function requests<K extends 'projectId' | 'workspaceId'>(key: K) {
  const project = { [key]: z.string().min(1) } as Record<K, z.ZodString>;
  const scope = { ...project, environment: z.string().min(1), path: z.string().min(1).optional() };
  return {
    create: z.object({ ...scope, name: folderName, description: z.string().optional() }),
    list: z.object({ ...scope, recursive: z.boolean().optional() }),
    delete: z.object({ ...scope, forceDelete: z.boolean().optional() }),
  };
}
const v2 = requests('projectId');
const v1 = requests('workspaceId');
export type CreateFolderInput = z.input<typeof v2.create>;
export type ListFoldersQuery = z.input<typeof v2.list>;
export type DeleteFolderInput = z.input<typeof v2.delete>;
export type CreateFolderV1Input = z.input<typeof v1.create>;
export type ListFoldersV1Query = z.input<typeof v1.list>;
export type DeleteFolderV1Input = z.input<typeof v1.delete>;

/** Folder operations of one API version. */
export interface FolderOps<C, L, D> {
  create(input: C, options?: CallOptions): Promise<Folder>;
  list(query: L, options?: CallOptions): Promise<Folder[]>;
  /** Deletes the folder named or identified by `folderIdOrName` inside `path`. */
  delete(folderIdOrName: string, input: D, options?: CallOptions): Promise<Folder>;
}

/** v2 folder operations, plus `v1`. */
export interface FoldersApi extends FolderOps<CreateFolderInput, ListFoldersQuery, DeleteFolderInput> {
  v1: FolderOps<CreateFolderV1Input, ListFoldersV1Query, DeleteFolderV1Input>;
}

function folderOps<C extends z.ZodType, L extends z.ZodType, D extends z.ZodType>(
  http: HttpClient,
  version: 'v1' | 'v2',
  schemas: { create: C; list: L; delete: D },
): FolderOps<z.input<C>, z.input<L>, z.input<D>> {
  const base = `/api/${version}/folders`;
  const op = (verb: string): string => (version === 'v2' ? `folders.${verb}` : `folders.v1.${verb}`);
  const one = envelope('folder', folderSchema);
  return {
    create: async (input, options) => {
      const body = validateRequest(schemas.create, input, op('create')) as object;
      return http.call({ operation: op('create'), method: 'POST', path: base, body }, one, options);
    },
    list: async (query, options) => {
      const q = validateRequest(schemas.list, query, op('list')) as Record<
        string,
        string | boolean | undefined
      >;
      const spec = { operation: op('list'), method: 'GET', path: base, query: q } as const;
      return http.call(spec, envelope('folders', z.array(folderSchema)), options);
    },
    delete: async (folderIdOrName, input, options) => {
      const body = validateRequest(schemas.delete, input, op('delete')) as object;
      const path = `${base}/${seg(folderIdOrName, 'folderIdOrName', op('delete'))}`;
      return http.call({ operation: op('delete'), method: 'DELETE', path, body }, one, options);
    },
  };
}

export function foldersApi(http: HttpClient): FoldersApi {
  return { ...folderOps(http, 'v2', v2), v1: folderOps(http, 'v1', v1) };
}
