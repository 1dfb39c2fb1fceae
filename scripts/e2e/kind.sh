#!/usr/bin/env bash
# End-to-end test of the shipped artefacts on a throw-away kind cluster:
#
#   npm run test:e2e:kind
#
# Runs where Docker (with a running daemon), kind and kubectl >= 1.31 are installed; helm is taken from
# PATH or from the cache of `npm run control-plane:install`. It cannot run on machines without a
# container engine (such as the CI sandbox of this repository), and it says so and exits 1.
#
# Steps: create a kind cluster; build the operator image from the Dockerfile and load it into
# the cluster; `helm install` charts/coffer with its CRDs; run a devserver (the same image,
# `coffer devserver`) as the service the samples talk to; apply config/samples; wait until every
# coffer.dev object is Ready. The cluster is deleted on exit, also on failure or Ctrl-C
# (COFFER_E2E_KEEP=1 keeps it for debugging). On failure the operator's logs, the objects'
# conditions and recent events are printed.
#
# Environment (all optional):
#   COFFER_E2E_CLUSTER           kind cluster name (default coffer-e2e)
#   COFFER_E2E_IMAGE             image to build and load (default coffer:e2e)
#   COFFER_E2E_DEVSERVER_NS      namespace of the devserver (default coffer-devserver)
#   COFFER_E2E_TIMEOUT           wait timeout per step (default 300s)
#   COFFER_E2E_KIND_NODE_IMAGE   kindest/node image, to pin the Kubernetes version
#   COFFER_E2E_DEVSERVER_ARGS    flags of `coffer devserver` (default: listen on 0.0.0.0:8080)
#   COFFER_E2E_KEEP=1            do not delete the cluster at the end
set -euo pipefail

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  # The usage line, then the comment block above.
  echo "usage: npm run test:e2e:kind"
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "${BASH_SOURCE[0]}"
  exit 0
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cluster=${COFFER_E2E_CLUSTER:-coffer-e2e}
image=${COFFER_E2E_IMAGE:-coffer:e2e}
devserver_ns=${COFFER_E2E_DEVSERVER_NS:-coffer-devserver}
# The samples live in "default": the sample ClusterConnection allows that namespace and reads its
# token Secret there.
namespace=default
timeout=${COFFER_E2E_TIMEOUT:-300s}
devserver_args=${COFFER_E2E_DEVSERVER_ARGS:---host=0.0.0.0 --port=8080}
release=coffer
release_ns=coffer-system
workdir=$(mktemp -d)
export KUBECONFIG="$workdir/kubeconfig"

log() { printf '\n[e2e] %s\n' "$*" >&2; }
die() {
  printf '[e2e] error: %s\n' "$*" >&2
  exit 1
}

# --- prerequisites: fail clearly, never skip ---------------------------------------------------
command -v docker >/dev/null 2>&1 || die "docker is not installed; this test needs Docker and kind (it cannot run without a container engine)"
docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable (docker info failed); start Docker and retry"
command -v kind >/dev/null 2>&1 || die "kind is not installed; see https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
command -v kubectl >/dev/null 2>&1 || die "kubectl is not installed"
helm=$(command -v helm || true)
if [ -z "$helm" ]; then
  # shellcheck source=../control-plane/versions.env
  source "$repo/scripts/control-plane/versions.env"
  helm="${COFFER_CACHE_DIR:-$HOME/.cache/coffer}/bin/helm-$HELM_VERSION/helm"
  [ -x "$helm" ] || die "helm is not installed and not cached; run npm run control-plane:install or install helm"
fi
[ -d "$repo/config/samples" ] || die "config/samples is missing"
[ -n "$(ls -A "$repo/charts/coffer/templates/crds" 2>/dev/null)" ] || die "the chart has no CRD templates; run npm run generate"

