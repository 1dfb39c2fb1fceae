#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl, etcd and helm from their Go modules
# (through the Go module proxy) into a cache outside the repository, keyed by version:
#   $COFFER_CACHE_DIR/bin/k8s-<v>/{kube-apiserver,kube-controller-manager,kubectl}
#   (COFFER_CACHE_DIR defaults to ~/.cache/coffer)
#   $COFFER_CACHE_DIR/bin/etcd-<v>/etcd
#   $COFFER_CACHE_DIR/bin/helm-<v>/helm
# A binary already in the cache is reused, so a second run takes seconds.
# Envtest conventions are honoured per binary: TEST_ASSET_KUBE_APISERVER, TEST_ASSET_ETCD,
# TEST_ASSET_KUBECTL, TEST_ASSET_KUBE_CONTROLLER_MANAGER, or KUBEBUILDER_ASSETS/<name>; a binary
# provided that way is not built. (Envtest archives carry no kube-controller-manager, so with
# KUBEBUILDER_ASSETS alone it is still built here.)
# A failed build prints the Go error and exits non-zero; there is no fallback.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

cache=${COFFER_CACHE_DIR:-$HOME/.cache/coffer}
k8s_dir="$cache/bin/k8s-$KUBERNETES_VERSION"
etcd_dir="$cache/bin/etcd-$ETCD_VERSION"
helm_dir="$cache/bin/helm-$HELM_VERSION"
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
jobs=${COFFER_BUILD_JOBS:-}

log() { printf '[control-plane] %s\n' "$*" >&2; }

# Throw-away build modules, removed on exit. (A RETURN trap would outlive its function and fire,
# with `set -u`, on every later return.)
workdirs=()
trap 'rm -rf "${workdirs[@]}"' EXIT

need_go() {
  command -v go >/dev/null 2>&1 || {
    log "error: Go is required to build the control plane (or set KUBEBUILDER_ASSETS to envtest binaries)"
    exit 1
  }
}

# Writes a throw-away module that requires k8s.io/kubernetes and replaces each staging
# module (k8s.io/api, k8s.io/apimachinery, ...) with its published v0.NN.P version.
prepare_kubernetes_module() {
  local dir=$1 staging_version="v0${KUBERNETES_VERSION#v1}"
  local kmod
  kmod=$(curl -fsSL "${GOPROXY_URL:-https://proxy.golang.org}/k8s.io/kubernetes/@v/$KUBERNETES_VERSION.mod") || {
    log "error: cannot fetch k8s.io/kubernetes@$KUBERNETES_VERSION go.mod from the module proxy"
    exit 1
  }
  {
    echo "module coffer.local/kube-build"
    echo
    echo "go $(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/').0"
    echo
    echo "replace ("
    # sample-* modules are examples that are not published for every release and are not built here.
    grep -E '=> \./staging/' <<<"$kmod" | awk '{print $1}' | grep -v '/sample-' |
      while read -r m; do echo "	$m => $m $staging_version"; done
    echo ")"
  } >"$dir/go.mod"
}

# The envtest-provided path of a binary (TEST_ASSET_<VAR>, else KUBEBUILDER_ASSETS/<name>), or nothing.
provided() {
  local name=$1 var=$2
  if [[ -n "${!var:-}" ]]; then
    [[ -x "${!var}" ]] || { log "error: $var=${!var} is not an executable file"; exit 1; }
    echo "${!var}"
  elif [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "$KUBEBUILDER_ASSETS/$name" ]]; then
    echo "$KUBEBUILDER_ASSETS/$name"
  fi
}

# Fails early, with the reason, when the proxy does not serve the k8s.io/kubernetes source zip
# (it answers 403 for versions it withholds, and `go get` alone reports that less plainly).
check_kubernetes_served() {
  local proxy url
  proxy=$(go env GOPROXY | cut -d, -f1 | cut -d'|' -f1)
  [[ $proxy == http* ]] || return 0
  url="$proxy/k8s.io/kubernetes/@v/$KUBERNETES_VERSION.zip"
  if ! curl -fsSI -o /dev/null "$url"; then
    log "error: the module proxy does not serve $url"
    log "set KUBERNETES_VERSION in $here/versions.env to a release whose zip it serves (often an earlier patch release)"
    exit 1
  fi
}

