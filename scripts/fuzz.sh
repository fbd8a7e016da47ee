#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzXxx in a _test.go file) of the
# workspace, one at a time, each for FUZZTIME. Seeds are the committed
# corpora under each package's testdata/fuzz/FuzzXxx/; inputs that make a
# target fail are written there too, to be committed as regressions once
# the bug is fixed.
#
# Usage: scripts/fuzz.sh [REGEX]   only targets whose name matches REGEX
#
# Environment:
#   FUZZTIME                  time per target (default 30s; any go test -fuzztime value)
#   FUZZMINIMIZETIME          time spent shrinking each new or failing input (default 5s; go
#                             test's own default of 60s would eat short runs)
#   MITHUB_TEST_DATABASE_URL  for targets that use PostgreSQL (FuzzPostUtterances)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRIPT_NAME=fuzz
source scripts/lib.sh

fuzztime=${FUZZTIME:-30s}
filter=${1:-.}
failed=()
ran=0
# Every directory with a fuzz target; go test runs it as a package path.
while IFS= read -r dir; do
  while IFS= read -r target; do
    [[ $target =~ $filter ]] || continue
    log "$dir $target ($fuzztime)"
    ran=$((ran + 1))
    # -parallel 2: the machine has two cores.
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" \
      -fuzzminimizetime "${FUZZMINIMIZETIME:-5s}" -parallel 2 "./$dir"; then
      failed+=("$dir $target")
    fi
  done < <(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort -u)
done < <(grep -rl --include='*_test.go' '^func Fuzz' pkg services | xargs -n1 dirname | sort -u)

log "$ran targets run"
if ((${#failed[@]} > 0)); then
  printf '%s\n' "${failed[@]}" >&2
  die "${#failed[@]} target(s) failed; the failing inputs are under their testdata/fuzz/"
fi
