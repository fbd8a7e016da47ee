#!/usr/bin/env bash
# Context-engine figures with the local provider: per-utterance update,
# L1 chunk time, topic search at 30 topics and across 10,000 stored topics,
# heap per cached meeting.
set -euo pipefail
SCRIPT_NAME=bench-context
cd "$(dirname "$0")/.."
. scripts/lib.sh

db=${BENCH_DB:-mithub_bench_ctx}
ensure_database "$db" fresh
bin/mithub-lab bench-context --database-url "postgres://postgres@127.0.0.1:5432/$db?sslmode=disable" "$@"