# Builds the given k8s.io/kubernetes commands (kube-apiserver, kube-controller-manager, kubectl)
# into $k8s_dir.
build_kubernetes() {
  local cmds=("$@") work minor ldflags cmd
  [[ ${#cmds[@]} -gt 0 ]] || return 0
  need_go
  check_kubernetes_served
  work=$(mktemp -d)
  workdirs+=("$work")
  prepare_kubernetes_module "$work"
  minor=$(cut -d. -f2 <<<"$KUBERNETES_VERSION")
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  log "resolving k8s.io/kubernetes@$KUBERNETES_VERSION modules (first run downloads them)"
  # `go get` names the module, not the cmd packages: the proxy answers 403 (not 404) for the
  # non-existent modules k8s.io/kubernetes/cmd/..., which `go get <pkg>@v` would probe first.
  (cd "$work" && go get "k8s.io/kubernetes@$KUBERNETES_VERSION")
  # The tools file imports each command's app package so that `go mod tidy` records its dependencies.
  printf 'package tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubectl/pkg/cmd"\n)\n' >"$work/tools.go"
  (cd "$work" && go mod tidy)
  mkdir -p "$k8s_dir"
  for cmd in "${cmds[@]}"; do
    log "building $cmd $KUBERNETES_VERSION (several minutes on first run)"
    (cd "$work" && go build -mod=mod ${jobs:+-p "$jobs"} -trimpath -ldflags "$ldflags" -o "$work/bin/$cmd" "k8s.io/kubernetes/cmd/$cmd")
    # Moved into place only once complete, so an interrupted build never leaves a cached half.
    mv "$work/bin/$cmd" "$k8s_dir/$cmd"
  done
}

build_etcd() {
  if [[ -x "$etcd_dir/etcd" ]]; then
    log "etcd $ETCD_VERSION: cached in $etcd_dir"
    return
  fi
  need_go
  local work
  work=$(mktemp -d)
  workdirs+=("$work")
  printf 'module coffer.local/etcd-build\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" >"$work/go.mod"
  cat >"$work/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  log "building etcd $ETCD_VERSION"
  (cd "$work" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go mod tidy)
  mkdir -p "$etcd_dir.tmp"
  (cd "$work" && go build ${jobs:+-p "$jobs"} -trimpath -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" -o "$etcd_dir.tmp/etcd" .)
  rm -rf "$etcd_dir" && mv "$etcd_dir.tmp" "$etcd_dir"
}

build_helm() {
  if [[ -x "$helm_dir/helm" ]]; then
    log "helm $HELM_VERSION: cached in $helm_dir"
    return
  fi
  need_go
  local work major
  work=$(mktemp -d)
  workdirs+=("$work")
  major=$(cut -d. -f1 <<<"$HELM_VERSION")
  printf 'module coffer.local/helm-build\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" >"$work/go.mod"
  log "building helm $HELM_VERSION"
  # As for Kubernetes, `go get` names the module: the proxy answers 403 for helm.sh/helm/vN/cmd/helm.
  # The tools file (build tag `tools`, never compiled) lets `go mod tidy` record cmd/helm's dependencies.
  (cd "$work" && go get "helm.sh/helm/$major@$HELM_VERSION")
  printf '//go:build tools\n\npackage tools\n\nimport _ "helm.sh/helm/%s/cmd/helm"\n' "$major" >"$work/tools.go"
  (cd "$work" && go mod tidy)
  mkdir -p "$helm_dir.tmp"
  (cd "$work" && go build ${jobs:+-p "$jobs"} -trimpath \
    -ldflags "-s -w -X helm.sh/helm/$major/internal/version.version=$HELM_VERSION -X helm.sh/helm/$major/internal/version.gitTreeState=clean" \
    -o "$helm_dir.tmp/helm" "helm.sh/helm/$major/cmd/helm")
  rm -rf "$helm_dir" && mv "$helm_dir.tmp" "$helm_dir"
}

# Prints one line per binary with what its --version says.
report() {
  local apiserver=$1 etcd=$2 kubectl=$3 controller_manager=$4
  log "kube-apiserver: $("$apiserver" --version) ($apiserver)"
  log "kube-controller-manager: $("$controller_manager" --version) ($controller_manager)"
  log "etcd: $("$etcd" --version | head -n 1) ($etcd)"
  log "kubectl: $("$kubectl" version --client | head -n 1) ($kubectl)"
  log "helm: $("$helm_dir/helm" version --short) ($helm_dir/helm)"
}

main() {
  local started=$SECONDS kubeapiserver kubecontrollermanager etcd kubectl to_build=()
  kubeapiserver=$(provided kube-apiserver TEST_ASSET_KUBE_APISERVER)
  etcd=$(provided etcd TEST_ASSET_ETCD)
  kubectl=$(provided kubectl TEST_ASSET_KUBECTL)
  kubecontrollermanager=$(provided kube-controller-manager TEST_ASSET_KUBE_CONTROLLER_MANAGER)
  if [[ -n $etcd ]]; then log "etcd: using $etcd (envtest)"; else build_etcd; etcd="$etcd_dir/etcd"; fi
  for cmd in kube-apiserver kube-controller-manager kubectl; do
    local var=${cmd//-/} # the local variable holding the envtest path, if any
    if [[ -n ${!var} ]]; then
      log "$cmd: using ${!var} (envtest)"
    elif [[ -x "$k8s_dir/$cmd" ]]; then
      log "$cmd $KUBERNETES_VERSION: cached in $k8s_dir"
    else
      to_build+=("$cmd")
    fi
  done
  build_kubernetes "${to_build[@]}"
  kubeapiserver=${kubeapiserver:-$k8s_dir/kube-apiserver}
  kubectl=${kubectl:-$k8s_dir/kubectl}
  kubecontrollermanager=${kubecontrollermanager:-$k8s_dir/kube-controller-manager}
  build_helm
  report "$kubeapiserver" "$etcd" "$kubectl" "$kubecontrollermanager"
  log "ready in $((SECONDS - started)) s"
}

main "$@"
