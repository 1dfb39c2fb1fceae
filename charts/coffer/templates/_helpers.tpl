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