# --- cleanup and diagnostics --------------------------------------------------------------------
created=""
diagnose() {
  log "diagnostics"
  kubectl -n "$release_ns" get pods -o wide || true
  kubectl -n "$release_ns" logs "deployment/$release" --tail=200 || true
  local kinds
  kinds=$(kubectl api-resources --api-group=coffer.dev -o name 2>/dev/null | paste -sd, -)
  [ -z "$kinds" ] || kubectl get "$kinds" -A -o wide || true
  [ -z "$kinds" ] || kubectl get "$kinds" -A -o jsonpath='{range .items[*]}{.kind}/{.metadata.name}: {range .status.conditions[*]}{.type}={.status} ({.reason}: {.message}) {end}{"\n"}{end}' || true
  kubectl get events -A --sort-by=.lastTimestamp | tail -n 40 || true
}
finish() {
  local status=$?
  [ "$status" -eq 0 ] || diagnose
  if [ -n "$created" ] && [ "${COFFER_E2E_KEEP:-}" != 1 ]; then
    log "deleting kind cluster $cluster"
    kind delete cluster --name "$cluster" || true
  elif [ -n "$created" ]; then
    log "keeping kind cluster $cluster (KUBECONFIG=$KUBECONFIG)"
  fi
  [ "${COFFER_E2E_KEEP:-}" = 1 ] || rm -rf "$workdir"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

# --- cluster and image --------------------------------------------------------------------------
kind get clusters 2>/dev/null | grep -qx "$cluster" && die "a kind cluster named $cluster already exists; delete it or set COFFER_E2E_CLUSTER"
log "creating kind cluster $cluster"
created=1
kind create cluster --name "$cluster" --kubeconfig "$KUBECONFIG" --wait 120s \
  ${COFFER_E2E_KIND_NODE_IMAGE:+--image "$COFFER_E2E_KIND_NODE_IMAGE"}

log "building $image from the Dockerfile"
docker build --tag "$image" --build-arg "REVISION=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)" "$repo"
log "loading $image into the cluster"
kind load docker-image "$image" --name "$cluster"

# --- operator -----------------------------------------------------------------------------------
repository=${image%:*}
tag=${image##*:}
log "installing the chart (release $release in $release_ns)"
"$helm" install "$release" "$repo/charts/coffer" \
  --namespace "$release_ns" --create-namespace \
  --set "image.repository=$repository" --set "image.tag=$tag" --set image.pullPolicy=Never \
  --set operator.logLevel=debug \
  --wait --timeout "$timeout"
kubectl wait --for=condition=Established crd --all --timeout "$timeout"
kubectl -n "$release_ns" rollout status "deployment/$release" --timeout "$timeout"

# --- the service: a devserver from the same image -----------------------------------------------
log "starting the devserver in $devserver_ns"
kubectl create namespace "$devserver_ns"
devserver_args_yaml=$(printf '"%s", ' devserver $devserver_args)
kubectl -n "$devserver_ns" apply -f - <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coffer-devserver
spec:
  replicas: 1
  selector:
    matchLabels: { app: coffer-devserver }
  template:
    metadata:
      labels: { app: coffer-devserver }
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: devserver
          image: $image
          imagePullPolicy: Never
          args: [${devserver_args_yaml%, }]
          ports: [{ name: http, containerPort: 8080 }]
          readinessProbe:
            tcpSocket: { port: http }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: [ALL] }
---
apiVersion: v1
kind: Service
metadata:
  name: coffer-devserver
spec:
  selector: { app: coffer-devserver }
  ports: [{ name: http, port: 8080, targetPort: http }]
YAML
kubectl -n "$devserver_ns" rollout status deployment/coffer-devserver --timeout "$timeout"
service_url="http://coffer-devserver.$devserver_ns.svc.cluster.local:8080"

# --- samples ------------------------------------------------------------------------------------
# The samples name the service http://127.0.0.1:8080 (the sandbox's devserver); in the cluster the
# operator reaches the devserver through its Service instead.
samples="$workdir/samples"
mkdir -p "$samples"
for file in "$repo"/config/samples/*.yaml; do
  sed "s#http://127.0.0.1:8080#$service_url#g" "$file" >"$samples/$(basename "$file")"
done

# Like the sandbox: bootstrap the fresh devserver first; the Bootstrap creates the Connection
# "coffer" (and its token Secret) that every other sample uses.
log "bootstrapping the devserver ($service_url)"
applied=$(kubectl -n "$namespace" apply -f "$samples/bootstrap.yaml" -o name)
kubectl -n "$namespace" wait --for=condition=Ready bootstrap.coffer.dev/coffer --timeout "$timeout"
kubectl -n "$namespace" wait --for=create connection.coffer.dev/coffer --timeout "$timeout"
kubectl -n "$namespace" wait --for=condition=Ready connection.coffer.dev/coffer --timeout "$timeout"

# Then the samples' kustomization (it leaves out integration.yaml, which needs real AWS
# credentials, and the two alternative ways to get the Connection).
log "applying config/samples"
applied+=$'\n'$(kubectl -n "$namespace" apply -k "$samples" -o name)
printf '%s\n' "$applied"
objects=$(printf '%s\n' "$applied" | grep '\.coffer\.dev/' | sort -u || true)
[ "$(printf '%s\n' "$objects" | wc -l)" -gt 5 ] || die "config/samples created too few coffer.dev objects: $objects"

log "waiting for Ready on every coffer.dev object (timeout $timeout)"
# Cluster-scoped objects (ClusterConnection, ProjectTemplate) ignore the namespace flag.
# shellcheck disable=SC2086 # one argument per object name
kubectl -n "$namespace" wait --for=condition=Ready $objects --timeout "$timeout"
kubectl get "$(kubectl api-resources --api-group=coffer.dev -o name | paste -sd, -)" -A -o wide
log "all $(printf '%s\n' "$objects" | wc -l) coffer.dev objects are Ready"
