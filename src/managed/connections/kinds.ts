/**
 * The kinds the connection machinery reads: the kinds a `spec.connectionRef` can name (a
 * namespaced connection and a cluster-scoped one that admits namespaces), and the kind a
 * ServiceAccount login's `identityRef` names. Every other layer asks these, never the names.
 */

/** The kinds a `spec.connectionRef` can name; the first is the default of a reference without `kind`. */
export const connectionKinds = ['Connection', 'ClusterConnection'] as const;
export type ConnectionKindName = (typeof connectionKinds)[number];

/** Whether `kind` is one of the {@link connectionKinds}. */
export function isConnectionKind(kind: string): kind is ConnectionKindName {
  return (connectionKinds as readonly string[]).includes(kind);
}

/** The kind a `connectionRef` names: its `kind` when that is a connection kind, else `Connection`. */
export function connectionKindOf(ref: { readonly kind?: string | undefined }): ConnectionKindName {
  return ref.kind !== undefined && isConnectionKind(ref.kind) ? ref.kind : connectionKinds[0];
}

/** The kind a ServiceAccount login's `identityRef` names. */
export const loginIdentityKind = 'Identity';
