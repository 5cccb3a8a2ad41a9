#!/usr/bin/env bash
# Installs everything a fresh Debian 12 needs to build, run and test Proofglass. Idempotent: skips what is present.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Packages: build (cgo + WebKitGTK 4.1), runtime tools Proofglass shells out to, and test-only tools.
PKGS=(build-essential pkg-config curl ca-certificates jq
  libgtk-3-dev libwebkit2gtk-4.1-dev
  ffmpeg tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim
  xvfb xauth xdotool x11-utils imagemagick chromium poppler-utils mupdf-tools fonts-droid-fallback fonts-noto-cjk
  dpkg-dev desktop-file-utils appstream librsvg2-bin
  mingw-w64 wine64 nsis osslsigncode zip unzip python3)
if [ "${PROOFGLASS_SETUP_MINIMAL:-}" = "1" ]; then
  PKGS=(build-essential pkg-config curl ca-certificates libgtk-3-dev libwebkit2gtk-4.1-dev ffmpeg
    tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: apt installing ${missing[*]}" >&2
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go tools, pinned: @latest resolves to an old wails through this proxy that does not build on Go 1.26.
WAILS_VERSION=v2.16.0
GOBIN="$(go env GOPATH)/bin"
have_wails="$("$GOBIN/wails" version 2>/dev/null || true)"
if [ "${have_wails%%$'\n'*}" != "$WAILS_VERSION" ]; then
  echo "setup: installing wails $WAILS_VERSION" >&2
  go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
fi

# JavaScript dependencies from the committed lockfiles.
for d in frontend e2e; do
  [ -f "$d/package-lock.json" ] || continue
  if [ ! -d "$d/node_modules" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    echo "setup: npm ci in $d" >&2
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
echo "setup: ok" >&2
