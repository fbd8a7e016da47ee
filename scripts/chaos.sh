#!/usr/bin/env bash
# Fault matrix. Starts a private stack — its own PostgreSQL (initdb into a
# temporary directory, port 55432), its own redis-server (port 56379, AOF
# on), a LiveKit server (ports 17880-17882), a fake OpenAI-compatible chat
# server (bin/mithub-lab fake-llm, 17889), agent-api (18580), pr-worker
# (18581) and realtime-worker (18582) — so restarts never touch the
# machine's shared services. A speaker (services/realtime-worker/internal/
# chaospub) publishes a final transcription segment every 200 ms into a
# room the bot records for the whole run.
#
# Each scenario runs `mithub-lab load` (meetings posting the turns of
# examples/meetings/launch-review.jsonl, asking its annotated questions
# over SSE and asking for PRs; no outside data), injects one fault while that traffic is in
# flight, and then checks: every utterance acknowledged with a 2xx stored
# exactly once (segment ids and seqs in PostgreSQL), every PR id returned
# ends succeeded and no PR is built twice, every realtime segment published
# while the bot was in the room stored exactly once; recovery with no
# manual step; and the time from the fault's end (the faulty part started
# again, or the fault switched off) to the first success.
#
# Usage: scripts/chaos.sh [--quick] [--out FILE]
#   --quick  the scenarios that fit in CI (under 4 minutes), shorter traffic
#   --out    Markdown table (default tmp/chaos.md)
# Needs bin/ from `make build`. Exits non-zero when a scenario fails.
set -euo pipefail
SCRIPT_NAME=chaos
cd "$(dirname "$0")/.."
. scripts/lib.sh

quick=0
out=tmp/chaos.md
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --out) out=${2:?--out needs a file}; shift ;;
    *) die "unknown argument $1 (usage: scripts/chaos.sh [--quick] [--out FILE])" ;;
  esac
  shift
done

PG_PORT=55432 REDIS_PORT=56379 LK_PORT=17880 LK_TCP=17881 LK_UDP=17882
LLM_ADDR=127.0.0.1:17889 API_ADDR=127.0.0.1:18580 PRW_ADDR=127.0.0.1:18581 RTW_ADDR=127.0.0.1:18582
DB=mithub_chaos ROOM=chaos-room
if [ $quick = 1 ]; then
  MEETINGS=6 RATE=250ms DURATION=14s ASK_EVERY=2s PR_EVERY=5s OUTAGE=3
  SCENARIOS="postgres redis agent-api realtime-worker llm-timeout"
else
  MEETINGS=10 RATE=250ms DURATION=25s ASK_EVERY=2s PR_EVERY=6s OUTAGE=5
  SCENARIOS="postgres redis agent-api pr-worker realtime-worker-term llm-timeout llm-garbage realtime-worker"
fi
SCENARIOS=${CHAOS_SCENARIOS:-$SCENARIOS}
# RT_MIN_HEARD: the bot must store at least this many segments sent after
# the fault (10 is 2 s of the speaker's segments), so a bot that comes back
# and never stores again fails.
RT_MIN_HEARD=${CHAOS_RT_MIN_HEARD:-10}

for b in agent-api pr-worker realtime-worker mithubctl mithub-lab; do
  [ -x bin/$b ] || die "bin/$b is missing: run make build first"
done
command -v redis-server >/dev/null || die "redis-server not found (scripts/dev-up.sh installs it)"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
lkbin=${MITHUB_TEST_LIVEKIT_BIN:-$(bash scripts/livekit.sh)}

work=$(mktemp -d "${TMPDIR:-/tmp}/mithub-chaos.XXXXXX")
chmod 755 "$work"
mkdir -p tmp "$(dirname "$out")"
API_PID= PRW_PID= RTW_PID= REDIS_PID= LK_PID= LLM_PID= PUB_PID=
failed=0

# PostgreSQL refuses to run as root: run its tools as the postgres user then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
now_ms() { date +%s%3N; }
mark() { printf '%s %s\n' "$1" "$(now_ms)" >>"$marks"; }

# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds; 1 after the deadline.
wait_for() {
  local what=$1 secs=$2 deadline
  shift 2
  deadline=$(($(date +%s) + secs))
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "gave up after ${secs}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

stop_pid() { # NAME: SIGTERM the process in variable NAME, wait for it
  local pid=${!1:-}
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  printf -v "$1" ''
}

cleanup() {
  local rc=$?
  for v in PUB_PID RTW_PID PRW_PID API_PID LLM_PID LK_PID REDIS_PID; do stop_pid $v; done
  if [ -f "$work/pg/postmaster.pid" ]; then
    as_pg "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ $rc != 0 ] || [ $failed != 0 ]; then
    rm -rf tmp/chaos-logs && mkdir -p tmp/chaos-logs
    cp "$work"/*.log "$work"/*.md "$work"/*.sum "$work"/*.err "$work"/*.marks "$work"/*.heard "$work"/*.stored "$work"/rt.log tmp/chaos-logs/ 2>/dev/null || true
    log "logs in tmp/chaos-logs"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

http_ok() { curl -fs -o /dev/null --max-time 2 "$1"; }
redis_ping() { redis-cli -p $REDIS_PORT ping >/dev/null 2>&1; }
psql_chaos() { psql -h 127.0.0.1 -p $PG_PORT -U postgres -d $DB -tAqc "$1"; }

pg_start() {
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/postgres.log" -w -t 60 \
    -o "-p $PG_PORT -k $work/pgsock -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
}
redis_start() {
  redis-server --port $REDIS_PORT --bind 127.0.0.1 --dir "$work/redis" --appendonly yes --appendfsync always \
    --save "" >>"$work/redis.log" 2>&1 &
  REDIS_PID=$!
  wait_for "redis-server" 20 redis_ping
}
llm_mode() { curl -fsS -X PUT --data "$1" "http://$LLM_ADDR/mode" >/dev/null; }

export MITHUB_ENV=dev MITHUB_API_KEY=dev-key MITHUB_LOG_LEVEL=warn
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$DB?sslmode=disable"
export MITHUB_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export MITHUB_API_URL="http://$API_ADDR"
# Chat through the fake server, with a short per-attempt timeout so the
# timeout scenario settles within the run; embeddings stay local.
export MITHUB_LLM_PROVIDER=openai MITHUB_LLM_BASE_URL="http://$LLM_ADDR/v1" MITHUB_LLM_API_KEY=fake
export MITHUB_LLM_MODEL=gpt-4o-mini MITHUB_LLM_TIMEOUT=2s MITHUB_EMBED_PROVIDER=local

start_api_svc() {
  MITHUB_HTTP_ADDR=$API_ADDR bin/agent-api >>"$work/agent-api.log" 2>&1 &
  API_PID=$!
}
start_prw_svc() {
  MITHUB_WORKER_HTTP_ADDR=$PRW_ADDR bin/pr-worker >>"$work/pr-worker.log" 2>&1 &
  PRW_PID=$!
}
start_rtw_svc() {
  MITHUB_WORKER_HTTP_ADDR=$RTW_ADDR MITHUB_LIVEKIT_URL=ws://127.0.0.1:$LK_PORT MITHUB_WORKER_ROOMS=$ROOM \
    MITHUB_WORKER_SPOOL_DIR="$work/spool" MITHUB_LOG_LEVEL=info bin/realtime-worker >>"$work/realtime-worker.log" 2>&1 &
  RTW_PID=$!
}

# --- the stack ---------------------------------------------------------------
log "building the speaker (services/realtime-worker/internal/chaospub)"
go build -o "$work/chaospub" ./services/realtime-worker/internal/chaospub

mkdir -p "$work/pg" "$work/pgsock" "$work/redis" "$work/spool"
chmod 700 "$work/pg"
touch "$work/postgres.log"
if [ "$(id -u)" = 0 ]; then chown postgres "$work/pg" "$work/pgsock" "$work/postgres.log"; fi
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 --no-sync >"$work/initdb.log" 2>&1 ||
  { cat "$work/initdb.log" >&2; die "initdb failed"; }
pg_start
psql -h 127.0.0.1 -p $PG_PORT -U postgres -d postgres -qc "CREATE DATABASE $DB" >/dev/null
redis_start

"$lkbin" --dev --bind 127.0.0.1 --node-ip 127.0.0.1 --config-body \
  "$(printf 'port: %d\nlog_level: warn\nrtc:\n  tcp_port: %d\n  udp_port: %d\n  use_external_ip: false\n' $LK_PORT $LK_TCP $LK_UDP)" \
  >"$work/livekit.log" 2>&1 &
LK_PID=$!
wait_for "livekit-server" 30 http_ok "http://127.0.0.1:$LK_PORT" || die "livekit-server did not start (see $work/livekit.log)"

bin/mithub-lab fake-llm --addr $LLM_ADDR >"$work/fake-llm.log" 2>&1 &
LLM_PID=$!
wait_for "fake-llm" 20 http_ok "http://$LLM_ADDR/healthz" || die "fake-llm did not start"

start_api_svc
wait_for "agent-api" 60 http_ok "http://$API_ADDR/healthz" || die "agent-api did not start"
start_prw_svc
wait_for "pr-worker" 60 http_ok "http://$PRW_ADDR/healthz" || die "pr-worker did not start"

"$work/chaospub" --url ws://127.0.0.1:$LK_PORT --room $ROOM --log "$work/rt.log" 2>"$work/chaospub.log" &
PUB_PID=$!
wait_for "the speaker in the room" 30 grep -qs '^ready ' "$work/rt.log" || die "the speaker did not connect"
start_rtw_svc
wait_for "realtime-worker" 60 http_ok "http://$RTW_ADDR/healthz" || die "realtime-worker did not start"
wait_for "the bot in the room" 60 grep -qs '^bot joined ' "$work/rt.log" || die "the bot did not join $ROOM"
log "stack up in $work; scenarios: $SCENARIOS"

# --- faults (each writes fault_start and fault_end into $marks) ---------------
# The outage lengths below are the faults' parameters, not waits for
# something to happen.
fault_postgres() {
  mark fault_start
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null
  sleep "$OUTAGE"
  mark fault_end
  pg_start
}
fault_redis() {
  mark fault_start
  stop_pid REDIS_PID
  sleep "$OUTAGE"
  mark fault_end
  redis_start
}
fault_agent-api() {
  mark fault_start
  kill -9 "$API_PID"
  wait "$API_PID" 2>/dev/null || true
  mark fault_end
  start_api_svc
}
pr_running() { [ "$(psql_chaos "SELECT count(*) FROM pull_requests WHERE status = 'running'")" -gt 0 ]; }
fault_pr-worker() {
  # A slow model keeps PRs running long enough to kill the worker under one.
  llm_mode slow
  wait_for "a PR being built" 60 pr_running || true
  mark fault_start
  kill -9 "$PRW_PID"
  wait "$PRW_PID" 2>/dev/null || true
  mark fault_end
  start_prw_svc
  llm_mode ok
}
bot_back() { awk -v t="$kill_ms" '$1 == "bot" && $2 == "joined" && $3 > t { found = 1 } END { exit !found }' "$work/rt.log"; }
fault_realtime-worker() {
  mark fault_start
  kill_ms=$(now_ms) inflight_ms=1000
  kill -9 "$RTW_PID"
  wait "$RTW_PID" 2>/dev/null || true
  mark fault_end
  start_rtw_svc
  wait_for "the bot back in the room" 120 bot_back || true
}
fault_realtime-worker-term() {
  mark fault_start
  kill_ms=$(now_ms)
  stop_pid RTW_PID
  mark fault_end
  start_rtw_svc
  wait_for "the bot back in the room" 120 bot_back || true
}
fault_llm-timeout() {
  mark fault_start
  llm_mode timeout
  sleep $((OUTAGE * 2))
  mark fault_end
  llm_mode ok
}
fault_llm-garbage() {
  mark fault_start
  llm_mode garbage
  sleep $((OUTAGE * 2))
  mark fault_end
  llm_mode ok
}

traffic_flowing() {
  [ -f "$status" ] && grep -q '^phase=traffic$' "$status" &&
    [ "$(sed -n 's/^acked=//p' "$status")" -ge $((MEETINGS * 4)) ]
}

# rt_check T0 T1: realtime segments published in [T0, T1]. Heard: sent
# while the bot was in the room and receiving, that is after the first
# segment it stored since it (re)joined (LiveKit delivers nothing to a
# participant before its connection is up, and replays nothing later),
# and, for a stop or kill of the worker, not between the stop and the
# bot's return; and delivered into the room: the witness participant got
# it with its text (one it did not get, or got empty, never fully left the
# publisher or the server, and counts as not heard). For a kill -9, segments sent in the second before
# it were in flight to or inside the dying bot: they are counted apart.
# Heard after the fault: heard and sent after the fault's end and, for a
# stop or kill, after the bot's return. The tolerated window is the time
# whose segments may go unstored: in flight before a kill, from the stop or
# kill to the bot's return, and from its return to the first segment it
# stored. Sets rt_heard rt_stored rt_missing rt_inflight_lost rt_doubled
# rt_unheard rt_heard_after rt_rejoin rt_tolerated.
rt_stored_ids() {
  psql_chaos "SELECT t.segment_id FROM transcripts t JOIN meetings m ON m.id = t.meeting_id
              WHERE m.room_name = '$ROOM' ORDER BY 1" >"$rt_stored_file"
}
rt_has() { rt_stored_ids && grep -qx "$1" "$rt_stored_file"; }
rt_check() {
  local t0=$1 t1=$2 back=0 after last counts first
  rt_rejoin=– rt_tolerated=–
  if [ -n "${kill_ms:-}" ]; then
    back=$(awk -v t="$kill_ms" '$1 == "bot" && $2 == "joined" && $3 > t { print $3; exit }' "$work/rt.log")
    if [ -n "$back" ]; then
      rt_rejoin=$(fmt_ms $((back - kill_ms)))
    else
      back=$t1 rt_rejoin="not back"
    fi
  fi
  after=$(awk '$1 == "fault_end" { t = $2 } END { print t }' "$marks")
  after=${after:-$t1}
  [ "$back" -le "$after" ] || after=$back
  # Writes go in order: once the last segment sent while the bot was
  # listed is stored (or a minute passed), the rest is in.
  last=$(awk -v t0="$t0" -v t1="$t1" '$1 == "seg" && $3 >= t0 && $3 <= t1 && $4 == 1 { id = $2 } END { print id }' "$work/rt.log")
  if [ -n "$last" ]; then wait_for "realtime segment $last stored" 60 rt_has "$last" || true; fi
  rt_stored_ids
  counts=$(awk -v t0="$t0" -v t1="$t1" -v k0="${kill_ms:-0}" -v k1="$back" -v pre="${inflight_ms:-0}" -v a0="$after" \
    -v stored="$rt_stored_file" -v heard="$rt_heard_file" -v rtlog="$work/rt.log" '
    BEGIN {
      while ((getline id < stored) > 0) have[id] = 1
      while ((getline line < rtlog) > 0) { split(line, f, " "); if (f[1] == "got" && f[4] > 0) got[f[2]] = 1 }
    }
    $1 == "bot" { receiving = 0; if ($2 == "joined" && k0 > 0 && $3 > k0) rejoined = 1; next }
    $1 != "seg" { next }
    have[$2] { if (rejoined && !first) first = $3; receiving = 1 }
    $3 < t0 || $3 > t1 { next }
    $4 == 1 && receiving && got[$2] && !(k0 > 0 && $3 >= k0 && $3 <= k1) {
      if (have[$2]) { n++; if ($3 > a0) after++; print $2 > heard } else if (k0 > 0 && $3 >= k0 - pre && $3 < k0) inflight++; else missing++
      next
    }
    { unheard++ }
    END { printf "%d %d %d %d %d %d\n", n + missing, missing, inflight, unheard, after, first }' "$work/rt.log")
  read -r rt_heard rt_missing rt_inflight_lost rt_unheard rt_heard_after first <<<"$counts"
  rt_stored=$((rt_heard - rt_missing))
  if [ -n "${kill_ms:-}" ]; then
    rt_tolerated="$(fmt_ms "${inflight_ms:-0}") in flight + $(fmt_ms $((back - kill_ms))) away + "
    if [ "$first" -gt 0 ]; then
      # The participant poll may list the bot a little after its first segment.
      rt_tolerated+="$(fmt_ms $((first > back ? first - back : 0))) to the first store"
    else
      rt_tolerated+="no store since"
    fi
  fi
  rt_doubled=$(psql_chaos "SELECT count(*) - count(DISTINCT t.segment_id) FROM transcripts t
                           JOIN meetings m ON m.id = t.meeting_id WHERE m.room_name = '$ROOM'")
}

fmt_ms() { # milliseconds or "none" -> "1.23 s"
  case $1 in
    none | '') printf 'none' ;;
    *) printf '%d.%02d s' $(($1 / 1000)) $((($1 % 1000) / 10)) ;;
  esac
}

rows=()
scenario() {
  local name=$1 t0 t1 load_rc=0 verdict=PASS why=()
  marks=$work/$name.marks status=$work/$name.status kill_ms= inflight_ms=0
  rt_heard_file=$work/$name.heard rt_stored_file=$work/$name.stored
  : >"$marks"
  rm -f "$status"
  log "scenario $name"
  t0=$(now_ms)
  bin/mithub-lab load --api-url "http://$API_ADDR" --api-key dev-key --meetings $MEETINGS --rate $RATE \
    --meeting-file examples/meetings/launch-review.jsonl \
    --duration $DURATION --ask-every $ASK_EVERY --pr-every $PR_EVERY --pr-at-end --request-timeout 15s \
    --settle-timeout 4m --label "chaos-$name" --database-url "$MITHUB_DATABASE_URL" \
    --marks "$marks" --status "$status" --summary "$work/$name.sum" \
    >"$work/$name.md" 2>"$work/$name.err" &
  local load_pid=$!
  if wait_for "traffic of $name" 60 traffic_flowing; then
    "fault_$name"
  else
    why+=("traffic never flowed")
  fi
  wait $load_pid || load_rc=$?
  t1=$(now_ms)
  rt_check "$t0" "$t1"

  local ok=false errors=? acked=? stored=? lost=? doubled=? prs_acked=? prs_succeeded=? prs_not_done=? prs_failed=?
  local prs_unacked_built=? recover_ms_utterances= recover_ms_ask= recover_ms_generate_pr= prs_in_flight=0 prs_done_after_ms=0
  local fault_errors_utterances=0 fault_errors_ask=0 fault_errors_generate_pr=0 error_kinds=?
  if [ -f "$work/$name.sum" ]; then
    while IFS='=' read -r k v; do
      case $k in [a-z_]*) printf -v "$k" '%s' "$v" ;; esac
    done <"$work/$name.sum"
  else
    why+=("load wrote no summary (rc $load_rc)")
  fi
  [ "$ok" = true ] || why+=("load check failed")
  [ "$recover_ms_utterances" != none ] || why+=("utterances never recovered")
  [ "$rt_missing" = 0 ] || why+=("$rt_missing realtime segments missing")
  [ "$rt_doubled" = 0 ] || why+=("$rt_doubled realtime segments doubled")
  [ "$rt_rejoin" != "not back" ] || why+=("the bot did not come back")
  [ "$rt_heard_after" -ge "$RT_MIN_HEARD" ] ||
    why+=("$rt_heard_after realtime segments heard after the fault, want at least $RT_MIN_HEARD")
  if [ ${#why[@]} -gt 0 ]; then
    verdict="FAIL: $(IFS=';'; echo "${why[*]}")"
    failed=1
  fi
  local inflight=–
  [ "$prs_in_flight" = 0 ] || inflight="$prs_in_flight, last $(fmt_ms "$prs_done_after_ms")"
  rows+=("| $name | $acked → $stored ($lost, $doubled) | $prs_acked → $prs_succeeded ($((prs_not_done + prs_failed)), $prs_unacked_built) | $((fault_errors_utterances + fault_errors_ask + fault_errors_generate_pr)) / $errors: $error_kinds | $(fmt_ms "$recover_ms_utterances") / $(fmt_ms "$recover_ms_ask") / $(fmt_ms "$recover_ms_generate_pr") | $inflight | $rt_heard → $rt_stored ($rt_missing, $rt_doubled); $rt_heard_after; $rt_inflight_lost; $rt_unheard | $rt_rejoin | $rt_tolerated | $verdict |")
  log "scenario $name: $verdict (realtime: $rt_heard_after heard after the fault; tolerated window: $rt_tolerated)"
}

for s in $SCENARIOS; do
  declare -F "fault_$s" >/dev/null || die "unknown scenario $s"
  scenario "$s"
done

{
  printf '%s: %d meetings × one utterance every %s for %s, a question every %s and generate-pr every %s per meeting, every meeting ended and its PR built at the end; one LiveKit speaker, a final segment every 200 ms. Outage %s s (LLM faults %s s).\n\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" $MEETINGS $RATE $DURATION $ASK_EVERY $PR_EVERY $OUTAGE $((OUTAGE * 2))
  echo '| fault | utterances acked → stored (lost, doubled) | PR ids → succeeded (lost, built twice) | failed requests: during the fault / in all: kinds | first success after the fault: post / ask / generate-pr | PRs in flight during the fault, done after | realtime heard → stored (missing, doubled); heard after the fault (at least '"$RT_MIN_HEARD"'); lost in flight at a kill -9; not heard | bot back after the kill | realtime loss tolerated around the stop or kill | result |'
  echo '|---|---|---|---|---|---|---|---|---|---|'
  printf '%s\n' "${rows[@]}"
} >"$out"
cat "$out"
exit $failed
