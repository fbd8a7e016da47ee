#!/usr/bin/env bash
# Re-runs nine attacks (the hardening list in docs/security.md) against a deployment on loopback: a dev
# agent-api uses a fresh database first (so dev-key is stored), then a prod
# agent-api (file descriptors limited to 1024), pr-worker and a prod
# realtime-worker run on private ports with a private redis-server, and
# `mithubctl security-check` prints a Markdown table (row, check, result,
# evidence) to stdout and tmp/security-check.md. Bounded: every check has
# a request budget and a time limit (in all well under 30 minutes).
# SECURITY_CHECK_ARGS adds flags (e.g. "--rows 3,4 --pr-turns 50000").
set -euo pipefail
SCRIPT_NAME=security-check
cd "$(dirname "$0")/.."
. scripts/lib.sh

command -v redis-server >/dev/null || die "redis-server not found (scripts/dev-up.sh installs it)"
db=${SECURITY_CHECK_DB:-mithub_security_check}
redis_port=${SECURITY_CHECK_REDIS_PORT:-16479}
api_addr=127.0.0.1:18481
dev_addr=127.0.0.1:18480
worker_addr=127.0.0.1:18491
rt_addr=127.0.0.1:18490
lk_key=probe-livekit-key
lk_secret=probe-livekit-secret-$(date +%s%N)
mkdir -p tmp
ensure_database "$db" fresh
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export MITHUB_LLM_PROVIDER=local

REDIS_PID= RT_PID=
cleanup() {
  stop_api
  stop_worker
  for pid in $RT_PID $REDIS_PID; do
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  done
}
trap cleanup EXIT

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >tmp/security-check-redis.log 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 50); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  kill -0 "$REDIS_PID" 2>/dev/null || die "redis-server exited (tmp/security-check-redis.log)"
  sleep 0.1
done

# A dev process uses the database: it stores tenant dev with dev-key.
log "dev agent-api on $dev_addr (stores dev-key), then stopped"
MITHUB_ENV=dev MITHUB_HTTP_ADDR=$dev_addr start_api tmp/security-check-dev-api.log
stop_api

log "prod agent-api on $api_addr (ulimit -n 1024), pr-worker on $worker_addr"
export MITHUB_ENV=prod
(ulimit -n 1024; MITHUB_HTTP_ADDR=$api_addr exec bin/agent-api) >tmp/security-check-api.log 2>&1 &
API_PID=$!
for i in $(seq 1 150); do
  curl -fsS "http://$api_addr/healthz" >/dev/null 2>&1 && break
  kill -0 "$API_PID" 2>/dev/null || { cat tmp/security-check-api.log >&2; die "agent-api exited during start-up"; }
  [ "$i" = 150 ] && die "agent-api did not answer within 30s"
  sleep 0.2
done
MITHUB_WORKER_HTTP_ADDR=$worker_addr start_worker tmp/security-check-pr-worker.log

rt_key=$(bin/mithubctl apikey create --tenant security-check-rt --name realtime-worker)
log "prod realtime-worker on $rt_addr"
MITHUB_API_URL="http://$api_addr" MITHUB_API_KEY=$rt_key MITHUB_LIVEKIT_API_KEY=$lk_key \
  MITHUB_LIVEKIT_API_SECRET=$lk_secret MITHUB_WORKER_HTTP_ADDR=$rt_addr \
  bin/realtime-worker >tmp/security-check-realtime.log 2>&1 &
RT_PID=$!
for i in $(seq 1 150); do
  curl -sS -o /dev/null "http://$rt_addr/healthz" 2>/dev/null && break
  kill -0 "$RT_PID" 2>/dev/null || { cat tmp/security-check-realtime.log >&2; die "realtime-worker exited during start-up"; }
  [ "$i" = 150 ] && die "realtime-worker did not answer within 30s"
  sleep 0.2
done

status=0
# shellcheck disable=SC2086
MITHUB_API_URL="http://$api_addr" bin/mithubctl security-check \
  --api-url "http://$api_addr" --api-log tmp/security-check-api.log \
  --realtime-url "http://$rt_addr" --livekit-key "$lk_key" --livekit-secret "$lk_secret" \
  --realtime-bin bin/realtime-worker --pr-worker-pid "$WORKER_PID" \
  ${SECURITY_CHECK_ARGS:-} | tee tmp/security-check.md || status=$?
if ! kill -0 "$API_PID" 2>/dev/null; then
  log "agent-api is no longer running; the end of its log:"
  tail -5 tmp/security-check-api.log >&2
fi
exit "$status"
