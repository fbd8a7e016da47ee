#!/usr/bin/env bash
# Measures the ask path with the local provider: 100 cached meetings of 500
# turns, 20 concurrent askers over SSE, on a fresh database.
set -euo pipefail
SCRIPT_NAME=bench-ask
cd "$(dirname "$0")/.."
. scripts/lib.sh

db=${BENCH_DB:-mithub_bench_ask}
ensure_database "$db" fresh
export MITHUB_ENV=dev
export MITHUB_HTTP_ADDR=${BENCH_HTTP_ADDR:-127.0.0.1:18181}
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_API_KEY=dev-key
export MITHUB_LOG_LEVEL=warn

trap stop_api EXIT
mkdir -p tmp
start_api tmp/bench-ask-agent-api.log
# CPU per ask counts this agent-api only, not others on the machine.
export MITHUB_BENCH_API_PID=$API_PID
bin/mithub-lab bench-ask "$@"
