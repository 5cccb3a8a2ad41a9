#!/usr/bin/env bash
# Every test of Proofglass: Go (with a real Ollama server for the model layer), the frontend's component tests, and the
# end-to-end tests in Chromium and the real window. Installs what is missing first; `make test` runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$(go env GOPATH)/bin"
export GOFLAGS="-buildvcs=false -tags=webkit2_41"
export CGO_LDFLAGS="-Wl,--exclude-libs,ALL"
SHARED="${PROOFGLASS_SHARED:-$(cd .. && pwd)/shared}"
step() { echo; echo "=== $* ($(date +%T))"; }
# The version before anything is built: the package test checks the binaries say it, so a build step that changes
# tracked files (and would make them say "-dirty") fails the run.
version="$(bash scripts/version.sh)"
debversion="$(bash scripts/version.sh --deb)"
echo "version $version (Debian $debversion)"
# The tracked files as they are before anything is built (their list and content, modes included): the build and the
# tests must leave them so (checked at the end; on CI's clean checkout, no tracked file may change at all).
tracked_state() { git status --porcelain --untracked-files=no; git diff HEAD --binary | sha256sum; }
in_git=0
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
[ $in_git = 0 ] || tracked_before="$(tracked_state)"

step setup
bash scripts/setup.sh

step "frontend build"
make --no-print-directory frontend

step "go vet"
go vet ./...

# A real Ollama with small generated models for the model layer's end-to-end tests (their tests skip without it).
OLLAMA_TOOLS="$SHARED/tools/ollama-e2e"
if [ -x "$OLLAMA_TOOLS/up.sh" ]; then
  step "ollama (real server, generated models)"
  uplog="$(mktemp)"
  hostline="$("$OLLAMA_TOOLS/up.sh" 2>"$uplog")" || { cat "$uplog" >&2; exit 1; }
  cat "$uplog" >&2
  export "${hostline?}"
  # Stop the server afterwards only if this run started it (a developer's running server is left alone).
  if ! grep -q "already running" "$uplog"; then
    trap '"$OLLAMA_TOOLS/down.sh" >/dev/null 2>&1 || true' EXIT
  fi
  rm -f "$uplog"
  echo "$hostline"
else
  echo "warning: $OLLAMA_TOOLS not found: model end-to-end tests will skip" >&2
fi

step "go test"
go test -count=1 -timeout 40m ./...

step "go test -race (concurrent packages)"
race_pkgs=()
for d in backend/kb backend/vector backend/search backend/config; do [ -d "$d" ] && race_pkgs+=("./$d/..."); done
go test -count=1 -race -timeout 20m "${race_pkgs[@]}"

step "frontend tests"
(cd frontend && npm test)

step "end-to-end (Chromium + real window under Xvfb)"
make --no-print-directory build dev
bash e2e/run.sh

step "Debian package: build, validate, install, run the window, purge"
make --no-print-directory deb VERSION="$version" DEB_VERSION="$debversion"
bash scripts/package-test.sh "build/dist/proofglass_${debversion}_$(dpkg --print-architecture).deb" "$version" "$debversion"

step "Windows: cross build (MinGW-w64), CLI under Wine, the signed installer installed and uninstalled under Wine"
VERSION="$version" bash scripts/windows-test.sh

step "macOS: nothing shared is Linux-only (GOOS=darwin go vet, cgo off: no darwin C cross-compiler here)"
GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet ./...

if [ $in_git = 1 ]; then
  step "the checkout is as it was: no tracked file changed by the build or the tests"
  if [ "$(tracked_state)" != "$tracked_before" ]; then
    echo "tracked files changed during the run (a generated file is either ignored or committed exactly as the build" >&2
    echo "writes it; frontend/wailsjs is ignored). git status --porcelain --untracked-files=no:" >&2
    git status --porcelain --untracked-files=no >&2
    exit 1
  fi
fi

step "all tests passed"
