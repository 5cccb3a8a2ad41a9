#!/usr/bin/env bash
# The Windows build on Debian, tested under Wine (issue #27): cross-compiles build/windows/proofglass.exe and the PDF
# worker with MinGW-w64, then in a throwaway Wine prefix: `version` answers, `add` ingests a text PDF, an image and a
# PDF with a non-ASCII name (drive-letter paths), `search` finds the expected page, `serve` answers /search to curl on
# the Linux side, and `doctor --offline` fails only on the external tools that are absent (no model server is asked).
# Not checked here: the window (Wine has no WebView2 runtime; the desktop build links, see README), the installer.
set -euo pipefail
cd "$(dirname "$0")/.."
# The shared test data beside this checkout, as scripts/test.sh finds it (PROOFGLASS_TESTDATA overrides).
T=${PROOFGLASS_TESTDATA:-${PROOFGLASS_SHARED:-$(cd .. && pwd)/shared}/testdata}
[ -d "$T/pdf" ] || { echo "windows-test: no test data at $T (set PROOFGLASS_TESTDATA)" >&2; exit 1; }
WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
[ -x "$WINE" ] || { echo "windows-test: wine64 missing (scripts/setup.sh installs it)" >&2; exit 1; }
VERSION=${VERSION:-$(bash scripts/version.sh 2>/dev/null || echo dev)}
OUT=build/windows/bin
mkdir -p "$OUT"
echo "cross build ($VERSION)"
GOFLAGS=-buildvcs=false CGO_LDFLAGS= GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
  CXX=x86_64-w64-mingw32-g++ go build -ldflags "-s -X proofglass/backend/buildinfo.Version=$VERSION" -o "$OUT/" \
  ./cmd/proofglass ./cmd/proofglass-pdf-worker
# Only Windows DLLs: MinGW's runtime is linked statically.
deps=$(x86_64-w64-mingw32-objdump -p "$OUT/proofglass.exe" | awk '/DLL Name/ {print $3}' | sort -u | tr '\n' ' ')
echo "imports: $deps"
case "$deps" in *winpthread*|*libgcc*|*libssp*|*libstdc*) echo "FAIL: MinGW DLL dependency" >&2; exit 1;; esac

WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver)
W=$(mktemp -d); trap 'WINEPREFIX=$W/prefix "$WINESERVER" -k 2>/dev/null || true; rm -rf "$W"' EXIT
export WINEPREFIX=$W/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
"$WINE" wineboot -i >/dev/null 2>&1 || true
# Wine 8.0 lacks bcryptprimitives.dll (ProcessPrng), which the Go runtime loads from System32 at start.
x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/wine/bcryptprimitives.c -ladvapi32
cp "$OUT/proofglass.exe" "$OUT/proofglass-pdf-worker.exe" "$W/"
pg() { (cd "$W" && timeout 300 "$WINE" ./proofglass.exe --data 'C:\pgdata' "$@"); }
winpath() { echo "Z:$(echo "$1" | tr / '\\')"; }

v=$(pg version | tr -d '\r'); echo "version: $v"
case "$v" in "proofglass $VERSION "*windows/amd64*) ;; *) echo "FAIL: version" >&2; exit 1;; esac

mkdir -p "$W/in"
cp "$T/pdf/real/hsaur3-Ch_analysis_of_variance.pdf" "$W/in/anova.pdf"
cp "$T/pdf/real/blood_loss_report.pdf" "$W/in/Bericht-Größe-日本.pdf"
img=$(ls "$T"/images/photos/*.jpg | head -1); cp "$img" "$W/in/photo.jpg"
pg add "$(winpath "$W/in/anova.pdf")" "$(winpath "$W/in/Bericht-Größe-日本.pdf")" "$(winpath "$W/in/photo.jpg")" \
  | tr -d '\r' | tee "$W/add.txt"
[ "$(grep -c '^ready' "$W/add.txt")" = 3 ] || { echo "FAIL: add" >&2; exit 1; }

pg search "analysis of variance weight gain foster feeding" | tr -d '\r' | tee "$W/search.txt" | head -3
awk 'NR==2 {exit !($6=="anova.pdf" && $7==3)}' "$W/search.txt" || { echo "FAIL: search: expected anova.pdf p. 3 first" >&2; exit 1; }
pg search "blood loss" | tr -d '\r' | grep -q 'Bericht-Größe-日本.pdf' || { echo "FAIL: non-ASCII document not found" >&2; exit 1; }

PORT=$((20000 + RANDOM % 20000))
(cd "$W" && exec "$WINE" ./proofglass.exe --data 'C:\pgdata' serve --addr 127.0.0.1:$PORT --no-token) >"$W/serve.log" 2>&1 &
for _ in $(seq 60); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/search?queries=x" 2>/dev/null && break; sleep 1; done
PORT=$PORT python3 - <<'PY' || { kill %1 2>/dev/null; echo "FAIL: serve /search" >&2; cat "$W/serve.log" >&2; exit 1; }
import json, os, urllib.request
req = urllib.request.Request(f"http://127.0.0.1:{os.environ['PORT']}/search", method="POST",
    data=json.dumps({"queries": ["analysis of variance weight gain"], "top_k": 3}).encode(),
    headers={"Content-Type": "application/json"})
res = json.load(urllib.request.urlopen(req, timeout=60))
print("serve /search:", json.dumps(res)[:300])
assert len(res["results"]) == 1 and len(res["results"][0]["data"]) >= 1, res
PY
kill %1 2>/dev/null || true

pg doctor --offline | tr -d '\r' >"$W/doctor.txt" 2>&1 || true
cat "$W/doctor.txt"
bad=$(grep '^FAIL' "$W/doctor.txt" | grep -v -E '^FAIL (ffmpeg|ffprobe|tesseract|model )' || true)
[ -z "$bad" ] || { echo "FAIL: doctor: $bad" >&2; exit 1; }
# The desktop executable (window + CLI): Wine has no WebView2 runtime, so the window itself cannot be shown here; what
# is checked is that it links with the frontend assets embedded (frontend/dist, made by `make frontend`) and that its
# CLI half answers.
if [ -f frontend/dist/index.html ]; then
  GOFLAGS=-buildvcs=false CGO_LDFLAGS= GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
    CXX=x86_64-w64-mingw32-g++ go build -tags desktop,production \
    -ldflags "-s -H=windowsgui -X proofglass/backend/buildinfo.Version=$VERSION" -o "$OUT/proofglass-desktop.exe" .
  cp "$OUT/proofglass-desktop.exe" "$W/"
  dv=$(cd "$W" && timeout 120 "$WINE" ./proofglass-desktop.exe version | tr -d '\r'); echo "desktop: $dv"
  case "$dv" in *"(desktop, "*windows/amd64*) ;; *) echo "FAIL: desktop exe version" >&2; exit 1;; esac
  grep -qa "$(head -c 200 frontend/dist/index.html | grep -o '<title>[^<]*' | head -1)" "$OUT/proofglass-desktop.exe" \
    || { echo "FAIL: frontend assets not embedded" >&2; exit 1; }
  echo "desktop exe: links, frontend embedded ($(stat -c %s "$OUT/proofglass-desktop.exe") bytes); window not run (no WebView2 under Wine)"
else
  echo "desktop exe: skipped (frontend/dist not built: make frontend)"
fi
echo "windows-test: ok"
