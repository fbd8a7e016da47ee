#!/usr/bin/env bash
# The demo: start agent-api and pr-worker, replay a real QMSum meeting into
# it through the API, print the meeting's live context, ask one of the
# meeting's annotated questions, end the meeting, generate its PR, and stop
# cleanly.
#
# Environment:
#   DEMO_MEETING      QMSum file under the data dir (default: val/Bed002.json)
#   DEMO_QUESTION     the question to ask (default: the meeting's first
#                     specific query in the QMSum annotations)
#   DEMO_RATE         replay rate in utterances/s (default: 0, as fast as possible)
#   MITHUB_HTTP_ADDR  where agent-api listens (default: 127.0.0.1:8080)
#   MITHUB_QMSUM_DIR  QMSum data (default: ../shared/data/qmsum)
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
data=${MITHUB_QMSUM_DIR:-../shared/data/qmsum}
file="$data/${DEMO_MEETING:-val/Bed002.json}"
[ -f "$file" ] || die "meeting file $file not found (set MITHUB_QMSUM_DIR)"

if curl -fsS "$MITHUB_API_URL/healthz" >/dev/null 2>&1; then
  die "something already answers on $MITHUB_API_URL; stop it or set MITHUB_HTTP_ADDR"
fi

trap 'stop_worker; stop_api' EXIT
mkdir -p tmp
log "starting agent-api on $MITHUB_HTTP_ADDR (log: tmp/demo-agent-api.log)"
start_api tmp/demo-agent-api.log
log "starting pr-worker (log: tmp/demo-pr-worker.log)"
start_worker tmp/demo-pr-worker.log

log "replaying $file"
meeting=$(bin/mithubctl replay --meeting-file "$file" --rate "${DEMO_RATE:-0}")
log "meeting $meeting"

echo
bin/mithubctl context --meeting "$meeting"
echo

# The meeting's first specific query from the QMSum annotations (awk: no
# jq on a fresh machine).
question=${DEMO_QUESTION:-$(awk '/"specific_query_list"/ { s = 1 }
  s && /"query":/ { sub(/.*"query": *"/, ""); sub(/",? *$/, ""); print; exit }' "$file")}
question=${question:-What did the group decide?}
log "asking: $question"
echo
bin/mithubctl ask --meeting "$meeting" --question "$question"
echo

log "ending the meeting and generating its PR"
curl -fsS -X POST -H "Authorization: Bearer $MITHUB_API_KEY" "$MITHUB_API_URL/v1/meetings/$meeting/end" >/dev/null
echo
bin/mithubctl pr --meeting "$meeting"
echo

stop_worker
stop_api
log "agent-api and pr-worker stopped cleanly"
