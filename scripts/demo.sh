#!/usr/bin/env bash
# The demo: start agent-api and pr-worker, replay a meeting into it through
# the API, print the meeting's live context, ask questions about it, end the
# meeting, generate its PR, and stop cleanly. It needs nothing outside the
# repository: the default meeting is examples/meetings/launch-review.jsonl.
#
# Environment:
#   DEMO_MEETING      the meeting to replay: a QMSum .json or a .jsonl file,
#                     as a path, or relative to MITHUB_QMSUM_DIR (for example
#                     val/Bed002.json); default examples/meetings/launch-review.jsonl
#   DEMO_QUESTION     the question to ask (default: the first two queries of
#                     a .jsonl file's NAME.annotations.json, or a QMSum
#                     meeting's first specific query)
#   DEMO_RATE         replay rate in utterances/s (default: 0, as fast as possible)
#   DEMO_STARTED_AT   when the replayed meeting started, RFC 3339 (default: 09:00 UTC
#                     on a .jsonl file's NAME.annotations.json date, else now); due
#                     dates and the PR's date count from it
#   MITHUB_HTTP_ADDR  where agent-api listens (default: 127.0.0.1:8080)
#   MITHUB_QMSUM_DIR  QMSum data, only for DEMO_MEETING (default: ../shared/data/qmsum)
set -euo pipefail
SCRIPT_NAME=demo
cd "$(dirname "$0")/.."
. scripts/lib.sh

export MITHUB_ENV=dev
export MITHUB_HTTP_ADDR=${MITHUB_HTTP_ADDR:-127.0.0.1:8080}
export MITHUB_DATABASE_URL=${MITHUB_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable}
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_API_KEY=dev-key
export MITHUB_WORKER_HTTP_ADDR=${MITHUB_WORKER_HTTP_ADDR:-127.0.0.1:8081}
meeting_arg=${DEMO_MEETING:-examples/meetings/launch-review.jsonl}
if [ -f "$meeting_arg" ]; then
  file=$meeting_arg
else
  data=${MITHUB_QMSUM_DIR:-../shared/data/qmsum}
  file="$data/$meeting_arg"
  [ -f "$file" ] || die "DEMO_MEETING=$meeting_arg: neither a file nor one under MITHUB_QMSUM_DIR ($data); unset DEMO_MEETING for the example meeting, or point MITHUB_QMSUM_DIR at the QMSum data"
fi

if curl -fsS "$MITHUB_API_URL/healthz" >/dev/null 2>&1; then
  die "something already answers on $MITHUB_API_URL; stop it or set MITHUB_HTTP_ADDR"
fi

trap 'stop_worker; stop_api' EXIT
mkdir -p tmp
log "starting agent-api on $MITHUB_HTTP_ADDR (log: tmp/demo-agent-api.log)"
start_api tmp/demo-agent-api.log
log "starting pr-worker (log: tmp/demo-pr-worker.log)"
start_worker tmp/demo-pr-worker.log

# A recorded meeting keeps its date, so that "next Tuesday" and "3월 13일
# 금요일" resolve on its calendar (the annotations give the day only).
started_at=${DEMO_STARTED_AT:-}
if [ -z "$started_at" ] && [[ $file == *.jsonl ]] && [ -f "${file%.jsonl}.annotations.json" ]; then
  day=$(awk -F'"' '/^  "date":/ { print $4; exit }' "${file%.jsonl}.annotations.json")
  [ -z "$day" ] || started_at="${day}T09:00:00Z"
fi
log "replaying $file${started_at:+ (started $started_at)}"
meeting=$(bin/mithubctl replay --meeting-file "$file" --rate "${DEMO_RATE:-0}" ${started_at:+--started-at "$started_at"})
log "meeting $meeting"

echo
bin/mithubctl context --meeting "$meeting"
echo

# The questions (awk, not jq: a fresh machine has no jq): an annotated
# JSONL meeting's first two queries (launch-review: one English, one
# Korean), a QMSum meeting's first specific query.
questions=()
if [ -n "${DEMO_QUESTION:-}" ]; then
  questions=("$DEMO_QUESTION")
else
  case $file in
    *.jsonl) annotations=${file%.jsonl}.annotations.json
      if [ -f "$annotations" ]; then
        mapfile -t questions < <(awk '/"query":/ { sub(/.*"query": *"/, ""); sub(/",? *$/, ""); print; if (++n == 2) exit }' "$annotations")
      fi ;;
    *) mapfile -t questions < <(awk '/"specific_query_list"/ { s = 1 }
      s && /"query":/ { sub(/.*"query": *"/, ""); sub(/",? *$/, ""); print; exit }' "$file") ;;
  esac
fi
[ ${#questions[@]} -gt 0 ] || questions=("What did the group decide?")
for question in "${questions[@]}"; do
  log "asking: $question"
  echo
  bin/mithubctl ask --meeting "$meeting" --question "$question"
  echo
done

log "ending the meeting and generating its PR"
curl -fsS -X POST -H "Authorization: Bearer $MITHUB_API_KEY" "$MITHUB_API_URL/v1/meetings/$meeting/end" >/dev/null
echo
bin/mithubctl pr --meeting "$meeting"
echo

stop_worker
stop_api
log "agent-api and pr-worker stopped cleanly"
