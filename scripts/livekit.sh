#!/usr/bin/env bash
# Builds the pinned LiveKit server (deploy/livekit-server, v1.13.5) into a
# cache directory outside the repository unless it is already there, and
# prints the binary's path. The first build takes a few minutes.
#
# Environment:
#   MITHUB_LIVEKIT_CACHE  directory for the binary
#                         (default: ${XDG_CACHE_HOME:-$HOME/.cache}/mithub/livekit-server-v1.13.5)
set -euo pipefail
SCRIPT_NAME=livekit
cd "$(dirname "$0")/.."
. scripts/lib.sh

version=v1.13.5
dir=${MITHUB_LIVEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mithub/livekit-server-$version}
bin=$dir/livekit-server
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  log "building livekit-server $version into $dir (one time)"
  # Build to a temporary name so an interrupted build never leaves a
  # half-written binary behind.
  (cd deploy/livekit-server && GOWORK=off go build -trimpath -o "$bin.tmp.$$" github.com/livekit/livekit-server/cmd/server) ||
    { rm -f "$bin.tmp.$$"; die "go build of livekit-server failed"; }
  mv -f "$bin.tmp.$$" "$bin"
fi
printf '%s\n' "$bin"
