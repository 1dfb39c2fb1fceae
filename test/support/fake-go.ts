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
 *                            stderr, as `go build -v` does, and writes a stub binary to `-o`
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
    out=
    while [[ $# -gt 0 ]]; do
      [[ $1 == -o ]] && out=$2
      shift
    done
    printf '%s\\n' example.com/one example.com/two example.com/three >&2
    sleep "\${FAKE_GO_BUILD_SECONDS:-0}"
    # Only the file: the output's directory is the script's to make.
    printf '#!/bin/sh\\necho "stub %s $*"\\n' "$(basename "$out")" >"$out"
    chmod +x "$out"
    ;;
esac
`;

/** Writes the fake `go` into `binDir` (created); put `binDir` first on PATH. */
export function writeFakeGo(binDir: string): void {
  mkdirSync(binDir, { recursive: true });
  const path = join(binDir, 'go');
  writeFileSync(path, fakeGoScript);
  chmodSync(path, 0o755);
}

/**
 * Fills `cacheDir` as install.sh leaves it for the Kubernetes binaries (stub executables printing
 * `stub <name>`), so a run builds only etcd and helm — with the fake go.
 */
export function prepareKubernetesStubs(cacheDir: string): void {
  const k8sDir = join(cacheDir, 'bin', `k8s-${readPinnedVersions().kubernetes}`);
  mkdirSync(k8sDir, { recursive: true });
  for (const name of ['kube-apiserver', 'kube-controller-manager', 'kubectl']) {
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
