#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl, the node's kubelet, kube-scheduler and
# kube-proxy, etcd and helm from their Go modules (through the Go module proxy) into a cache outside
# the repository, keyed by version:
#   $COFFER_CACHE_DIR/bin/k8s-<v>/{kube-apiserver,kube-controller-manager,kubectl,kubelet,kube-scheduler,kube-proxy}
#   (COFFER_CACHE_DIR defaults to ~/.cache/coffer)
#   $COFFER_CACHE_DIR/bin/etcd-<v>/etcd
#   $COFFER_CACHE_DIR/bin/helm-<v>/helm
# A binary already in the cache is reused, so a second run takes seconds.
# Envtest conventions are honoured per binary: TEST_ASSET_KUBE_APISERVER, TEST_ASSET_ETCD,
# TEST_ASSET_KUBECTL, TEST_ASSET_KUBE_CONTROLLER_MANAGER, or KUBEBUILDER_ASSETS/<name>; a binary
# provided that way is not built. (Envtest archives carry no kube-controller-manager, so with
# KUBEBUILDER_ASSETS alone it is still built here.)
# A failed build prints the Go error and exits non-zero; there is no fallback.
#
# A node also needs containerd, runc, the CNI plugins, iptables and conntrack from the machine's
# package manager, and the operator's image build (`npm run image`, test/integration/image.test.ts)
# needs buildah (builds the Dockerfile without a daemon) and mmdebstrap (the Debian root file
# system of its local base images). Those missing are installed with apt-get (through `sudo -n`
# when not root), each named before it is installed. Where that is not possible the run warns and
# goes on (the control plane runs without a node, the image is not built); with CI=true it fails
# instead.
#
# Concurrent runs against one cache are safe: a run that has something to build holds an exclusive
# lock (flock on $COFFER_CACHE_DIR/bin/.install.lock); a second run waits for it and then reuses
# what the first built. Every build happens in a directory of its own and its binary is renamed
# into place only once complete, so the cache never holds half a binary.
# While a step runs, a progress line (elapsed time; packages compiled while building) appears every
# COFFER_HEARTBEAT_SECONDS (default 20).
#
# Usage: npm run control-plane:install (takes no flags; --help prints this comment).
set -euo pipefail

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  echo "usage: npm run control-plane:install"
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "${BASH_SOURCE[0]}"
  exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

cache=${COFFER_CACHE_DIR:-$HOME/.cache/coffer}
bin_root="$cache/bin"
k8s_dir="$bin_root/k8s-$KUBERNETES_VERSION"
etcd_dir="$bin_root/etcd-$ETCD_VERSION"
helm_dir="$bin_root/helm-$HELM_VERSION"
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
jobs=${COFFER_BUILD_JOBS:-}
heartbeat_seconds=${COFFER_HEARTBEAT_SECONDS:-20}

log() { printf '[control-plane] %s\n' "$*" >&2; }

# Throw-away build modules and unfinished cache entries, removed on exit. (A RETURN trap would
# outlive its function and fire, with `set -u`, on every later return.) INT and TERM exit through
# the EXIT trap too.
workdirs=()
heartbeat_pid=
cleanup() {
  # A second INT/TERM (the sandbox signals the whole group again when it exits) must not cut the
  # removal short; the ignored signals are inherited by rm as well.
  trap '' INT TERM
  [[ -z $heartbeat_pid ]] || kill "$heartbeat_pid" 2>/dev/null || true
  rm -rf "${workdirs[@]}"
}
trap cleanup EXIT
# Ignore further signals from the first one on, so that none can interrupt the way to cleanup.
trap 'trap "" INT TERM; exit 130' INT
trap 'trap "" INT TERM; exit 143' TERM

need_go() {
  command -v go >/dev/null 2>&1 || {
    log "error: Go is required to build the control plane (or set KUBEBUILDER_ASSETS to envtest binaries)"
    exit 1
  }
}

# Sets $work to a new directory for one build, removed on exit. (Not a command substitution:
# that would run in a subshell and lose the workdirs entry.)
new_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/coffer-control-plane-build.XXXXXX")
  workdirs+=("$work")
  mkdir "$work/bin"
}

