/**
 * Validation of permission rules as requests send them, the catalog of project and org subjects
 * with their actions, and the legacy ("v1") rule forms of the slug-based privilege routes.
 *
 * The catalog is the subset of the service's subjects that a secrets-manager devserver needs
 * (secrets, folders, imports, dynamic secrets, identities, members, roles, environments, tags,
 * PKI, ...). An unknown subject or an action the subject does not have is a validation failure
 * (422 at the route). Condition fields are kept only for subjects that support them (others
 * drop `conditions`, as the service's zod objects strip unknown keys); operator objects are
 * strict, so `{"$regex": ...}` is rejected rather than ignored.
 */
import { z } from 'zod';
import { normalizeRule, type PermissionRule } from './permission-rules.ts';

const CRUD = ['read', 'create', 'edit', 'delete'] as const;

/** Project subjects and the actions each accepts. */
export const PROJECT_SUBJECT_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  secrets: ['read', 'describeSecret', 'readValue', 'create', 'edit', 'delete', 'subscribe'],
  'secret-folders': CRUD,
  'secret-imports': CRUD,
  'secret-approval': CRUD,
  'secret-rollback': ['read', 'create'],
  'dynamic-secrets': [
    'read-root-credential',
    'create-root-credential',
    'edit-root-credential',
    'delete-root-credential',
    'lease',
  ],
  'secret-rotation': [...CRUD, 'read-generated-credentials', 'rotate-secrets'],
  'secret-syncs': [...CRUD, 'sync-secrets', 'import-secrets', 'remove-secrets'],
  'secret-events': [
    'subscribe-on-created',
    'subscribe-on-updated',
    'subscribe-on-deleted',
    'subscribe-on-import-mutations',
  ],
  role: CRUD,
  member: [...CRUD, 'grant-privileges', 'assign-role', 'assign-additional-privileges', 'assume-privileges'],
  groups: [...CRUD, 'grant-privileges', 'assign-role'],
  identity: [
    ...CRUD,
    'grant-privileges',
    'assign-role',
    'assign-additional-privileges',
    'assume-privileges',
    'get-token',
    'create-token',
    'delete-token',
    'revoke-auth',
  ],
  settings: CRUD,
  integrations: CRUD,
  webhooks: CRUD,
  'service-tokens': CRUD,
  environments: CRUD,
  tags: CRUD,
  'audit-logs': ['read'],
  'ip-allowlist': CRUD,
  workspace: ['edit', 'delete'],
  kms: ['edit'],
  'certificate-authorities': [...CRUD, 'issue-ca-certificate', 'sign-intermediate'],
  certificates: [...CRUD, 'read-private-key', 'import'],
  'certificate-templates': [...CRUD, 'issue-cert', 'list-certs'],
  'pki-alerts': CRUD,
  'pki-collections': CRUD,
  cmek: [...CRUD, 'encrypt', 'decrypt', 'sign', 'verify'],
  commits: ['read', 'perform-rollback'],
  'app-connections': [...CRUD, 'connect'],
};

/** Organisation subjects and the actions each accepts. */
export const ORG_SUBJECT_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  workspace: ['read', 'create'],
  identity: [...CRUD, 'grant-privileges', 'revoke-auth', 'create-token', 'get-token', 'delete-token'],
  member: CRUD,
  role: CRUD,
  settings: CRUD,
  groups: [...CRUD, 'grant-privileges', 'add-members', 'remove-members'],
  'project-templates': CRUD,
  'app-connections': [...CRUD, 'connect'],
  billing: CRUD,
  'incident-contact': CRUD,
  sso: CRUD,
  scim: CRUD,
  ldap: CRUD,
  kms: CRUD,
  'secret-scanning': CRUD,
  'audit-logs': ['read'],
};

const PATH_FIELDS = ['environment', 'secretPath'] as const;
const SECRET_FIELDS = [...PATH_FIELDS, 'secretName', 'secretTags'] as const;

/** Condition fields each project subject supports; subjects not listed take no conditions. */
export const PROJECT_CONDITION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  secrets: SECRET_FIELDS,
  'secret-events': SECRET_FIELDS,
  'secret-folders': PATH_FIELDS,
  'secret-imports': PATH_FIELDS,
  'dynamic-secrets': PATH_FIELDS,
  'secret-rotation': PATH_FIELDS,
  'secret-syncs': PATH_FIELDS,
  identity: ['identityId'],
  member: ['userEmail'],
  groups: ['groupSlug'],
};

const OperatorsSchema = z
  .object({
    $eq: z.string(),
    $ne: z.string(),
    $in: z.array(z.string()).min(1),
    $glob: z.string().min(1),
  })
  .partial()
  .strict();
const ConditionValueSchema = z.union([z.string(), OperatorsSchema]);

const RawRuleSchema = z.object({
  subject: z.string(),
  action: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  conditions: z.record(z.string(), ConditionValueSchema).optional(),
  inverted: z.boolean().optional(),
});

