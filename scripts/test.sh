#!/usr/bin/env bash
# The full test suite: gofmt and go vet, then go test with the race detector across
# every module, against the PostgreSQL and Redis that dev-up.sh provides.
#
# Environment:
#   MITHUB_TEST_DATABASE_URL  test database (default: postgres://postgres@127.0.0.1:5432/mithub_test?sslmode=disable);
#                             each test works in its own schema
#   TEST_FLAGS                extra flags for go test (e.g. -run Ingest)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=github.com/mithub/mithub/...
# The realtime worker's tests start their own LiveKit server from this
# binary (built once into a cache outside the repository).
MITHUB_TEST_LIVEKIT_BIN=${MITHUB_TEST_LIVEKIT_BIN:-$(bash scripts/livekit.sh)}
export MITHUB_TEST_LIVEKIT_BIN
unformatted=$(gofmt -l pkg services deploy)
if [ -n "$unformatted" ]; then
  echo "test: not gofmt-formatted (run make fmt):" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet "$modules"
# Two cores: two packages at a time.
go test -race -p 2 -count=1 -timeout 25m ${TEST_FLAGS:-} "$modules"
# The official MCP TypeScript SDK client drives `mithubctl mcp` (needs bin/
# from make build, and npm for its pinned packages).
bash scripts/test-mcp-client.sh
bash scripts/test-console.sh # the web console in Debian's Chromium, driven by playwright-core
# The fault matrix's quick mode on a private PostgreSQL, Redis and LiveKit
# (scripts/chaos.sh; under 4 minutes).
bash scripts/chaos.sh --quick
