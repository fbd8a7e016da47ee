#!/usr/bin/env bash
# Drives `mithubctl mcp` (stdio) with the official MCP TypeScript SDK
# client (scripts/mcp-client, pinned in its package-lock.json): starts
# agent-api on a fresh database, replays the example meeting
# (examples/meetings/launch-review.jsonl; MCP_MEETING_FILE another .jsonl
# or QMSum .json), then runs
# scripts/mcp-client/client.mjs, which lists the tools, calls each one and
# checks the results. node_modules is installed on first use (ignored by
# git).
set -euo pipefail
SCRIPT_NAME=test-mcp-client
cd "$(dirname "$0")/.."
. scripts/lib.sh

command -v node >/dev/null || die "node (>= 20) is needed"
if [ ! -d scripts/mcp-client/node_modules/@modelcontextprotocol/sdk ]; then
  log "installing the MCP TypeScript SDK (npm ci)"
  (cd scripts/mcp-client && npm ci --no-audit --no-fund >/dev/null)
fi
[ -x bin/agent-api ] && [ -x bin/mithubctl ] || die "run make build first"

db=${MCP_TEST_DB:-mithub_mcp_test}
ensure_database "$db" fresh
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export MITHUB_ENV=dev
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_HTTP_ADDR="127.0.0.1:$port"
export MITHUB_API_URL="http://127.0.0.1:$port"
export MITHUB_API_KEY=dev-key
export MITHUB_LLM_PROVIDER=local
export MITHUB_LLM_CONTEXT_WINDOW=8192
file=${MCP_MEETING_FILE:-examples/meetings/launch-review.jsonl}
[ -f "$file" ] || die "meeting file $file not found"

logdir=$(mktemp -d)
trap 'stop_api; rm -rf "$logdir"' EXIT
start_api "$logdir/agent-api.log"

log "replaying $file"
MEETING_ID=$(bin/mithubctl replay --meeting-file "$file" --rate 0)
export MEETING_ID
export MITHUBCTL="$PWD/bin/mithubctl"
export MEETING_FILE=$(realpath "$file")
node scripts/mcp-client/client.mjs
