# gputriage — see README.md. Every target works on a fresh machine with Go and
# (for the page tests) node/npm; `make test` installs Chromium itself when it
# is missing and it can (root + apt-get), and says what to do otherwise.
GO ?= go
DEFAULT_TRACE := testdata/default/sglang_Qwen3-8B_decode.json.gz

.PHONY: all build wasm run test test-go test-browser test-worker site serve worker bench bench-page fuzz clean chromium hostile-sweep

CHROMIUM ?= /usr/bin/chromium

all: build

build:
	$(GO) run ./build

wasm:
	$(GO) run ./build -wasm

# The main job on the embedded default input: a real MI300X SGLang decode trace.
# Prints the takeaways and where the artifacts are (the whole summary is
# out/default/profile_summary.md).
run: build
	@./bin/gputriage breakdown -q -o out/default $(DEFAULT_TRACE) > /dev/null
	@sed -n '/^## Takeaways/,/^## /{/^## [^T]/!p}' out/default/profile_summary.md
	@echo "Artifacts: out/default/ (profile_summary.md is the whole summary; artifacts.json lists every file)"

test: build test-go test-browser test-worker

test-go:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 40m ./...

# The page bundles SQLite's wasm build from npm (@sqlite.org/sqlite-wasm,
# pinned in package-lock.json): npm ci first.
site: build node_modules/.package-lock.json
	$(GO) run ./build -site

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

# make serve PORT=9000 serves on another port.
PORT ?= 8080
serve: site
	$(GO) run ./build -serve 127.0.0.1:$(PORT)

# The page tests drive the system Chromium (playwright-core, no download).
chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "make: installing Chromium (apt-get install chromium) for the page tests"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || exit 1; \
	else \
	  echo "make: the page tests need Chromium at $(CHROMIUM): install it (Debian/Ubuntu: sudo apt-get install chromium)" \
	       "or point CHROMIUM=/path/to/chromium at one" >&2; exit 1; \
	fi

test-browser: site chromium
	npm ci --no-audit --no-fund
	node site/test/tsv.mjs
	node site/test/split.mjs
	node site/test/pointers.mjs
	node site/test/spans.mjs
	CHROMIUM=$(CHROMIUM) node site/test/e2e.mjs

# The Cloudflare Worker (GOOS=js, syumai/workers): worker/out/.
worker: site
	$(GO) run ./worker/build

# Runs the Worker under the workerd binary from npm on 127.0.0.1 and compares
# its answers with the CLI's, byte for byte.
test-worker: worker
	cd worker && npm ci --no-audit --no-fund && node test/run.mjs

bench: build worker
	GPUTRIAGE_BENCH=1 $(GO) test -count=1 -timeout 60m -run TestBenchmarks -v ./cmd/gputriage

# The page's wall-clock targets judged strictly: the big trace's longest pause
# (the browser tests only print it) and the long-task bound (the tests assert
# 100 ms, scaled only on a heavily loaded machine).
bench-page: site chromium
	npm ci --no-audit --no-fund
	GPUTRIAGE_JUDGE_TIMING=1 node site/test/e2e.mjs "main-thread task"
	GPUTRIAGE_JUDGE_TIMING=1 node site/test/e2e.mjs "big generated trace"
	GPUTRIAGE_JUDGE_TIMING=1 node site/test/e2e.mjs "timeline bench"

# Issue 24's attacker sweep on all four hosts (tools/hostile/README.md):
# SCALE=N multiplies the structural sizes; the table goes to out/hostile/table.md.
SCALE ?= 1
hostile-sweep: site worker
	rm -rf out/hostile
	$(GO) run ./tools/hostile gen out/hostile -scale $(SCALE)
	$(GO) run ./tools/hostile cli out/hostile
	cd worker && npm ci --no-audit --no-fund
	node tools/hostile/hosts.mjs out/hostile
	$(GO) run ./tools/hostile check out/hostile | tee out/hostile/table.md

# Every fuzz target in the repository (found with go test -list), FUZZTIME each.
FUZZTIME ?= 30s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin dist dist-inline out worker/out cmd/gputriage/module/gputriage.wasm
