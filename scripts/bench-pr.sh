#!/usr/bin/env bash
# Measures POST /v1/meetings/{id}/generate-pr latency without the L1 wait
# and pr:generate throughput (PRs/min) for 500-turn meetings, local
# provider, on a fresh database and a private redis-server.
set -euo pipefail
SCRIPT_NAME=bench-pr
cd "$(dirname "$0")/.."
. scripts/lib.sh

command -v redis-server >/dev/null || die "redis-server not found (scripts/dev-up.sh installs it)"
db=${BENCH_DB:-mithub_bench_pr}
redis_port=${BENCH_REDIS_PORT:-16399}
ensure_database "$db" fresh
export MITHUB_ENV=dev
export MITHUB_HTTP_ADDR=${BENCH_HTTP_ADDR:-127.0.0.1:18182}
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_API_KEY=dev-key
export MITHUB_LOG_LEVEL=warn
export MITHUB_LLM_PROVIDER=local
export MITHUB_WORKER_HTTP_ADDR=${BENCH_WORKER_ADDR:-127.0.0.1:18192}

REDIS_PID= WORKER_PID=
cleanup() {
  stop_api
  if [ -n "$WORKER_PID" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
    kill -TERM "$WORKER_PID"; wait "$WORKER_PID" || true
  fi
  if [ -n "$REDIS_PID" ] && kill -0 "$REDIS_PID" 2>/dev/null; then
    kill -TERM "$REDIS_PID"; wait "$REDIS_PID" || true
  fi
}
trap cleanup EXIT
mkdir -p tmp

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >tmp/bench-pr-redis.log 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 50); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  kill -0 "$REDIS_PID" 2>/dev/null || die "redis-server exited (tmp/bench-pr-redis.log)"
  sleep 0.1
done

start_api tmp/bench-pr-agent-api.log
start_worker tmp/bench-pr-worker.log

bin/mithub-lab bench-pr "$@"
