# Shared helpers for the Makefile's scripts. Source it; do not run it.

log() { printf '%s: %s\n' "${SCRIPT_NAME:-mithub}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${SCRIPT_NAME:-mithub}" "$*" >&2; exit 1; }

# need_qmsum SPLIT: prints the QMSum data directory ($MITHUB_QMSUM_DIR, default
# ../shared/data/qmsum), or stops with a message when it has no SPLIT/ (train,
# val, test). Only evaluation, training and benchmarks need it; the demo and
# the tests use examples/meetings.
need_qmsum() {
  local dir=${MITHUB_QMSUM_DIR:-../shared/data/qmsum}
  [ -d "$dir/$1" ] || die "needs the QMSum meetings in $dir/$1: set MITHUB_QMSUM_DIR to the QMSum data directory (train/, val/, test/: one JSON file per meeting, from https://github.com/Yale-LILY/QMSum)"
  printf '%s\n' "$dir"
}

# ensure_database NAME [fresh]: creates the database on the local server;
# with "fresh", drops it first.
ensure_database() {
  local name=$1 fresh=${2:-}
  if [ "$fresh" = fresh ]; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null
  fi
  if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE \"$name\"" >/dev/null
  fi
}

# start_api LOGFILE: starts bin/agent-api in the background with the
# current environment and waits until /healthz answers. Sets API_PID.
start_api() {
  local logfile=$1 addr=${MITHUB_HTTP_ADDR:?MITHUB_HTTP_ADDR must be set}
  bin/agent-api >"$logfile" 2>&1 &
  API_PID=$!
  local i
  for i in $(seq 1 150); do
    if curl -fsS "http://$addr/healthz" >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$API_PID" 2>/dev/null; then
      cat "$logfile" >&2
      die "agent-api exited during start-up (log above)"
    fi
    sleep 0.2
  done
  cat "$logfile" >&2
  die "agent-api did not answer on http://$addr/healthz within 30s"
}

# stop_api: SIGTERM, then wait for the graceful shutdown.
stop_api() {
  if [ -n "${API_PID:-}" ] && kill -0 "$API_PID" 2>/dev/null; then
    kill -TERM "$API_PID"
    wait "$API_PID" || true
  fi
  API_PID=
}

# start_worker LOGFILE: starts bin/pr-worker in the background with the
# current environment (MITHUB_WORKER_HTTP_ADDR must be set) and waits until
# its /healthz answers. Sets WORKER_PID.
start_worker() {
  local logfile=$1 addr=${MITHUB_WORKER_HTTP_ADDR:?MITHUB_WORKER_HTTP_ADDR must be set}
  bin/pr-worker >"$logfile" 2>&1 &
  WORKER_PID=$!
  local i
  for i in $(seq 1 150); do
    if curl -fsS "http://$addr/healthz" >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$WORKER_PID" 2>/dev/null; then
      cat "$logfile" >&2
      die "pr-worker exited during start-up (log above)"
    fi
    sleep 0.2
  done
  cat "$logfile" >&2
  die "pr-worker did not answer on http://$addr/healthz within 30s"
}

# stop_worker: SIGTERM, then wait for the graceful shutdown.
stop_worker() {
  if [ -n "${WORKER_PID:-}" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
    kill -TERM "$WORKER_PID"
    wait "$WORKER_PID" || true
  fi
  WORKER_PID=
}
