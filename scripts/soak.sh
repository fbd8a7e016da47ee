#!/usr/bin/env bash
# Soak: agent-api and pr-worker (local provider) on a fresh mithub_load
# database and Redis DB 13, driven by `mithubctl load`: 200 meetings, one
# utterance every 2 s each, a question every 30 s per meeting, for 10
# minutes; then every meeting ends and gets its PR. RSS of both services is
# sampled every 30 s. Fails on any failed request, on an utterance or PR
# lost or doubled, or on RSS growth of 10% or more after the 2-minute
# warm-up. Not part of CI (make soak).
#
# Environment: SOAK_MEETINGS (200), SOAK_RATE (2s), SOAK_DURATION (10m),
# SOAK_WARMUP (2m), SOAK_ASK_EVERY (30s), SOAK_OUT (tmp/soak.md), SOAK_DB
# (mithub_load). Extra arguments go to mithubctl load.
set -euo pipefail
SCRIPT_NAME=soak
cd "$(dirname "$0")/.."
. scripts/lib.sh

for b in agent-api pr-worker mithubctl; do
  [ -x bin/$b ] || die "bin/$b is missing: run make build first"
done
db=${SOAK_DB:-mithub_load}
out=${SOAK_OUT:-tmp/soak.md}
ensure_database "$db" fresh
redis-cli -n 13 FLUSHDB >/dev/null
export MITHUB_ENV=dev MITHUB_API_KEY=dev-key MITHUB_LOG_LEVEL=warn
export MITHUB_HTTP_ADDR=127.0.0.1:18580 MITHUB_WORKER_HTTP_ADDR=127.0.0.1:18581
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_REDIS_URL=redis://127.0.0.1:6379/13
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_LLM_PROVIDER=local MITHUB_EMBED_PROVIDER=local

cleanup() {
  stop_worker
  stop_api
}
trap cleanup EXIT
mkdir -p tmp "$(dirname "$out")"
start_api tmp/soak-agent-api.log
start_worker tmp/soak-pr-worker.log

bin/mithubctl load --meetings "${SOAK_MEETINGS:-200}" --rate "${SOAK_RATE:-2s}" --duration "${SOAK_DURATION:-10m}" \
  --warmup "${SOAK_WARMUP:-2m}" --ask-every "${SOAK_ASK_EVERY:-30s}" --pr-at-end --label soak \
  --proc "agent-api=$API_PID,pr-worker=$WORKER_PID" --rss-every 30s --database-url "$MITHUB_DATABASE_URL" \
  --max-errors 0 --max-rss-growth 10 --out "$out" "$@"