# Minutes and seconds since the epoch second $1.
elapsed_since() {
  local s=$(($(date +%s) - $1))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# Runs "$@" and meanwhile logs "<label>: <elapsed> elapsed[, N packages compiled]" every
# $heartbeat_seconds, N read from the file $count_file when that is set and not empty.
count_file=
with_heartbeat() {
  local label=$1 started status=0
  shift
  started=$(date +%s)
  (
    trap 'kill $! 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$heartbeat_seconds" &
      wait $!
      count=
      [[ -z $count_file || ! -s $count_file ]] || count=", $(<"$count_file") packages compiled"
      log "$label: $(elapsed_since "$started") elapsed$count"
    done
  ) &
  heartbeat_pid=$!
  "$@" || status=$?
  kill "$heartbeat_pid" 2>/dev/null || true
  wait "$heartbeat_pid" 2>/dev/null || true
  heartbeat_pid=
  return "$status"
}

# Reads `go build -v` output on stdin: counts the package paths into $count_file and passes
# every other line (errors, downloads) through to stderr.
count_packages() {
  local n=0 line
  while IFS= read -r line; do
    if [[ $line =~ ^[A-Za-z0-9._~/+-]+$ ]]; then
      n=$((n + 1))
      echo "$n" >"$count_file"
    else
      printf '%s\n' "$line" >&2
    fi
  done
}

# `go build -v ARGS` in DIR; its stdout stays ours (through fd 3), its stderr, where -v lists the
# packages it compiles, goes through count_packages. Fails with go's exit status (pipefail).
go_build_counted() {
  local dir=$1
  shift
  { (cd "$dir" && go build -v "$@") 2>&1 >&3 3>&- | count_packages; } 3>&1
}

# go_build DIR LABEL ARGS...: go_build_counted with a heartbeat naming LABEL and the count.
go_build() {
  local dir=$1 label=$2 status=0
  shift 2
  count_file="$dir/.packages-compiled"
  with_heartbeat "$label" go_build_counted "$dir" "$@" || status=$?
  count_file=
  return "$status"
}

# Moves the finished binary $1 to $2: first to a unique temporary name next to $2 (same file
# system), then renamed, which is atomic; a run killed in between leaves only the temporary name,
# removed on exit.
install_binary() {
  local src=$1 dest=$2 tmp
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp "$dest.XXXXXX.partial")
  workdirs+=("$tmp")
  mv -f "$src" "$tmp"
  chmod 755 "$tmp"
  mv -f "$tmp" "$dest"
}

