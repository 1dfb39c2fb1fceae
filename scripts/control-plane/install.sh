#!/usr/bin/env bash
# Builds kube-apiserver, kubectl, etcd and helm from their Go modules (through the
# Go module proxy) into a cache outside the repository, keyed by version:
#   $COFFER_CACHE_DIR/bin/k8s-<v>/{kube-apiserver,kubectl}
#   $COFFER_CACHE_DIR/bin/etcd-<v>/etcd
#   $COFFER_CACHE_DIR/bin/helm-<v>/helm
# A binary already in the cache is reused, so a second run takes seconds.
# Envtest conventions are honoured: with KUBEBUILDER_ASSETS (or TEST_ASSET_KUBE_APISERVER
# and TEST_ASSET_ETCD) set, those binaries are used and nothing is built for them.
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

build_kubernetes() {
  if [[ -x "$k8s_dir/kube-apiserver" && -x "$k8s_dir/kubectl" ]]; then
    log "kube-apiserver and kubectl $KUBERNETES_VERSION: cached in $k8s_dir"
    return
  fi
  need_go
  local work minor ldflags
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  prepare_kubernetes_module "$work"
  minor=$(cut -d. -f2 <<<"$KUBERNETES_VERSION")
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  log "resolving k8s.io/kubernetes@$KUBERNETES_VERSION modules (first run downloads them)"
  (cd "$work" && go get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBERNETES_VERSION" "k8s.io/kubernetes/cmd/kubectl@$KUBERNETES_VERSION")
  mkdir -p "$k8s_dir.tmp"
  for cmd in kube-apiserver kubectl; do
    log "building $cmd $KUBERNETES_VERSION (several minutes on first run)"
    (cd "$work" && go build ${jobs:+-p "$jobs"} -trimpath -ldflags "$ldflags" -o "$k8s_dir.tmp/$cmd" "k8s.io/kubernetes/cmd/$cmd")
  done
  rm -rf "$k8s_dir" && mv "$k8s_dir.tmp" "$k8s_dir"
}

build_etcd() {
  if [[ -x "$etcd_dir/etcd" ]]; then
    log "etcd $ETCD_VERSION: cached in $etcd_dir"
    return
  fi
  need_go
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
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
  trap 'rm -rf "$work"' RETURN
  major=$(cut -d. -f1 <<<"$HELM_VERSION")
  printf 'module coffer.local/helm-build\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" >"$work/go.mod"
  log "building helm $HELM_VERSION"
  (cd "$work" && go get "helm.sh/helm/$major/cmd/helm@$HELM_VERSION")
  mkdir -p "$helm_dir.tmp"
  (cd "$work" && go build ${jobs:+-p "$jobs"} -trimpath \
    -ldflags "-s -w -X helm.sh/helm/$major/internal/version.version=$HELM_VERSION -X helm.sh/helm/$major/internal/version.gitTreeState=clean" \
    -o "$helm_dir.tmp/helm" "helm.sh/helm/$major/cmd/helm")
  rm -rf "$helm_dir" && mv "$helm_dir.tmp" "$helm_dir"
}

main() {
  if [[ -n "${KUBEBUILDER_ASSETS:-}" || (-n "${TEST_ASSET_KUBE_APISERVER:-}" && -n "${TEST_ASSET_ETCD:-}") ]]; then
    log "using envtest binaries from ${KUBEBUILDER_ASSETS:-TEST_ASSET_* variables}; not building kube-apiserver/etcd"
  else
    build_etcd
    build_kubernetes
  fi
  build_helm
  log "ready: $("$k8s_dir/kube-apiserver" --version 2>/dev/null || echo "kube-apiserver from envtest")"
}

main "$@"
