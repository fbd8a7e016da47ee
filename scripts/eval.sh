#!/usr/bin/env bash
# Scores topic segmentation, turn search and answers (ROUGE-1/2/L F1
# against the reference answers) on QMSum beside baselines
# (Markdown on stdout, JSON in tmp/eval.json): starts agent-api on a
# fresh database with the configured provider (local by default) and runs
# `mithub-lab eval` over a split.
#
# Usage: scripts/eval.sh [--provider local|openai] [mithub-lab eval flags]
#   --provider openai measures any OpenAI-compatible chat model: agent-api
#   runs with MITHUB_LLM_PROVIDER=openai and the MITHUB_LLM_BASE_URL,
#   MITHUB_LLM_MODEL and MITHUB_LLM_API_KEY of the environment (embeddings
#   stay local unless MITHUB_EMBED_PROVIDER says otherwise). The default is
#   MITHUB_LLM_PROVIDER, else local.
#
# Environment:
#   EVAL_SPLIT   QMSum split directory under the data dir (default: val)
#   EVAL_LIMIT   evaluate at most N meetings (default: all)
#   MITHUB_QMSUM_DIR  QMSum data directory (default: ../shared/data/qmsum)
# The run fails, with no figures, when a meeting ends with no topics or
# with turns still pending after the settle bound (--settle, default 5m).
set -euo pipefail
SCRIPT_NAME=eval
cd "$(dirname "$0")/.."
. scripts/lib.sh

provider=${MITHUB_LLM_PROVIDER:-local}
if [ "${1:-}" = "--provider" ]; then
  [ $# -ge 2 ] || die "--provider needs a value: local or openai"
  provider=$2
  shift 2
fi
case "$provider" in
  local) ;;
  openai)
    [ -n "${MITHUB_LLM_BASE_URL:-}" ] || die "--provider openai needs MITHUB_LLM_BASE_URL (an OpenAI-compatible server, e.g. https://api.openai.com/v1)"
    [ -n "${MITHUB_LLM_MODEL:-}" ] || die "--provider openai needs MITHUB_LLM_MODEL"
    ;;
  *) die "--provider must be local or openai, not $provider" ;;
esac
export MITHUB_LLM_PROVIDER=$provider
export MITHUB_EMBED_PROVIDER=${MITHUB_EMBED_PROVIDER:-local}

data=$(need_qmsum "${EVAL_SPLIT:-val}")
db=${EVAL_DB:-mithub_eval}
ensure_database "$db" fresh
export MITHUB_ENV=dev
export MITHUB_HTTP_ADDR=${EVAL_HTTP_ADDR:-127.0.0.1:18181}
export MITHUB_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export MITHUB_API_URL="http://$MITHUB_HTTP_ADDR"
export MITHUB_API_KEY=dev-key
export MITHUB_LOG_LEVEL=${MITHUB_LOG_LEVEL:-warn}
trap stop_api EXIT
mkdir -p tmp
start_api tmp/eval-agent-api.log
bin/mithub-lab eval "$data/${EVAL_SPLIT:-val}" --limit "${EVAL_LIMIT:-0}" "$@"