# Takes the cache's build lock (held until exit); when another run holds it, says so and waits.
lock_cache() {
  mkdir -p "$bin_root"
  if ! command -v flock >/dev/null 2>&1; then
    log "warning: flock not found; concurrent runs against $bin_root are not serialized"
    return
  fi
  exec 9>"$bin_root/.install.lock"
  if ! flock -n 9; then
    log "another install.sh is building into $bin_root: waiting for it, then reusing its binaries"
    with_heartbeat "waiting for the other install.sh" flock 9
  fi
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

# Builds those of the given k8s.io/kubernetes commands (kube-apiserver, kube-controller-manager,
# kubectl, kubelet, kube-scheduler, kube-proxy) that $k8s_dir lacks, in one `go build` (the
# commands share most of their packages).
build_kubernetes() {
  local cmds=() pkgs=() work minor ldflags cmd
  for cmd in "$@"; do [[ -x "$k8s_dir/$cmd" ]] || cmds+=("$cmd"); done
  [[ ${#cmds[@]} -gt 0 ]] || return 0
  need_go
  check_kubernetes_served
  new_workdir
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
  (cd "$work" && with_heartbeat "resolving k8s.io/kubernetes modules" go get "k8s.io/kubernetes@$KUBERNETES_VERSION")
  # The tools file imports each command's app package so that `go mod tidy` records its dependencies.
  {
    printf 'package tools\n\nimport (\n\t_ "k8s.io/kubectl/pkg/cmd"\n'
    for cmd in kube-apiserver kube-controller-manager kubelet kube-scheduler kube-proxy; do
      printf '\t_ "k8s.io/kubernetes/cmd/%s/app"\n' "$cmd"
    done
    printf ')\n'
  } >"$work/tools.go"
  (cd "$work" && with_heartbeat "resolving k8s.io/kubernetes modules" go mod tidy)
  for cmd in "${cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$cmd"); done
  log "building ${cmds[*]} $KUBERNETES_VERSION (several minutes on first run; progress every ${heartbeat_seconds} s)"
  # With several packages, `-o DIR/` writes each command's binary into DIR under the command's name.
  go_build "$work" "building ${cmds[*]}" -mod=mod ${jobs:+-p "$jobs"} -trimpath -ldflags "$ldflags" \
    -o "$work/bin/" "${pkgs[@]}"
  for cmd in "${cmds[@]}"; do install_binary "$work/bin/$cmd" "$k8s_dir/$cmd"; done
}

build_etcd() {
  if [[ -x "$etcd_dir/etcd" ]]; then
    log "etcd $ETCD_VERSION: cached in $etcd_dir"
    return
  fi
  need_go
  local work
  new_workdir
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
  (cd "$work" && with_heartbeat "resolving etcd modules" go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION")
  (cd "$work" && with_heartbeat "resolving etcd modules" go mod tidy)
  go_build "$work" "building etcd" ${jobs:+-p "$jobs"} -trimpath \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" -o "$work/bin/etcd" .
  install_binary "$work/bin/etcd" "$etcd_dir/etcd"
}

build_helm() {
  if [[ -x "$helm_dir/helm" ]]; then
    log "helm $HELM_VERSION: cached in $helm_dir"
    return
  fi
  need_go
  local work major
  new_workdir
  major=$(cut -d. -f1 <<<"$HELM_VERSION")
  printf 'module coffer.local/helm-build\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" >"$work/go.mod"
  log "building helm $HELM_VERSION"
  # As for Kubernetes, `go get` names the module: the proxy answers 403 for helm.sh/helm/vN/cmd/helm.
  # The tools file (build tag `tools`, never compiled) lets `go mod tidy` record cmd/helm's dependencies.
  (cd "$work" && with_heartbeat "resolving helm modules" go get "helm.sh/helm/$major@$HELM_VERSION")
  printf '//go:build tools\n\npackage tools\n\nimport _ "helm.sh/helm/%s/cmd/helm"\n' "$major" >"$work/tools.go"
  (cd "$work" && with_heartbeat "resolving helm modules" go mod tidy)
  go_build "$work" "building helm" ${jobs:+-p "$jobs"} -trimpath \
    -ldflags "-s -w -X helm.sh/helm/$major/internal/version.version=$HELM_VERSION -X helm.sh/helm/$major/internal/version.gitTreeState=clean" \
    -o "$work/bin/helm" "helm.sh/helm/$major/cmd/helm"
  install_binary "$work/bin/helm" "$helm_dir/helm"
}

# Debian packages a node and the image build need, each with a file it provides (checked where there is no dpkg).
node_packages=(
  containerd:/usr/bin/containerd
  runc:/usr/sbin/runc
  containernetworking-plugins:/usr/lib/cni/bridge
  iptables:/usr/sbin/iptables
  conntrack:/usr/sbin/conntrack
  # The image build's (src/sandbox/image/).
  buildah:/usr/bin/buildah
  mmdebstrap:/usr/bin/mmdebstrap
)

# Prints the node packages that are not installed, one per line (by dpkg's record, else by the
# file each provides).
missing_node_packages() {
  local entry pkg file
  for entry in "${node_packages[@]}"; do
    pkg=${entry%%:*} file=${entry#*:}
    if command -v dpkg-query >/dev/null 2>&1; then
      [[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null) == installed ]] || echo "$pkg"
    else
      [[ -e $file ]] || echo "$pkg"
    fi
  done
}

# Says that the node packages $2... could not be installed because of $1: with CI=true an error
# (exit 1), else a warning.
node_packages_failed() {
  local reason=$1
  shift
  if [[ ${CI:-} == true ]]; then
    log "error: cannot install the node packages $* ($reason)"
    exit 1
  fi
  log "warning: cannot install the node packages $* ($reason); the control plane runs without a node and the image is not built until they are installed"
}

# Installs the missing node packages with apt-get (as root, else through `sudo -n`), naming each first.
install_node_packages() {
  local missing=() pkg apt=(apt-get)
  mapfile -t missing < <(missing_node_packages)
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "node packages: installed (${node_packages[*]%%:*})"
    return
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    node_packages_failed "no apt-get here; install them with this machine's package manager" "${missing[@]}"
    return
  fi
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
      node_packages_failed "not root and no password-less sudo" "${missing[@]}"
      return
    fi
    apt=(sudo -n apt-get)
  fi
  for pkg in "${missing[@]}"; do log "installing node package $pkg (apt-get)"; done
  if ! with_heartbeat "installing node packages" "${apt[@]}" update -qq ||
    ! with_heartbeat "installing node packages" "${apt[@]}" install -y -qq --no-install-recommends \
      -o Dpkg::Options::=--force-confold "${missing[@]}" </dev/null; then
    node_packages_failed "apt-get failed" "${missing[@]}"
  fi
}

# Prints one line per binary with what its --version says.
report() {
  local apiserver=$1 etcd=$2 kubectl=$3 controller_manager=$4 cmd
  log "kube-apiserver: $("$apiserver" --version) ($apiserver)"
  log "kube-controller-manager: $("$controller_manager" --version) ($controller_manager)"
  for cmd in kubelet kube-scheduler kube-proxy; do
    log "$cmd: $("$k8s_dir/$cmd" --version) ($k8s_dir/$cmd)"
  done
  log "etcd: $("$etcd" --version | head -n 1) ($etcd)"
  log "kubectl: $("$kubectl" version --client | head -n 1) ($kubectl)"
  log "helm: $("$helm_dir/helm" version --short) ($helm_dir/helm)"
  for cmd in containerd runc; do
    ! command -v "$cmd" >/dev/null 2>&1 || log "$cmd: $("$cmd" --version | head -n 1) ($(command -v "$cmd"))"
  done
}

main() {
  local started=$SECONDS kubeapiserver kubecontrollermanager etcd kubectl to_build=() missing=0
  kubeapiserver=$(provided kube-apiserver TEST_ASSET_KUBE_APISERVER)
  etcd=$(provided etcd TEST_ASSET_ETCD)
  kubectl=$(provided kubectl TEST_ASSET_KUBECTL)
  kubecontrollermanager=$(provided kube-controller-manager TEST_ASSET_KUBE_CONTROLLER_MANAGER)
  install_node_packages
  for cmd in kube-apiserver kube-controller-manager kubectl kubelet kube-scheduler kube-proxy; do
    local var=${cmd//-/} # the local variable holding the envtest path, if any (none for the node's)
    if [[ -n ${!var:-} ]]; then
      log "$cmd: using ${!var} (envtest)"
    elif [[ -x "$k8s_dir/$cmd" ]]; then
      log "$cmd $KUBERNETES_VERSION: cached in $k8s_dir"
    else
      to_build+=("$cmd")
    fi
  done
  [[ -n $etcd || -x "$etcd_dir/etcd" ]] || missing=1
  [[ -x "$helm_dir/helm" && ${#to_build[@]} -eq 0 ]] || missing=1
  # Only a run with something to build takes the lock; the builders re-check the cache after it.
  [[ $missing -eq 0 ]] || lock_cache
  if [[ -n $etcd ]]; then log "etcd: using $etcd (envtest)"; else build_etcd; etcd="$etcd_dir/etcd"; fi
  build_kubernetes "${to_build[@]}"
  kubeapiserver=${kubeapiserver:-$k8s_dir/kube-apiserver}
  kubectl=${kubectl:-$k8s_dir/kubectl}
  kubecontrollermanager=${kubecontrollermanager:-$k8s_dir/kube-controller-manager}
  build_helm
  report "$kubeapiserver" "$etcd" "$kubectl" "$kubecontrollermanager"
  log "ready in $((SECONDS - started)) s"
}

main "$@"
