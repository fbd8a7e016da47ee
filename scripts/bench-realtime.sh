#!/usr/bin/env bash
# Realtime path with real components (LiveKit, agent-api with the local
# provider, PostgreSQL, Redis): final segment published in the room -> row
# in PostgreSQL -> in agent-api's context (p50/p99 over 1,000 segments), and
# wake-word segment -> first lk.chat answer text and the legacy data packet.
set -euo pipefail
SCRIPT_NAME=bench-realtime
cd "$(dirname "$0")/.."
. scripts/lib.sh

db=${BENCH_DB:-mithub_bench_rt}
ensure_database "$db" fresh
MITHUB_TEST_LIVEKIT_BIN=${MITHUB_TEST_LIVEKIT_BIN:-$(bash scripts/livekit.sh)}
export MITHUB_TEST_LIVEKIT_BIN
go run ./services/realtime-worker/internal/benchrt \
  --database-url "postgres://postgres@127.0.0.1:5432/$db?sslmode=disable" "$@"
