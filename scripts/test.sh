#!/usr/bin/env bash
# The full test suite: go vet, then go test with the race detector across
# every module, against the PostgreSQL and Redis that dev-up.sh provides.
#
# Environment:
#   MITHUB_TEST_DATABASE_URL  test database (default: postgres://postgres@127.0.0.1:5432/mithub_test?sslmode=disable);
#                             each test works in its own schema
#   TEST_FLAGS                extra flags for go test (e.g. -run Ingest)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=github.com/mithub/mithub/...
go vet "$modules"
# Two cores: two packages at a time.
go test -race -p 2 -count=1 -timeout 25m ${TEST_FLAGS:-} "$modules"
