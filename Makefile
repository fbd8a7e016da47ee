# MitHub. `make demo` runs a meeting end to end; `make test` runs the suite. Both need
# nothing outside the repository; eval, train and bench targets read the QMSum data
# from MITHUB_QMSUM_DIR (default ../shared/data/qmsum).
SHELL := /bin/bash
GO ?= go
MODULES := github.com/mithub/mithub/...
# Binaries: each cmd/NAME directory builds bin/NAME.
CMDS := services/agent-api/cmd/agent-api services/realtime-worker/cmd/realtime-worker \
	services/pr-worker/cmd/pr-worker services/mithubctl/cmd/mithubctl services/mithubctl/cmd/mithub-lab

.PHONY: all build demo test vet fmt migrate proto dev-up bench bench-ingest bench-context bench-ask bench-memory bench-pr bench-realtime bench-stt bench-go test-mcp test-console eval train train-retrieval train-answers train-decisions train-headings eval-pr eval-memory security-check soak chaos fuzz vuln clean help

all: build

# $(call need_qmsum,SPLIT): stop with a message when the QMSum data
# ($$MITHUB_QMSUM_DIR, default ../shared/data/qmsum) has no SPLIT/.
need_qmsum = @d="$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}"; [ -d "$$d/$(1)" ] || { \
	echo "make $@: needs the QMSum meetings in $$d/$(1): set MITHUB_QMSUM_DIR to the QMSum data directory (train/, val/, test/: one JSON file per meeting, from https://github.com/Yale-LILY/QMSum)" >&2; exit 1; }

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build bin/agent-api, bin/realtime-worker, bin/pr-worker, bin/mithubctl, bin/mithub-lab (-trimpath: the build cache serves any clone)
	@mkdir -p bin
	@for c in $(CMDS); do \
		$(GO) build -trimpath -o bin/$${c##*/} ./$$c || exit 1; \
	done

dev-up: ## make PostgreSQL and Redis reachable on 127.0.0.1 (installs them if missing)
	@bash scripts/dev-up.sh

demo: dev-up build ## replay examples/meetings/launch-review.jsonl (DEMO_MEETING: another), print its context, ask two questions, generate and print its PR
	@bin/mithubctl migrate
	@bash scripts/demo.sh

test: dev-up build ## the full suite against real PostgreSQL, Redis and LiveKit, then the MCP TypeScript client test
	@bash scripts/test.sh

vet: ## go vet every module
	$(GO) vet $(MODULES)

fmt: ## gofmt the tree
	gofmt -w pkg services deploy

migrate: dev-up build ## apply database migrations to MITHUB_DATABASE_URL
	bin/mithubctl migrate

proto: ## regenerate pkg/gen from proto/
	bash scripts/proto.sh

bench: bench-ingest bench-context bench-ask bench-memory bench-pr bench-realtime bench-stt bench-go ## every benchmark

bench-ingest: dev-up build ## POST utterances vs raw pgx CopyFrom, utterances/s and ratio
	bash scripts/bench-ingest.sh

bench-context: dev-up build ## context engine: update, L1 chunk, search latencies, heap per meeting
	bash scripts/bench-context.sh

bench-ask: dev-up build ## ask path: time to first SSE token and context build, 100 meetings, 20 askers
	bash scripts/bench-ask.sh

bench-memory: dev-up build ## memory compression of 100K/1M-token QMSum conversations: local provider, and a 2 s/call LLM server
	bash scripts/bench-memory.sh

bench-pr: dev-up build ## generate-pr latency without the L1 wait, pr:generate PRs/min for 500-turn meetings (local provider)
	bash scripts/bench-pr.sh

bench-realtime: dev-up ## realtime worker: segment in the room -> Postgres -> context, wake word -> first answer chunk (real LiveKit)
	bash scripts/bench-realtime.sh

bench-stt: dev-up ## realtime worker's own speech-to-text: pocketsphinx WER, CPU per speaker, end of voice -> row (4 speakers), openai path (real LiveKit, espeak-ng voices)
	bash scripts/bench-stt.sh

test-mcp: dev-up build ## drive `mithubctl mcp` with the official MCP TypeScript SDK client (npm)
	bash scripts/test-mcp-client.sh

test-console: dev-up build ## the web console in Debian's Chromium (playwright-core from npm): replay, topics, ask, citations, PR; screenshots in test-output/console/
	bash scripts/test-console.sh

eval: dev-up build ## QMSum val through the API: segmentation (Pk, WindowDiff, boundary F1), turn search (recall@5/10/20, MRR) and answers (ROUGE-1/2/L F1, citing the span) beside baselines; Markdown + tmp/eval.json; then eval-memory
	bash scripts/eval.sh
	@$(MAKE) --no-print-directory eval-memory

train-retrieval: ## rebuild pkg/meetingctx/turnweights.json (turn search fusion weights) from QMSum train, deterministically
	$(call need_qmsum,train)
	$(GO) run ./services/mithubctl/cmd/mithub-lab train-retrieval "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/train" --out pkg/meetingctx/turnweights.json

train-answers: ## rebuild pkg/answer/answermodel.json (the local provider's extractive answer model) from QMSum train, deterministically
	$(call need_qmsum,train)
	$(GO) run ./services/mithubctl/cmd/mithub-lab train-answers "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/train" --out pkg/answer/answermodel.json

train-decisions: ## rebuild pkg/prdoc/decision_model.json (the local PR extractor's decision scorer) from QMSum train, deterministically
	$(call need_qmsum,train)
	$(GO) run ./services/mithubctl/cmd/mithub-lab train-decisions "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/train" --out pkg/prdoc/decision_model.json

train-headings: ## rebuild pkg/prdoc/headingwords.json (the agenda headings' word weights) from the QMSum train topic names, deterministically
	$(call need_qmsum,train)
	$(GO) run ./services/mithubctl/cmd/mithub-lab train-headings "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/train" --out pkg/prdoc/headingwords.json

eval-pr: build ## PR quality on QMSum val (local provider): agenda coverage of the annotated topics, decision recall beside baselines, items per meeting
	$(call need_qmsum,val)
	bin/mithub-lab eval-pr "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/val" --limit 100

eval-memory: dev-up build ## long-conversation memory: the MCP loop through `mithubctl mcp` over stdio, planted facts kept at 10% of a 32K window and found by search (50K/150K tokens of QMSum train filler) beside recent, last-10% and whole baselines; memory_search recall@10 on QMSum val beside BM25
	$(call need_qmsum,train)
	bin/mithub-lab eval-memory --mcp bin/mithubctl --sizes 50000,150000
	MITHUB_EVAL_SEARCH=1 $(GO) test -count=1 -run TestSearchRecallQMSum -v ./pkg/convmemory

train: ## rebuild the local provider's topic boundary model (pkg/segment/model/boundary.json) from the QMSum train split; deterministic
	$(call need_qmsum,train)
	$(GO) run ./pkg/segment/cmd/trainboundary -data "$${MITHUB_QMSUM_DIR:-../shared/data/qmsum}/train" -out pkg/segment/model/boundary.json

bench-go: dev-up ## Go benchmarks (go test -bench)
	$(GO) test -run '^$$' -bench . -benchmem $(MODULES)

soak: dev-up build ## 10-minute soak: 200 meetings, an utterance every 2 s each, asks, PRs; zero errors, RSS growth < 10% (not in CI)
	bash scripts/soak.sh

security-check: dev-up build ## nine attacks on a loopback deployment (prod + dev agent-api on one db, pr-worker, realtime-worker); Markdown table in tmp/security-check.md
	bash scripts/security-check.sh

chaos: dev-up build ## fault matrix on a private PostgreSQL, Redis and LiveKit: restarts, kill -9, LLM timeouts and garbage
	bash scripts/chaos.sh

fuzz: dev-up ## every Go fuzz target in turn, FUZZTIME each (default 30s); FUZZ=REGEX picks targets
	FUZZTIME=$${FUZZTIME:-30s} bash scripts/fuzz.sh "$${FUZZ:-.}"

vuln: ## govulncheck every module; MITHUB_VULNDB points at the vulnerability database when vuln.go.dev is unreachable
	bash scripts/vuln.sh

clean: ## remove build outputs
	rm -rf bin tmp test-output
