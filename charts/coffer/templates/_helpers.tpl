{{/*
Chart name, truncated to 63 characters (the DNS label limit of Kubernetes names).
*/}}
{{- define "coffer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the release's objects: the release name, prefixed with the chart name unless
the release name already contains it.
*/}}
{{- define "coffer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
chart label value: name-version.
*/}}
{{- define "coffer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels that select the operator pods. They never change across upgrades (Deployment
selectors are immutable).
*/}}
{{- define "coffer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "coffer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/*
Standard labels on every object of the release.
*/}}
{{- define "coffer.labels" -}}
helm.sh/chart: {{ include "coffer.chart" . }}
{{ include "coffer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: coffer
{{- end }}

{{/*
Name of the ServiceAccount the operator runs as.
*/}}
{{- define "coffer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "coffer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image reference: repository:tag (tag defaults to the chart's appVersion), or
repository@digest when a digest is pinned.
*/}}
{{- define "coffer.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Leader election is on when asked for, and always with more than one replica: two
operators reconciling the same objects would fight over every write.
*/}}
{{- define "coffer.leaderElect" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicaCount) 1) }}true{{- end }}
{{- end }}

{{/*
Namespace of the leader-election Lease.
*/}}
{{- define "coffer.leaderElectionNamespace" -}}
{{- default .Release.Namespace .Values.leaderElection.namespace }}
{{- end }}

{{/*
The coffer.dev kinds that live in a namespace (plural resource names).
*/}}
{{- define "coffer.namespacedResources" -}}
- additionalprivileges
- bootstraps
- certificateauthorities
- connections
- identities
- identityauths
- integrations
- projectroles
- projects
- secretbatches
{{- end }}

{{/*
The cluster-scoped coffer.dev kinds; in namespaced mode only these are granted cluster-wide.
*/}}
{{- define "coffer.clusterScopedResources" -}}
- clusterconnections
- projecttemplates
{{- end }}

{{/*
The rules the operator needs on coffer.dev resources, for a list of plural resource names
(argument: the list as YAML text). Comments are rendered so `helm template` explains them.
*/}}
{{- define "coffer.cofferRules" -}}
{{- $resources := . | fromYamlArray -}}
# Read and watch every resource to reconcile it; patch to add and remove the coffer.dev/finalizer
# (coffer.dev/dependents on connections, held while resources using them may need them) and to
# record the coffer.dev/external-id and create-pending annotations (always JSON/merge patches,
# never a full update). No delete: these objects belong to their users.
- apiGroups: ["coffer.dev"]
  resources:
  {{- range $resources }}
    - {{ . }}
  {{- end }}
  verbs: ["get", "list", "watch", "patch"]
# Status subresource: the Ready/Synced conditions, observedGeneration and outputs (merge patches
# only, written when something changed).
- apiGroups: ["coffer.dev"]
  resources:
  {{- range $resources }}
    - {{ . }}/status
  {{- end }}
  verbs: ["patch"]
# Finalizers subresource: published Secrets carry an owner reference with blockOwnerDeletion,
# which the OwnerReferencesPermissionEnforcement admission plugin (on in OpenShift and some
# hardened clusters) only allows to those who may update the owner's finalizers.
- apiGroups: ["coffer.dev"]
  resources:
  {{- range $resources }}
    - {{ . }}/finalizers
  {{- end }}
  verbs: ["update"]
{{- end }}

{{/*
Rules that only the namespaced kinds need, on top of coffer.cofferRules.
*/}}
{{- define "coffer.namespacedExtraRules" -}}
# Connections: a Bootstrap with createConnection: true creates the Connection it produces (owned
# by the Bootstrap, so garbage collection removes it) and replaces its spec when the Bootstrap's
# changes. Create and update on this one kind.
- apiGroups: ["coffer.dev"]
  resources: ["connections"]
  verbs: ["create", "update"]
{{- end }}

{{/*
Rules on core resources inside the namespaces the operator watches.
*/}}
{{- define "coffer.coreRules" -}}
# Secrets: read Connection credentials and SecretBatch sources; create, update (replace) and
# repair the Secrets the operator publishes (credentials, certificates, tokens); delete a
# published Secret the spec no longer asks for. Watched so an edited or deleted Secret is
# repaired at once. No patch: published Secrets are always replaced whole.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
# ConfigMaps: read CA bundles referenced by Connections (custom service TLS roots).
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch"]
# Events: record what happened on each resource (created, updated, failures).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/*
Cluster-scoped read rules.
*/}}
{{- define "coffer.namespaceRules" -}}
# Namespaces: ClusterConnections select the namespaces allowed to use them by label, so the
# operator reads namespace labels from a watched cache (list + watch, no single gets). Read-only.
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["list", "watch"]
{{- end }}

{{/*
Leader-election rules, granted by a Role in the Lease's namespace.
*/}}
{{- define "coffer.leaderElectionRules" -}}
# Leases: acquire (create), read and renew (update) the leader Lease. No delete: a stepping-down
# leader releases the Lease by updating it. (No Events here: the operator records none about
# leadership; test/integration/rbac.test.ts fails for a rule that no scenario needs.)
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- end }}

{{/*
Events about cluster-scoped objects (ClusterConnection, ProjectTemplate) are recorded in the
"default" namespace, as Kubernetes does for objects without a namespace.
*/}}
{{- define "coffer.clusterEventRules" -}}
# Events: record what happened on ClusterConnections and ProjectTemplates.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}
