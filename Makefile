# gputriage — see README.md. Every target works on a fresh machine with Go and
# (for the page tests) node/npm; .ci/run installs Chromium.
GO ?= go
DEFAULT_TRACE := testdata/default/sglang_Qwen3-8B_decode.json.gz

.PHONY: all build wasm run test test-go test-browser test-worker site serve worker bench fuzz clean

all: build

build:
	$(GO) run ./build

wasm:
	$(GO) run ./build -wasm

# The main job on the embedded default input: a real MI300X SGLang decode trace.
run: build
	./bin/gputriage breakdown -o out/default $(DEFAULT_TRACE)

test: build test-go test-browser test-worker

test-go:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

site: build
	$(GO) run ./build -site

serve: site
	$(GO) run ./build -serve 127.0.0.1:8080

test-browser: site
	npm ci --no-audit --no-fund
	node site/test/tsv.mjs
	node site/test/e2e.mjs

# The Cloudflare Worker (GOOS=js, syumai/workers): worker/out/.
worker: site
	$(GO) run ./worker/build

# Runs the Worker under the workerd binary from npm on 127.0.0.1 and compares
# its answers with the CLI's, byte for byte.
test-worker: worker
	cd worker && npm ci --no-audit --no-fund && node test/run.mjs

bench: build worker
	GPUTRIAGE_BENCH=1 $(GO) test -count=1 -timeout 60m -run TestBenchmarks -v ./cmd/gputriage

# Every fuzz target in the repository (found with go test -list), FUZZTIME each.
FUZZTIME ?= 30s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do 	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do 	    echo "== $$pkg $$f ($(FUZZTIME))"; 	    $(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$pkg; 	  done; 	done

clean:
	rm -rf bin dist dist-inline out worker/out cmd/gputriage/module/gputriage.wasm
