# gosh — build, test and measure.
#
#   make run    build gosh and start a local session (gosh connect --local)
#   make test   install missing Debian test peers, then gofmt, go vet,
#               go mod tidy -diff, go test -race ./..., the hostile-peer
#               tests without the race detector and the Windows tests under
#               Wine (what CI runs through .ci/run)
#
# Other targets: build, man, deps, fuzz, bench, proto, check, cross, dist,
# release-check, clean.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
PKG      := github.com/gosh-term/gosh
LDFLAGS  := -s -w -X $(PKG)/internal/buildinfo.Version=$(VERSION)
BIN      := bin/gosh
FUZZTIME ?= 30s
# FUZZMINIMIZE bounds the minimization of each new input: Go's default
# (60s) stalled FuzzParse of terminfo for minutes on 4 KB inputs.
FUZZMINIMIZE ?= 5s
BENCHCOUNT ?= 5
# GoReleaser, pinned (never a floating version).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
TESTTIMEOUT ?= 15m
TESTP ?= 4

# Debian packages the tests drive for real: the reference Mosh peer, an
# OpenSSH server for the bootstrap tests, tmux for screen conformance and
# end-to-end tests, protoc for `make proto`, Wine and MinGW for the
# Windows tests (make wine-test), curl for the release downloads.
DEB_PACKAGES := mosh openssh-server openssh-client tmux protobuf-compiler vim less procps \
	wine64 gcc-mingw-w64-x86-64 curl
DEB_COMMANDS := mosh-server mosh-client sshd ssh ssh-keygen ssh-agent tmux protoc vim less top \
	/usr/lib/wine/wine64 x86_64-w64-mingw32-gcc curl

.PHONY: all build man run test check fmt-check vet tidy-check race hostile wine-test cross deps fuzz bench proto dist release-check clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gosh

run: build
	./$(BIN) connect --local

# man writes the man pages (one per command) and the shell completions,
# generated from the command tree as the release does, into build/docs:
# man -l build/docs/man/gosh.1
man:
	$(GO) run -tags gendocs ./cmd/gosh gendocs build/docs

# The hostile tests and the Windows tests under Wine run side by side:
# each leaves one CPU of two mostly idle.
test: deps check

check: fmt-check vet tidy-check race
	@$(MAKE) --no-print-directory -j2 --output-sync=target hostile wine-test

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	$(GO) vet -tags winetest ./internal/winetest

# tidy-check fails when go.mod or go.sum is not what go mod tidy makes.
tidy-check:
	$(GO) mod tidy -diff

# TESTP packages at a time: the real-binary tests spend most of their time
# waiting on emulated links, real sshd and stock Mosh, which left two CPUs
# half idle at go test's default of one package per CPU.
race:
	$(GO) test -race -p $(TESTP) -timeout $(TESTTIMEOUT) ./...

# hostile runs the tests that build only without the race detector: hostile
# peers and memory bounds, which allocate hundreds of megabytes or push tens
# of thousands of datagrams (//go:build !race), the peak RSS of the real
# binaries under each attack (GOSH_HOSTILE_MOSH=1 adds stock Mosh's), and
# the flood guard with all its seeds and the pacing simulation over every
# link (a few of each under the race detector).
hostile:
	$(GO) test -timeout $(TESTTIMEOUT) -run 'Hostile|Memory|Budget|Flood|Forward' ./internal/ssp ./internal/session
	$(GO) test -timeout $(TESTTIMEOUT) -run 'TestHostilePeakRSS' ./cmd/gosh
	$(GO) test -timeout $(TESTTIMEOUT) -run 'TestVirtualFlood' ./internal/bench

# wine-test cross-compiles the tests of the packages with Windows code
# (and the cores under them) for windows/amd64 and runs them under Wine,
# with a console (internal/winetest).
wine-test:
	$(GO) test -count=1 -tags winetest -timeout $(TESTTIMEOUT) ./internal/winetest

# deps installs what the tests need from Debian, only when something is
# missing (apt-get update runs at most once).
deps:
	@missing=""; \
	for c in $(DEB_COMMANDS); do \
		command -v $$c >/dev/null 2>&1 || [ -x /usr/sbin/$$c ] || missing="$$missing $$c"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "make deps: missing:$$missing; installing $(DEB_PACKAGES)"; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "make deps: run as root (or install: apt-get install $(DEB_PACKAGES))"; exit 1; \
	fi; \
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(DEB_PACKAGES)

# fuzz runs every fuzz target for FUZZTIME each (CI runs only their seeds,
# through plain go test).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
		done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) ./...

# proto regenerates the committed protobuf code from internal/pb/*.proto.
proto:
	@command -v protoc-gen-go >/dev/null 2>&1 || $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	cd internal/pb && PATH="$$PATH:$$($(GO) env GOPATH)/bin" protoc --go_out=. \
		--go_opt=module=$(PKG)/internal/pb \
		transportinstruction.proto userinput.proto hostinput.proto

# SIGNING_KEY signs a snapshot's checksums.txt: the test key, copied with
# the mode ssh-keygen wants (git keeps 0644). A release is signed with the
# release key instead, in CI (docs/release.md).
SIGNING_KEY := build/release-test-key

$(SIGNING_KEY): internal/bootstrap/testdata/release-test-key
	@mkdir -p build
	install -m 600 $< $@

# dist builds a GoReleaser snapshot of the release into dist/: every
# archive, package and manifest, and checksums.txt signed with the test
# key, without publishing anything.
dist: $(SIGNING_KEY)
	GOSH_SIGNING_KEY=$(CURDIR)/$(SIGNING_KEY) $(GORELEASER) release --snapshot --clean

# release-check checks the GoReleaser configuration, builds a snapshot and
# checks what it holds (internal/releasecheck: every artifact, and the
# signature of checksums.txt; and self-upload of its linux/arm64 archive,
# signature checked, in internal/bootstrap).
release-check: $(SIGNING_KEY)
	GOSH_SIGNING_KEY=$(CURDIR)/$(SIGNING_KEY) $(GORELEASER) check
	$(MAKE) dist
	GOSH_DIST=$(CURDIR)/dist $(GO) test -count=1 -tags releasecheck ./internal/releasecheck
	GOSH_DIST=$(CURDIR)/dist $(GO) test -count=1 -run 'TestRunUploadFromDist' ./internal/bootstrap

# cross builds gosh for every platform of the release.
cross:
	@set -e; for t in linux/amd64 linux/arm64 linux/arm linux/riscv64 darwin/amd64 darwin/arm64 \
		windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64 openbsd/amd64; do \
		echo "== $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/gosh; \
	done

clean:
	rm -rf bin dist build
