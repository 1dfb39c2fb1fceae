// DynamicSecret: a dynamic-secret definition in the dev environment's root folder of a project,
// found by name. Its SQL provider points at a private PostgreSQL (the service checks the
// connection on every create and update), started once for the kind; the admin password is in a
// Secret of the kind's namespace.
import { startPostgres, type PostgresServer } from '../../postgres.ts';
import type { ConformanceContext, KindConformance } from '../types.ts';

let db: PostgresServer | undefined;

function server(): PostgresServer {
  if (!db) throw new Error('the PostgreSQL of the DynamicSecret conformance data is not started');
  return db;
}

const scope = (ctx: ConformanceContext) => ({
  projectSlug: ctx.unique('dynamic'),
  environmentSlug: 'dev',
  path: '/',
});

const statements = {
  creationStatement: `CREATE ROLE "{{username}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
  revocationStatement: `DROP ROLE IF EXISTS "{{username}}";`,
};

export const conformance: KindConformance = {
  kind: 'DynamicSecret',
  shared: (ctx) => [
    {
      kind: 'Project',
      name: 'shop',
      spec: {
        name: 'Shop',
        slug: ctx.unique('dynamic'),
        environments: [{ name: 'Development', slug: 'dev' }],
        deletionPolicy: 'Delete',
      },
    },
  ],
  prepare: async (ctx) => {
    db = await startPostgres();
    await ctx.h.createSecret('db-admin', { password: db.password }, { namespace: ctx.namespace });
  },
  spec: (_ctx, name) => ({
    projectRef: { name: 'shop' },
    environment: 'dev',
    name,
    defaultTTL: '1h',
    provider: {
      sqlDatabase: {
        client: 'postgres',
        host: server().host,
        port: server().port,
        database: server().database,
        username: server().user,
        passwordSecretRef: { name: 'db-admin', key: 'password' },
        ...statements,
      },
    },
  }),
  read: (ctx, name) => ctx.h.service.dynamicSecrets.get(name, scope(ctx)),
  createExternal: async (ctx, name) => {
    const { host, port, database, user, password } = server();
    const inputs = { client: 'postgres', host, port, database, username: user, password, ...statements };
    const created = await ctx.h.service.dynamicSecrets.create({
      ...scope(ctx),
      name,
      provider: { type: 'sql-database', inputs },
      defaultTTL: '2h',
    });
    return created.id;
  },
  inLine: (ds) => ds['defaultTTL'] === '1h',
  drift: async (ctx, name) => {
    await ctx.h.service.dynamicSecrets.update(name, { ...scope(ctx), data: { defaultTTL: '3h' } });
  },
  update: { spec: { defaultTTL: '4h' }, applied: (ds) => ds['defaultTTL'] === '4h' },
};
