#!/usr/bin/env bash
# Soak: agent-api and pr-worker (local provider) on a fresh mithub_load
# database and Redis DB 13, driven by `mithub-lab load`: 200 meetings going
# at once, one utterance every 2 s each, a question every 30 s per meeting,
# for 10 minutes. A meeting ends after 60 utterances (2 minutes; the first
# ones sooner, so that endings spread over the run) and gets its PR, and a
# new one takes its place; after the run every meeting ends and gets its
# PR. agent-api drops a context idle for 2 minutes (MITHUB_CACHE_TTL). RSS
# of both services is sampled every 30 s. Fails on any failed request, on
# an utterance or PR lost or doubled, or on RSS growth of 10% or more after
# the 4-minute warm-up. Not part of CI (make soak).
#
#
# agent-api's Go heap is sampled from its /metrics at the same interval and
# reported after the RSS: heap in use, the live heap at the last collection
# (the next GC target × 100 / (100 + GOGC)) and the ask topic cache. RSS
# follows the heap's GC cycle; the live heap is what the process keeps.
#
# Environment: SOAK_MEETINGS (200), SOAK_RATE (2s), SOAK_DURATION (10m),
# SOAK_WARMUP (4m), SOAK_ASK_EVERY (30s), SOAK_MEETING_LENGTH (60; 0:
# meetings that grow for the whole run), SOAK_CACHE_TTL (2m), SOAK_OUT
# (tmp/soak.md), SOAK_DB (mithub_load), SOAK_HEAP_EVERY (30, seconds).
# Extra arguments go to mithub-lab load.
set -euo pipefail
SCRIPT_NAME=soak
cd "$(dirname "$0")/.."
. scripts/lib.sh

for b in agent-api pr-worker mithubctl mithub-lab; do
  [ -x bin/$b ] || die "bin/$b is missing: run make build first"
done
db=${SOAK_DB:-mithub_load}
out=${SOAK_OUT:-tmp/soak.md}
ensure_database "$db" fresh
redis-cli -n 13 FLUSHDB >/dev/null
export MITHUB_ENV=dev MITHUB_API_KEY=dev-key MITHUB_LOG_LEVEL=warn
export MITHUB_HTTP_ADDR=127.0.0.1:18680 MITHUB_WORKER_HTTP_ADDR=127.0.0.1:18681
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_REDIS_URL=redis://127.0.0.1:6379/13
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_LLM_PROVIDER=local MITHUB_EMBED_PROVIDER=local
export MITHUB_CACHE_TTL=${SOAK_CACHE_TTL:-2m}

heap_tsv=tmp/soak-heap.tsv
status_file=tmp/soak-status
heap_every=${SOAK_HEAP_EVERY:-30}
HEAP_PID=

# heap_sample appends one line to $heap_tsv: seconds since $1, then
# heap in use, the live heap at the last GC and the topic cache in bytes,
# then the load run's phase (from its status file).
heap_sample() {
  local m phase
  m=$(curl -fsS --max-time 5 "$MITHUB_API_URL/metrics" 2>/dev/null) || return 0
  phase=$(sed -n 's/^phase=//p' "$status_file" 2>/dev/null || true)
  printf '%s\n' "$m" | awk -v t=$(($(date +%s) - $1)) -v phase="${phase:-setup}" '
    $1 == "go_memstats_heap_inuse_bytes" { inuse = $2 }
    $1 == "go_memstats_next_gc_bytes" { next_gc = $2 }
    $1 == "go_gc_gogc_percent" { gogc = $2 }
    $1 == "mithub_ask_topic_cache_bytes" { topics = $2 }
    END {
      if (gogc <= 0) gogc = 100
      if (inuse > 0) printf "%d\t%.0f\t%.0f\t%.0f\t%s\n", t, inuse, next_gc * 100 / (100 + gogc), topics, phase
    }' >>"$heap_tsv"
}

seconds() {
  printf '%s\n' "$1" | awk '{
    s = 0; d = $0
    while (match(d, /^[0-9.]+(ms|h|m|s)/)) {
      v = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
      if (v ~ /ms$/) s += v / 1000; else if (v ~ /h$/) s += v * 3600; else if (v ~ /m$/) s += v * 60; else s += v
    }
    if (d != "") { print "bad"; exit }
    printf "%d\n", s
  }'
}

# heap_report prints the heap table and the live heap's growth from the
# first sample at or after the warm-up to the last one taken during the
# traffic.
heap_report() {
  local warm
  warm=$(seconds "${SOAK_WARMUP:-4m}")
  [ -s "$heap_tsv" ] || { echo; echo "agent-api heap: no sample could be read from /metrics."; return; }
  awk -F'\t' -v warm="$warm" '
    function mib(b) { return sprintf("%.1f", b / 1048576) }
    BEGIN {
      print ""
      print "agent-api Go heap (MiB) from /metrics: in use, live at the last GC, ask topic cache:"
      print ""
      print "| time | heap in use | live heap | topic cache | phase |"
      print "|---|---:|---:|---:|---|"
    }
    {
      printf "| %d:%02d | %s | %s | %s | %s |\n", $1 / 60, $1 % 60, mib($2), mib($3), mib($4), $5
      if ($5 != "traffic") next
      if (base == "" && $1 >= warm) { base = $3; bt = $1 }
      last = $3; lt = $1
    }
    END {
      if (base > 0)
        printf "\nLive heap growth from the warm-up to the end of the traffic: %+.1f%% (%s → %s MiB, %d:%02d → %d:%02d).\n",
          100 * (last - base) / base, mib(base), mib(last), bt / 60, bt % 60, lt / 60, lt % 60
    }' "$heap_tsv"
}

cleanup() {
  if [ -n "$HEAP_PID" ]; then
    kill "$HEAP_PID" 2>/dev/null || true
  fi
  stop_worker
  stop_api
}
trap cleanup EXIT
mkdir -p tmp "$(dirname "$out")"
start_api tmp/soak-agent-api.log
start_worker tmp/soak-pr-worker.log

[ "$(seconds "${SOAK_WARMUP:-4m}")" != bad ] || die "SOAK_WARMUP=$SOAK_WARMUP is not a duration such as 2m"
: >"$heap_tsv"
t0=$(date +%s)
(
  while :; do
    heap_sample "$t0"
    sleep "$heap_every"
  done
) &
HEAP_PID=$!

status=0
bin/mithub-lab load --meetings "${SOAK_MEETINGS:-200}" --rate "${SOAK_RATE:-2s}" --duration "${SOAK_DURATION:-10m}" \
  --warmup "${SOAK_WARMUP:-4m}" --ask-every "${SOAK_ASK_EVERY:-30s}" --pr-at-end --label soak \
  --meeting-length "${SOAK_MEETING_LENGTH:-60}" \
  --proc "agent-api=$API_PID,pr-worker=$WORKER_PID" --rss-every 30s --database-url "$MITHUB_DATABASE_URL" \
  --status "$status_file" --max-errors 0 --max-rss-growth 10 --out "$out" "$@" || status=$?
kill "$HEAP_PID" 2>/dev/null || true
wait "$HEAP_PID" 2>/dev/null || true
HEAP_PID=
heap_sample "$t0"
heap_report | tee -a "$out"
exit "$status"
