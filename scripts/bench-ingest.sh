#!/usr/bin/env bash
# Measures POST utterances (batches of 50, 20 concurrent meetings) against a
# raw pgx CopyFrom of the same rows, in one run, on a fresh database.
set -euo pipefail
SCRIPT_NAME=bench-ingest
cd "$(dirname "$0")/.."
. scripts/lib.sh

db=${BENCH_DB:-mithub_bench}
ensure_database "$db" fresh
export MITHUB_ENV=dev
export MITHUB_HTTP_ADDR=${BENCH_HTTP_ADDR:-127.0.0.1:18180}
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_API_KEY=dev-key
export MITHUB_LOG_LEVEL=warn
# The COPY side uses one connection per meeting; give the API the same.
export MITHUB_DATABASE_MAX_CONNS=20

trap stop_api EXIT
mkdir -p tmp
start_api tmp/bench-agent-api.log
bin/mithub-lab bench-ingest "$@"
