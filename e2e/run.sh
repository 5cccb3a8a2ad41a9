#!/usr/bin/env bash
# End-to-end: the dev-tagged app (real Go backend) under Xvfb, driven by playwright-core + Debian chromium; then a
# screenshot of the production binary's real WebKitGTK window. Needs build/bin/proofglass-dev, build/bin/proofglass and
# frontend/dist (make e2e builds them). Screenshots land in build/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
for bin in xvfb-run import /usr/bin/chromium; do
  command -v "$bin" >/dev/null || { echo "e2e: $bin missing (run scripts/setup.sh)" >&2; exit 1; }
done
mkdir -p build/e2e
export PROOFGLASS_DATA
PROOFGLASS_DATA="$(mktemp -d)"
trap 'rm -rf "$PROOFGLASS_DATA"' EXIT
# Real data for the UI to show: one collection made through the CLI of the same binary.
build/bin/proofglass-dev collections create e2e >/dev/null
export PROOFGLASS_E2E_COLLECTIONS=1

PORT="${PROOFGLASS_E2E_PORT:-34115}"
export PROOFGLASS_E2E_URL="http://127.0.0.1:$PORT/"
export PROOFGLASS_E2E_SHOTS="$PWD/build/e2e"
# The dev build answers the native save dialog with this folder (backend/desktop/dialog_dev.go).
export PROOFGLASS_E2E_SAVE_DIR="$PWD/build/e2e"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -u
  devserver=127.0.0.1:'"$PORT"' assetdir=frontend/dist build/bin/proofglass-dev >build/e2e/app-dev.log 2>&1 &
  APP=$!
  trap "kill $APP 2>/dev/null; wait $APP 2>/dev/null" EXIT
  up=0
  for i in $(seq 1 120); do
    if curl -fs -o /dev/null "$PROOFGLASS_E2E_URL"; then up=1; break; fi
    kill -0 $APP 2>/dev/null || break
    sleep 0.5
  done
  if [ $up != 1 ]; then echo "e2e: dev app did not start; log:" >&2; cat build/e2e/app-dev.log >&2; exit 1; fi
  (cd e2e && node --test --test-concurrency=1 tests/)
'
# The real window: the production binary in WebKitGTK under Xvfb, captured with ImageMagick.
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  build/bin/proofglass >build/e2e/window.log 2>&1 &
  APP=$!
  trap "kill $APP 2>/dev/null; wait $APP 2>/dev/null" EXIT
  sleep 6
  kill -0 $APP || { echo "e2e: window binary exited:" >&2; cat build/e2e/window.log >&2; exit 1; }
  import -window root build/e2e/window.png
'
echo "e2e: ok; screenshots in build/e2e/"
