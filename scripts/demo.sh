#!/usr/bin/env bash
# The demo: start agent-api, replay a real QMSum meeting into it through the
# API, print the meeting's live context, and stop cleanly.
#
# Environment:
#   DEMO_MEETING      QMSum file under the data dir (default: val/Bed002.json)
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
data=${MITHUB_QMSUM_DIR:-../shared/data/qmsum}
file="$data/${DEMO_MEETING:-val/Bed002.json}"
[ -f "$file" ] || die "meeting file $file not found (set MITHUB_QMSUM_DIR)"

if curl -fsS "$MITHUB_API_URL/healthz" >/dev/null 2>&1; then
  die "something already answers on $MITHUB_API_URL; stop it or set MITHUB_HTTP_ADDR"
fi

trap stop_api EXIT
mkdir -p tmp
log "starting agent-api on $MITHUB_HTTP_ADDR (log: tmp/demo-agent-api.log)"
start_api tmp/demo-agent-api.log

log "replaying $file"
meeting=$(bin/mithubctl replay --meeting-file "$file" --rate "${DEMO_RATE:-0}")
log "meeting $meeting"

echo
bin/mithubctl context --meeting "$meeting"
echo

stop_api
log "agent-api stopped cleanly"
