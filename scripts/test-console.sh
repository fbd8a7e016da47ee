#!/usr/bin/env bash
# Browser test of the web console: Debian's Chromium, driven by
# playwright-core (scripts/console-test, pinned in its package-lock.json),
# against a real agent-api and pr-worker on a fresh database. The test signs
# in with a key made by `mithubctl apikey create`, replays a meeting
# (examples/meetings/launch-review.jsonl) with `mithubctl replay` while the meeting view is open, watches the
# transcript stream in and topics appear, asks a question and follows a
# citation, catches up, ends the meeting, generates and approves its PR,
# reads the memory bank and searches; imports a WebVTT file (again, and a
# malformed one) through the meetings page; registers a webhook on the
# webhooks page for a receiver in the test, which checks the signed
# deliveries, rotates its secret and deletes it; at 1280 px and at phone
# width (375 px).
# Screenshots go to test-output/console/ (ignored by git).
#
# Installs what is missing: Debian's chromium and a Korean font
# (fonts-nanum) when run as root, and the npm packages (npm ci, served from
# the npm cache when it has them).
#
# Environment:
#   CONSOLE_MEETING   the meeting: a .jsonl or QMSum .json file, as a path or
#                     under MITHUB_QMSUM_DIR (default: examples/meetings/launch-review.jsonl)
#   CONSOLE_QUESTION  the question asked in the console (default: the
#                     example meeting's first annotated question)
#   CONSOLE_RATE      replay rate in utterances/s (default: 60)
#   MITHUB_QMSUM_DIR  QMSum data, only for CONSOLE_MEETING (default: ../shared/data/qmsum)
#   MITHUB_CHROMIUM   the browser (default: /usr/bin/chromium)
set -euo pipefail
SCRIPT_NAME=test-console
cd "$(dirname "$0")/.."
. scripts/lib.sh

api_addr=127.0.0.1:18480
worker_addr=127.0.0.1:18481
db=mithub_console
redis_db=11
chromium=${MITHUB_CHROMIUM:-/usr/bin/chromium}
file=${CONSOLE_MEETING:-examples/meetings/launch-review.jsonl}
if [ ! -f "$file" ]; then
  file="${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/$file"
  [ -f "$file" ] || die "CONSOLE_MEETING=$CONSOLE_MEETING: neither a file nor one under MITHUB_QMSUM_DIR"
fi
file=$(realpath "$file")
[ -x bin/agent-api ] && [ -x bin/pr-worker ] && [ -x bin/mithubctl ] || die "run make build first"
command -v node >/dev/null || die "node (>= 20) is needed"

# The browser and a font with Hangul, from Debian.
missing=()
[ -x "$chromium" ] || missing+=(chromium)
if ! command -v fc-list >/dev/null || [ -z "$(fc-list :lang=ko family 2>/dev/null)" ]; then
  missing+=(fonts-nanum)
fi
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: run as root, or apt-get install -y ${missing[*]}"
  log "installing ${missing[*]} (apt-get)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -x "$chromium" ] || die "$chromium is still missing"

# playwright-core at the version the lock file pins.
pinned=$(node -p "require('./scripts/console-test/package-lock.json').packages['node_modules/playwright-core'].version")
installed=$(node -p "try { require('./scripts/console-test/node_modules/playwright-core/package.json').version } catch { '' }")
if [ "$installed" != "$pinned" ]; then
  log "installing playwright-core $pinned (npm ci)"
  (cd scripts/console-test && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
fi

if curl -fsS "http://$api_addr/healthz" >/dev/null 2>&1 || curl -fsS "http://$worker_addr/healthz" >/dev/null 2>&1; then
  die "something already answers on $api_addr or $worker_addr; stop it first"
fi

ensure_database "$db" fresh
redis-cli -n "$redis_db" flushdb >/dev/null
export MITHUB_ENV=prod
# The replay posts on the same key as the browser; prod's default per-key
# limit (20 requests/s) is meant for clients, not a 60 utterances/s replay.
export MITHUB_RATE_LIMIT_RPS=${MITHUB_RATE_LIMIT_RPS:-1000}
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_REDIS_URL="redis://127.0.0.1:6379/$redis_db"
export MITHUB_HTTP_ADDR=$api_addr
export MITHUB_WORKER_HTTP_ADDR=$worker_addr
export MITHUB_API_URL="http://$api_addr"
export MITHUB_LLM_PROVIDER=local
export MITHUB_EMBED_PROVIDER=local
# The test's webhook receiver listens on loopback, which webhooks may only
# target when private addresses are allowed (agent-api checks the URL,
# pr-worker every connection).
export MITHUB_WEBHOOK_ALLOW_PRIVATE=1

mkdir -p tmp test-output/console
rm -f test-output/console/*.png
trap 'stop_worker; stop_api' EXIT
log "starting agent-api on $api_addr (log: tmp/console-agent-api.log)"
start_api tmp/console-agent-api.log
log "starting pr-worker on $worker_addr (log: tmp/console-pr-worker.log)"
start_worker tmp/console-pr-worker.log

MITHUB_API_KEY=$(bin/mithubctl apikey create --tenant console --name console-test)
export MITHUB_API_KEY
export CONSOLE_URL="http://$api_addr"
export MITHUBCTL="$PWD/bin/mithubctl"
export MEETING_FILE=$file
export REPLAY_RATE=${CONSOLE_RATE:-60}
export QUESTION=${CONSOLE_QUESTION:-What crash-free rate must both platforms reach before the rollout goes beyond 25 percent?}
export SCREENSHOT_DIR="$PWD/test-output/console"
export CHROMIUM=$chromium
log "driving $chromium ($(basename "$file"))"
node scripts/console-test/console.test.mjs

stop_worker
stop_api
log "screenshots in test-output/console/"
