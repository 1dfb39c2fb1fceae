/**
 * A stand-in `go` for tests of scripts/control-plane/install.sh and of what runs it: no
 * Kubernetes build (that takes 10+ minutes), but the same commands, timings chosen by the test
 * and a log of every call. Also a control-plane cache prepared with stub Kubernetes binaries, and
 * a lookup of live processes by an environment entry (to show that nothing survived).
 *
 * The fake's behaviour, set through the environment of whoever runs it:
 *   FAKE_GO_LOG              file that gets one line per call: "<pid> <args>"
 *   FAKE_GO_RESOLVE_SECONDS  how long `go get` and `go mod tidy` take (default 0)
 *   FAKE_GO_BUILD_SECONDS    how long `go build` takes (default 0); it lists three packages on
 *                            stderr, as `go build -v` does, and writes a stub binary to `-o` (with
 *                            `-o DIR/`, one per package named on the command line, as go does)
 *
 * Also a stand-in Debian package manager (`dpkg-query`, `apt-get`, and `sudo` that runs its
 * command), so that the script's node-package step changes nothing on the machine:
 *   FAKE_APT_LOG             file that gets one line per apt-get call: "<args>"
 *   FAKE_APT_MISSING         space-separated packages dpkg-query reports as not installed
 *   FAKE_APT_FAIL            when set, `apt-get install` fails
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPinnedVersions } from '../../src/sandbox/control-plane/binaries.ts';

const fakeGoScript = `#!/usr/bin/env bash
set -euo pipefail
echo "$$ $*" >>"\${FAKE_GO_LOG:-/dev/null}"
case "$1" in
  env)
    case "$2" in
      GOVERSION) echo go1.26.0 ;;
      GOPROXY) echo off ;;
    esac
    ;;
  get | mod) sleep "\${FAKE_GO_RESOLVE_SECONDS:-0}" ;;
  build)
    out= pkgs=()
    while [[ $# -gt 0 ]]; do
      case $1 in
        -o) out=$2; shift ;;
        -ldflags | -p) shift ;;
        -*) ;;
        *) pkgs+=("$1") ;;
      esac
      shift
    done
    printf '%s\\n' example.com/one example.com/two example.com/three >&2
    sleep "\${FAKE_GO_BUILD_SECONDS:-0}"
    # Only the files: the output's directory is the script's to make.
    outs=("$out")
    if [[ $out == */ ]]; then
      outs=()
      for pkg in "\${pkgs[@]}"; do outs+=("$out$(basename "$pkg")"); done
    fi
    for file in "\${outs[@]}"; do
      printf '#!/bin/sh\\necho "stub %s $*"\\n' "$(basename "$file")" >"$file"
      chmod +x "$file"
    done
    ;;
esac
`;

const fakeDpkgQueryScript = `#!/usr/bin/env bash
# dpkg-query -W -f=<format> <package>: "installed" unless the package is in FAKE_APT_MISSING.
pkg=\${*: -1}
for missing in \${FAKE_APT_MISSING:-}; do
  [[ $missing == "$pkg" ]] && { echo "dpkg-query: no packages found matching $pkg" >&2; exit 1; }
done
printf installed
`;

const fakeAptGetScript = `#!/usr/bin/env bash
echo "$*" >>"\${FAKE_APT_LOG:-/dev/null}"
[[ $1 == install && -n \${FAKE_APT_FAIL:-} ]] && { echo "E: Unable to locate package" >&2; exit 100; }
exit 0
`;

const fakeSudoScript = `#!/usr/bin/env bash
while [[ $1 == -* ]]; do shift; done
exec "$@"
`;

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/**
 * Writes the fake `go` and the fake package manager (`dpkg-query`, `apt-get`, `sudo`) into
 * `binDir` (created); put `binDir` first on PATH.
 */
export function writeFakeGo(binDir: string): void {
  mkdirSync(binDir, { recursive: true });
  writeExecutable(join(binDir, 'go'), fakeGoScript);
  writeExecutable(join(binDir, 'dpkg-query'), fakeDpkgQueryScript);
  writeExecutable(join(binDir, 'apt-get'), fakeAptGetScript);
  writeExecutable(join(binDir, 'sudo'), fakeSudoScript);
}

/** The commands of k8s.io/kubernetes that install.sh builds: the control plane's, then the node's. */
export const controlPlaneCommands = ['kube-apiserver', 'kube-controller-manager', 'kubectl'] as const;
export const nodeCommands = ['kubelet', 'kube-scheduler', 'kube-proxy'] as const;

/**
 * Fills `cacheDir` as install.sh leaves it for the Kubernetes binaries `names` (default: all of
 * them; stub executables printing `stub <name>`), so a run builds only etcd, helm and the others —
 * with the fake go.
 */
export function prepareKubernetesStubs(
  cacheDir: string,
  names: readonly string[] = [...controlPlaneCommands, ...nodeCommands],
): void {
  const k8sDir = join(cacheDir, 'bin', `k8s-${readPinnedVersions().kubernetes}`);
  mkdirSync(k8sDir, { recursive: true });
  for (const name of names) {
    writeFileSync(join(k8sDir, name), `#!/bin/sh\necho "stub ${name}"\n`);
    chmodSync(join(k8sDir, name), 0o755);
  }
}

/** Lines of the fake go's log whose arguments start with `command` (e.g. `build`, `get`). */
export function fakeGoCalls(logFile: string, command: string): string[] {
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter((line) => line.split(' ')[1] === command);
}

/** "pid: command line" of every live process whose environment holds `entry` (e.g. `KEY=value`). */
export function processesWithEnvironment(entry: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      // A zombie (already dead, not yet reaped) has an empty command line.
      if (cmdline.trim()) found.push(`${pid}: ${cmdline.slice(0, 160)}`);
    } catch {
      // Gone while we looked, or not ours.
    }
  }
  return found;
}
