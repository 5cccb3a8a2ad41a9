#!/usr/bin/env bash
# Ingest speed of the Windows CLI under Wine against the Linux CLI, on the same text PDFs, one run each, printed as
# pages/s and a ratio (issue #27's closing note). Builds what is missing: make cli (build/bin/proofglass-cli and its
# worker) and make windows (build/windows/bin). Data: R-refman pages 1-200 (a `mutool clean` copy) and four hsaur3
# chapters, all with a text layer (no OCR on either side: Wine has no tesseract).
# Usage: scripts/windows-ingest-bench.sh   (PROOFGLASS_TESTDATA overrides where the shared test data is)
set -euo pipefail
cd "$(dirname "$0")/.."
T=${PROOFGLASS_TESTDATA:-$(cd .. && pwd)/shared/testdata}
WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver)
[ -x build/bin/proofglass-cli ] || make cli >/dev/null
[ -f build/windows/bin/proofglass.exe ] || make windows >/dev/null
W=$(mktemp -d); trap 'WINEPREFIX=$W/prefix "$WINESERVER" -k 2>/dev/null || true; rm -rf "$W"' EXIT
mkdir -p "$W/in"
mutool clean "$T/pdf/real/R-refman.pdf" "$W/in/R-refman-200.pdf" 1-200
for c in analysis_of_variance graphical_display logistic_regression_glm multiple_linear_regression; do
  cp "$T/pdf/real/hsaur3-Ch_$c.pdf" "$W/in/"
done
now() { date +%s.%N; }
pages() { python3 -c 'import json,sys; print(sum(json.loads(l)["pages"] for l in sys.stdin if l.strip()))'; }

t0=$(now)
build/bin/proofglass-cli --data "$W/linux" add "$W/in" >/dev/null
t1=$(now)
lp=$(build/bin/proofglass-cli --data "$W/linux" documents list --json | pages)

export WINEPREFIX=$W/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
"$WINE" wineboot -i >/dev/null 2>&1 || true
x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/wine/bcryptprimitives.c -ladvapi32
cp build/windows/bin/proofglass.exe build/windows/bin/proofglass-pdf-worker.exe "$W/"
"$WINE" "$W/proofglass.exe" version >/dev/null # Wine's first start of a program, not counted
t2=$(now)
(cd "$W" && "$WINE" ./proofglass.exe --data 'C:\bench' add "Z:$(echo "$W/in" | tr / '\\')" >/dev/null)
t3=$(now)
wp=$(cd "$W" && "$WINE" ./proofglass.exe --data 'C:\bench' documents list --json | tr -d '\r' | pages)
python3 - "$lp" "$t0" "$t1" "$wp" "$t2" "$t3" <<'PY'
import sys
lp, t0, t1, wp, t2, t3 = int(sys.argv[1]), *map(float, sys.argv[2:4]), int(sys.argv[4]), *map(float, sys.argv[5:7])
l, w = lp / (t1 - t0), wp / (t3 - t2)
print(f"linux CLI:        {lp} pages in {t1 - t0:.1f} s = {l:.1f} pages/s")
print(f"windows CLI/Wine: {wp} pages in {t3 - t2:.1f} s = {w:.1f} pages/s")
print(f"ratio windows/linux: {w / l:.2f}")
PY
