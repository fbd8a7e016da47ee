#!/usr/bin/env bash
# Long-conversation memory figures: 100K- and 1M-token conversations (QMSum
# transcripts concatenated) compressed to 10% of a 128K window through the
# memory:summarize / memory:merge Asynq tasks (an in-process worker with the
# pr-worker handler, 20 in flight): wall time, levels, final tokens, ratio.
#   1. the local provider;
#   2. an OpenAI-compatible server taking BENCH_LLM_DELAY (default 2s) per
#      call, 1M tokens, at 20 in flight and at BENCH_WIDE_IN_FLIGHT (32).
# BENCH_MEMORY_SLOW=0 skips run 2 (it takes minutes).
set -euo pipefail
SCRIPT_NAME=bench-memory
cd "$(dirname "$0")/.."
. scripts/lib.sh

db=${BENCH_DB:-mithub_bench_memory}
ensure_database "$db" fresh
url="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
redis=${MITHUB_REDIS_URL:-redis://127.0.0.1:6379/0}

log "local provider: 100K and 1M tokens"
bin/mithub-lab bench-memory --database-url "$url" --redis-url "$redis" --sizes 100000,1000000 --in-flight 20 "$@"

if [ "${BENCH_MEMORY_SLOW:-1}" != 0 ]; then
  delay=${BENCH_LLM_DELAY:-2s}
  log "OpenAI-compatible server, $delay per call: 1M tokens, 20 in flight"
  bin/mithub-lab bench-memory --database-url "$url" --redis-url "$redis" --sizes 1000000 --in-flight 20 --llm-delay "$delay" "$@"
  wide=${BENCH_WIDE_IN_FLIGHT:-32}
  log "OpenAI-compatible server, $delay per call: 1M tokens, $wide in flight"
  bin/mithub-lab bench-memory --database-url "$url" --redis-url "$redis" --sizes 1000000 --in-flight "$wide" --llm-delay "$delay" "$@"
fi