function ruleSchema(
  catalog: Readonly<Record<string, readonly string[]>>,
  conditionFields: Readonly<Record<string, readonly string[]>>,
) {
  return RawRuleSchema.superRefine((rule, ctx) => {
    const actions = catalog[rule.subject];
    if (!actions) {
      ctx.addIssue({ code: 'custom', path: ['subject'], message: `Invalid subject "${rule.subject}"` });
      return;
    }
    const list = Array.isArray(rule.action) ? rule.action : [rule.action];
    list.forEach((action, index) => {
      if (!actions.includes(action)) {
        const path = Array.isArray(rule.action) ? ['action', index] : ['action'];
        ctx.addIssue({
          code: 'custom',
          path,
          message: `Invalid action "${action}" for subject "${rule.subject}"`,
        });
      }
    });
  }).transform((rule): PermissionRule => {
    const fields = conditionFields[rule.subject] ?? [];
    const kept = Object.entries(rule.conditions ?? {}).filter(([field]) => fields.includes(field));
    return normalizeRule({ ...rule, conditions: Object.fromEntries(kept) });
  });
}

/** A project rule as sent (`action` string or array); parses to a normalised {@link PermissionRule}. */
export const ProjectPermissionRuleSchema = ruleSchema(PROJECT_SUBJECT_ACTIONS, PROJECT_CONDITION_FIELDS);
/** An org rule as sent; org rules take no conditions. */
export const OrgPermissionRuleSchema = ruleSchema(ORG_SUBJECT_ACTIONS, {});

// ---------------------------------------------------------------------------------------------
// Legacy (v1) rules of `PATCH /api/v1/additional-privilege/identity`

/** A v1 rule: one CRUD action, a subject, and optional `{environment, secretPath: {$glob}}`. */
export const PermissionRuleV1Schema = z.object({
  action: z.enum(CRUD),
  subject: z.string().refine((s) => s in PROJECT_SUBJECT_ACTIONS, 'Invalid subject'),
  conditions: z
    .object({
      environment: z.string().optional(),
      secretPath: z.object({ $glob: z.string().min(1) }).optional(),
    })
    .optional(),
});
export type PermissionRuleV1 = z.infer<typeof PermissionRuleV1Schema>;

/** `privilegePermission`: several actions on secrets under one set of conditions. */
export const PrivilegePermissionSchema = z.object({
  actions: z.array(z.enum(CRUD)).min(1),
  subject: z.literal('secrets'),
  conditions: z.object({
    environment: z.string(),
    secretPath: z.object({ $glob: z.string().min(1) }).optional(),
  }),
});
export type PrivilegePermission = z.infer<typeof PrivilegePermissionSchema>;

/** Expands `privilegePermission` into one v1 rule per action. */
export function privilegePermissionToV1(permission: PrivilegePermission): PermissionRuleV1[] {
  return permission.actions.map((action) => ({
    action,
    subject: permission.subject,
    conditions: permission.conditions,
  }));
}

const DYNAMIC_SECRET_ACTION: Readonly<Record<string, string>> = {
  read: 'read-root-credential',
  create: 'create-root-credential',
  edit: 'edit-root-credential',
  delete: 'delete-root-credential',
};

/**
 * Converts v1 rules to v2 the way the service backfills them: the rules are kept (folder rules
 * are dropped unless `keepFolderRules`), and every `secrets` rule also yields a secret-imports
 * rule, a secrets rule with `readValue` added when it has `read`, a dynamic-secrets rule with the
 * root-credential actions (plus `lease` with edit) and, when the input has no folder rules of
 * its own, a secret-folders rule without `read`.
 */
export function backfillV1Rules(
  rules: readonly PermissionRuleV1[],
  keepFolderRules = false,
): PermissionRule[] {
  const v2 = rules.map((rule) => normalizeRule(rule));
  const secretRules = v2.filter((rule) => rule.subject === 'secrets');
  const hasFolderRules = v2.some((rule) => rule.subject === 'secret-folders');
  const derived = secretRules.flatMap((rule) => {
    const withSubject = (subject: string, action: string[]) => normalizeRule({ ...rule, subject, action });
    const out = [
      withSubject('secret-imports', rule.action),
      withSubject('secrets', rule.action.includes('read') ? [...rule.action, 'readValue'] : rule.action),
    ];
    const dynamicActions = rule.action.map((a) => DYNAMIC_SECRET_ACTION[a] ?? 'read-root-credential');
    out.push(
      withSubject(
        'dynamic-secrets',
        rule.action.includes('edit') ? [...dynamicActions, 'lease'] : dynamicActions,
      ),
    );
    const folderActions = rule.action.filter((a) => a !== 'read');
    if (!hasFolderRules && folderActions.length > 0) out.push(withSubject('secret-folders', folderActions));
    return out;
  });
  const kept = keepFolderRules ? v2 : v2.filter((rule) => rule.subject !== 'secret-folders');
  return [...kept, ...derived];
}

const V1_HIDDEN_SUBJECTS = new Set(['dynamic-secrets', 'secret-imports', 'secret-folders']);

/** The v1 privilege responses omit rules for dynamic-secrets, secret-imports and secret-folders. */
export function v1ResponseRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.filter((rule) => !V1_HIDDEN_SUBJECTS.has(rule.subject));
}
