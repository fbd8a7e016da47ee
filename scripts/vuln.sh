#!/usr/bin/env bash
# Checks every module of the workspace for known vulnerabilities with
# govulncheck (installed once through the Go module proxy into
# ~/.cache/mithub/).
#
# govulncheck needs the Go vulnerability database. By default it reads
# https://vuln.go.dev; where that is not reachable, point MITHUB_VULNDB at a
# copy: a file:// URL of a directory in the database's layout (index/,
# ID/, as served by vuln.go.dev) or another https mirror.
#
# Environment:
#   MITHUB_VULNDB       vulnerability database URL (default: govulncheck's, https://vuln.go.dev)
#   GOVULNCHECK_VERSION govulncheck version (default v1.9.0)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRIPT_NAME=vuln
source scripts/lib.sh

version=${GOVULNCHECK_VERSION:-v1.9.0}
db=()
if [ -n "${MITHUB_VULNDB:-}" ]; then
  case $MITHUB_VULNDB in
    file://*)
      dir=${MITHUB_VULNDB#file://}
      [ -d "$dir/index" ] || die "MITHUB_VULNDB=$MITHUB_VULNDB: no index/ directory there (not a vulnerability database)"
      ;;
    https://*|http://*) ;;
    *) die "MITHUB_VULNDB must be a file:// or https:// URL, got $MITHUB_VULNDB" ;;
  esac
  db=(-db "$MITHUB_VULNDB")
fi
# One run per module: govulncheck analyses the packages of the module it
# runs in, with the workspace's versions of the others. Exit status 3 means
# vulnerabilities were found: the other modules are still checked. Any
# other failure (such as an unreachable database) stops at once.
bindir=${XDG_CACHE_HOME:-$HOME/.cache}/mithub/govulncheck-$version
if [ ! -x "$bindir/govulncheck" ]; then
  log "installing govulncheck $version"
  GOBIN=$bindir go install "golang.org/x/vuln/cmd/govulncheck@$version"
fi
found=()
for mod in pkg services/agent-api services/realtime-worker services/pr-worker services/mithubctl deploy; do
  log "$mod"
  rc=0
  (cd "$mod" && "$bindir/govulncheck" "${db[@]}" ./...) || rc=$?
  case $rc in
    0) ;;
    3) found+=("$mod") ;;
    *) die "govulncheck failed on $mod (exit $rc); is the database reachable? set MITHUB_VULNDB" ;;
  esac
done
if ((${#found[@]} > 0)); then
  die "vulnerabilities in: ${found[*]}"
fi
log "no known vulnerabilities reachable from the code"
