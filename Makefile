# MitHub. `make demo` runs a meeting end to end; `make test` runs the suite.
SHELL := /bin/bash
GO ?= go
MODULES := github.com/mithub/mithub/...
SERVICES := agent-api realtime-worker pr-worker mithubctl

.PHONY: all build demo test vet fmt migrate proto dev-up bench bench-ingest bench-context bench-ask bench-go eval clean help

all: build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build bin/agent-api, bin/realtime-worker, bin/pr-worker, bin/mithubctl
	@mkdir -p bin
	@for s in $(SERVICES); do \
		$(GO) build -o bin/$$s ./services/$$s/cmd/$$s || exit 1; \
	done

dev-up: ## make PostgreSQL and Redis reachable on 127.0.0.1 (installs them if missing)
	@bash scripts/dev-up.sh

demo: dev-up build ## replay a QMSum meeting through agent-api and print its context
	@bin/mithubctl migrate
	@bash scripts/demo.sh

test: dev-up ## the full suite against real PostgreSQL and Redis
	@bash scripts/test.sh

vet: ## go vet every module
	$(GO) vet $(MODULES)

fmt: ## gofmt the tree
	gofmt -w pkg services deploy

migrate: dev-up build ## apply database migrations to MITHUB_DATABASE_URL
	bin/mithubctl migrate

proto: ## regenerate pkg/gen from proto/
	bash scripts/proto.sh

bench: bench-ingest bench-context bench-ask bench-go ## every benchmark

bench-ingest: dev-up build ## POST utterances vs raw pgx CopyFrom, utterances/s and ratio
	bash scripts/bench-ingest.sh

bench-context: dev-up build ## context engine: update, L1 chunk, search latencies, heap per meeting
	bash scripts/bench-context.sh

bench-ask: dev-up build ## ask path: time to first SSE token and context build, 100 meetings, 20 askers
	bash scripts/bench-ask.sh

eval: dev-up build ## topic segmentation (Pk, WindowDiff) and search recall@5 on QMSum val
	bash scripts/eval.sh

bench-go: dev-up ## Go benchmarks (go test -bench)
	$(GO) test -run '^$$' -bench . -benchmem $(MODULES)

clean: ## remove build outputs
	rm -rf bin tmp test-output
