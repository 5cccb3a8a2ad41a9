#!/usr/bin/env bash
# Tests the Debian package: scripts/version.sh on scratch repositories; then the .deb itself — dpkg-deb --info and
# --contents (no relation to the package name loupe, GNOME's), desktop-file-validate, appstreamcli validate;
# `apt install ./….deb` beside a package loupe with /usr/bin/loupe; the installed `proofglass version`; the
# installed window under Xvfb opening a file from its command line, then a second launch handing it another file (the
# first window ingests it, the second launch exits); a screenshot; `apt purge` leaving nothing behind.
# Usage: scripts/package-test.sh DEB VERSION DEB_VERSION. Needs root or sudo for apt; scripts/test.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
deb="${1:?usage: package-test.sh DEB VERSION DEB_VERSION}"
want="${2:?}"
wantdeb="${3:?}"
SHARED="${PROOFGLASS_SHARED:-$(cd .. && pwd)/shared}"
id=io.github.proofglass.Proofglass
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
ok() { echo "package-test: ok: $*"; }
for t in dpkg-deb desktop-file-validate appstreamcli xvfb-run xdotool import jq git; do
  command -v "$t" >/dev/null || fail "$t missing (run scripts/setup.sh)"
done
work="$(mktemp -d)"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

# --- scripts/version.sh on scratch repositories: untagged, dirty, released, after a release, pre-release.
repo="$work/repo"
mkdir -p "$repo/scripts" && cp scripts/version.sh "$repo/scripts/"
git -C "$repo" init -q && git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q --allow-empty -m one
git -C "$repo" add scripts && git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q -m two
h="$(git -C "$repo" rev-parse --short=7 HEAD)"
v() { bash "$repo/scripts/version.sh" "$@"; }
check_version() { # what, got, want
  [ "$2" = "$3" ] || fail "version.sh, $1: got $2, want $3"
}
check_version untagged "$(v)" "$h"
check_version "untagged deb" "$(v --deb)" "0.0.0~git2.$h"
echo "# changed" >>"$repo/scripts/version.sh"
check_version dirty "$(v)" "$h-dirty"
check_version "dirty deb" "$(v --deb)" "0.0.0~git2.$h+dirty"
git -C "$repo" checkout -q scripts/version.sh
echo untracked >"$repo/new-file"
check_version "untracked files are not dirt" "$(v)" "$h"
git -C "$repo" tag v1.2.0
check_version release "$(v)" "1.2.0"
check_version "release deb" "$(v --deb)" "1.2.0"
git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q --allow-empty -m three
h3="$(git -C "$repo" rev-parse --short=7 HEAD)"
check_version "after release" "$(v)" "1.2.0-1-g$h3"
check_version "after release deb" "$(v --deb)" "1.2.0+git1.$h3"
git -C "$repo" tag v1.3.0-rc1
check_version "pre-release deb" "$(v --deb)" "1.3.0~rc1"
dpkg --compare-versions 1.3.0~rc1 lt 1.3.0 && dpkg --compare-versions 1.2.0 lt 1.2.0+git1.$h3 &&
  dpkg --compare-versions "0.0.0~git2.$h" lt 1.2.0 || fail "Debian versions do not sort as releases do"
ok "version.sh: untagged $h, dirty, release, after release, pre-release; Debian forms sort"

# --- The archive: control fields and contents.
[ -f "$deb" ] || fail "$deb missing (make package)"
case "$(basename "$deb")" in "proofglass_${wantdeb}_amd64.deb") ;; *) fail "package named $(basename "$deb"), want proofglass_${wantdeb}_amd64.deb" ;; esac
info="$(dpkg-deb --info "$deb")"
echo "$info" | sed -n '/Package:/,$p'
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = proofglass ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$wantdeb" ] || fail "Version: $(field Version), want $wantdeb"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: $(field Architecture)"
deps="$(field Depends)"
for d in libwebkit2gtk-4.1-0 libgtk-3-0 ffmpeg tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim; do
  grep -Eq "(^|, )$d( |,|$)" <<<"$deps" || fail "Depends lacks $d: $deps"
done
grep -q "Version $want\." <<<"$info" || fail "description does not name version $want"
contents="$(dpkg-deb --contents "$deb" | awk '{print $6}')"
need=(./usr/bin/proofglass "./usr/share/applications/$id.desktop" "./usr/share/metainfo/$id.metainfo.xml"
  "./usr/share/icons/hicolor/scalable/apps/$id.svg" ./usr/share/doc/proofglass/copyright
  ./usr/share/doc/proofglass/THIRD-PARTY-NOTICES.gz ./usr/lib/proofglass/proofglass-pdf-worker)
for s in 16 24 32 48 64 128 256 512; do need+=("./usr/share/icons/hicolor/${s}x$s/apps/$id.png"); done
for p in "${need[@]}"; do grep -qxF "$p" <<<"$contents" || fail "$p not in the package"; done
if grep -v '^\./usr/' <<<"$contents" | grep -vqx '\./'; then fail "files outside /usr: $(grep -v '^\./usr/' <<<"$contents")"; fi
dpkg-deb --contents "$deb" | awk '$2 != "root/root" { bad = 1 } END { exit bad }' || fail "files not owned by root"
for f in Conflicts Breaks Replaces Provides; do
  if grep -Eq '(^|[ ,|])loupe([ ,(|]|$)' <<<"$(field "$f")"; then fail "$f names loupe (GNOME's image viewer): $(field "$f")"; fi
done
ok "dpkg-deb --info/--contents: proofglass $wantdeb amd64, Depends has WebKitGTK 4.1, ffmpeg, tesseract (eng, chi-sim); ${#need[@]} files checked"

x="$work/x"
dpkg-deb -x "$deb" "$x"
desktop-file-validate "$x/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
grep -qx 'Exec=proofglass %F' "$x/usr/share/applications/$id.desktop" || fail "desktop entry does not pass files (%F)"
for m in application/pdf image/png image/jpeg video/mp4; do
  grep -q "^MimeType=.*$m;" "$x/usr/share/applications/$id.desktop" || fail "desktop entry lacks $m"
done
appstreamcli validate --no-net "$x/usr/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate"
grep -q "<release version=\"$wantdeb\"" "$x/usr/share/metainfo/$id.metainfo.xml" || fail "metainfo release is not $wantdeb"
for w in "MuPDF 1\.28" "jbig2dec" "GloVe" "PDDL-1.0" "public domain" "GNU AFFERO GENERAL PUBLIC LICENSE"; do
  grep -q "$w" "$x/usr/share/doc/proofglass/copyright" || fail "copyright does not mention $w"
done
notices="$(zcat "$x/usr/share/doc/proofglass/THIRD-PARTY-NOTICES.gz")"
for w in "Go module github.com/wailsapp/wails/v2 v2.16.0" "Go module github.com/gen2brain/go-fitz v1.28.2" \
  "Go module modernc.org/sqlite v1.62.0" "JavaScript package react " "(the Go standard library"; do
  grep -qF "$w" <<<"$notices" || fail "THIRD-PARTY-NOTICES lacks $w"
done
ok "desktop-file-validate, appstreamcli validate, %F and MIME types, copyright and third-party notices"

# --- Install, run, hand over, remove.
if [ -n "$SUDO" ] && ! sudo -n true 2>/dev/null; then
  echo "package-test: SKIP install/run/remove: needs root or passwordless sudo" >&2
  exit 0
fi
if dpkg-query -W -f='${Status}' proofglass 2>/dev/null | grep -q "install ok installed"; then
  fail "a proofglass package is installed already ($(dpkg-query -W -f='${Version}' proofglass)); remove it first"
fi
export DEBIAN_FRONTEND=noninteractive
# GNOME's image viewer is the package loupe with /usr/bin/loupe (Debian 13 on). Where it is not installed, a stand-in
# package of that name and file is, so that ours is shown to install, run and purge beside it without touching it.
standin=""
if ! dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q "install ok installed"; then
  [ -e /usr/bin/loupe ] && fail "/usr/bin/loupe exists but belongs to no package loupe: move it aside first"
  sd="$work/standin"
  mkdir -p "$sd/DEBIAN" "$sd/usr/bin" "$sd/usr/share/applications"
  printf 'Package: loupe\nVersion: 47.0-0standin\nArchitecture: all\nMaintainer: Proofglass tests <tests@invalid>\nDescription: stand-in for GNOME image viewer (package test)\n' >"$sd/DEBIAN/control"
  printf '#!/bin/sh\necho "GNOME image viewer stand-in"\n' >"$sd/usr/bin/loupe"
  chmod 755 "$sd/usr/bin/loupe"
  printf '[Desktop Entry]\nType=Application\nName=Image Viewer\nExec=loupe %%U\n' >"$sd/usr/share/applications/org.gnome.Loupe.desktop"
  dpkg-deb --root-owner-group --build "$sd" "$work/loupe-standin.deb" >/dev/null
  $SUDO dpkg -i "$work/loupe-standin.deb" >/dev/null || fail "install the loupe stand-in"
  standin=1
fi
loupesum="$(sha256sum /usr/bin/loupe)"
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$(realpath "$deb")" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt install ./$(basename "$deb")"; }
installed=1
remove() {
  if [ -n "${installed:-}" ]; then
    $SUDO apt-get -o DPkg::Lock::Timeout=600 purge -y -qq proofglass >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; return 1; }
    installed=""
  fi
}
removestandin() { if [ -n "$standin" ]; then $SUDO dpkg --purge loupe >/dev/null 2>&1 || true; standin=""; fi; }
trap 'remove || true; removestandin; cleanup' EXIT
dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q "install ok installed" || fail "installing proofglass removed the package loupe"
[ "$(sha256sum /usr/bin/loupe)" = "$loupesum" ] || fail "installing proofglass changed /usr/bin/loupe"
[ "$(dpkg-query -W -f='${Version}' proofglass)" = "$wantdeb" ] || fail "dpkg says proofglass $(dpkg-query -W -f='${Version}' proofglass)"
$SUDO dpkg --verify proofglass || fail "dpkg --verify: installed files differ from the package"
got="$(/usr/bin/proofglass version)"
grep -q "^proofglass $want (desktop," <<<"$got" || fail "/usr/bin/proofglass version: $got, want proofglass $want (desktop, …)"
[ "$(/usr/bin/proofglass version --json | jq -r .version)" = "$want" ] || fail "proofglass version --json"
# The MuPDF workers: the installed companion of the same build, not the desktop binary re-executed.
case "$(/usr/lib/proofglass/proofglass-pdf-worker --version)" in "$want protocol "*) ;; *) fail "proofglass-pdf-worker --version: $(/usr/lib/proofglass/proofglass-pdf-worker --version)" ;; esac
worker="$( (/usr/bin/proofglass --data "$work/doctor" doctor --offline --json || true) | jq -r 'select(.name == "pdf worker") | .detail')"
case "$worker" in /usr/lib/proofglass/proofglass-pdf-worker*) ;; *) fail "proofglass doctor: pdf worker is $worker, want /usr/lib/proofglass/proofglass-pdf-worker" ;; esac
if [ -f /usr/share/applications/mimeinfo.cache ]; then # desktop-file-utils' trigger registers "Open with Proofglass"
  grep -q "^application/pdf=.*$id.desktop" /usr/share/applications/mimeinfo.cache || fail "PDFs are not offered to Proofglass in mimeinfo.cache"
fi
ok "apt install ./$(basename "$deb"); dpkg --verify; /usr/bin/proofglass version: $got; MuPDF workers: $worker"

# The installed binary on a library, settings and keys the last release (Loupe) wrote in its default place.
legacyhome="$work/legacy-home"
mkdir -p "$legacyhome/.local/share"
tar -xzf backend/cli/testdata/loupe-last-release.tar.gz -C "$legacyhome/.local/share"
docs="$(env -u XDG_DATA_HOME -u PROOFGLASS_DATA HOME="$legacyhome" /usr/bin/proofglass documents list --json 2>"$work/adopt.log")" ||
  { cat "$work/adopt.log" >&2; fail "proofglass on Loupe's library"; }
[ "$(jq -s 'map(select(.status == "ready")) | length' <<<"$docs")" = 2 ] || fail "Loupe's 2 documents not found: $docs"
grep -q "Loupe is now Proofglass: your library moved" "$work/adopt.log" || fail "no message about the move: $(cat "$work/adopt.log")"
[ -f "$legacyhome/.local/share/proofglass/proofglass.db" ] && [ ! -e "$legacyhome/.local/share/loupe" ] || fail "library not moved"
[ "$(env -u XDG_DATA_HOME HOME="$legacyhome" /usr/bin/proofglass serve token)" = 19faa31d49782561c081ea7422cc2413 ] || fail "Loupe's server token lost"
ok "the installed proofglass adopted Loupe's library (moved once, with one message), its documents and its server token"

# The window: the first launch opens a chart image given on its command line; a second launch from another folder,
# with a relative path, hands a PDF to it and exits; the first window ingests both into its current collection.
data="$work/data"
png="$SHARED/testdata/images/charts/graphics_mosaicplot_mosaic_00_00.png"
pdfdir="$SHARED/testdata/pdf/real"
pdf=hsaur3-Ch_analysis_of_variance.pdf
[ -f "$png" ] && [ -f "$pdfdir/$pdf" ] || fail "test data missing under $SHARED/testdata"
mkdir -p build/e2e
# A collection made beforehand is the one the window shows, so the opened files must land in it.
/usr/bin/proofglass --data "$data" collections create papers >/dev/null
export data png pdfdir pdf work
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
  /usr/bin/proofglass --data "$data" "$png" >"$work/window.log" 2>&1 &
  WIN=$!
  trap "kill $WIN 2>/dev/null; wait $WIN 2>/dev/null" EXIT
  xdotool search --sync --onlyvisible --class proofglass >/dev/null & SEARCH=$!
  for i in $(seq 1 120); do kill -0 $SEARCH 2>/dev/null || break; kill -0 $WIN 2>/dev/null || break; sleep 0.5; done
  kill -0 $WIN 2>/dev/null || { cat "$work/window.log" >&2; fail "the installed window exited"; }
  if kill -0 $SEARCH 2>/dev/null; then kill $SEARCH; fail "no window with class proofglass appeared in 60 s"; fi
  # The second launch: must exit by itself, successfully, having handed the file over.
  rc=0
  (cd "$pdfdir" && timeout 30 /usr/bin/proofglass --data "$data" "$pdf") 2>"$work/second.log" || rc=$?
  [ $rc = 0 ] || { cat "$work/second.log" >&2; fail "second launch did not hand its file over (exit $rc)"; }
  grep -q "handed 1 file" "$work/second.log" || fail "second launch said: $(cat "$work/second.log")"
  kill -0 $WIN || fail "the first window exited"
  ready=""
  for i in $(seq 1 240); do
    docs="$(/usr/bin/proofglass --data "$data" documents list --collection papers --json 2>/dev/null || true)"
    if [ "$(jq -s "[.[] | select(.status == \"ready\")] | length" <<<"$docs")" = 2 ]; then ready=1; break; fi
    sleep 0.5
  done
  [ -n "$ready" ] || { echo "$docs" >&2; cat "$work/window.log" >&2; fail "the window did not ingest both files into its collection papers"; }
  names="$(jq -r .name <<<"$docs" | sort | tr "\n" " ")"
  [ "$names" = "$(basename "$png") $pdf " ] || fail "ingested $names"
  [ "$(pgrep -c -f "^/usr/bin/proofglass --data $data" || true)" = 1 ] || fail "more than one Proofglass runs on $data"
  sleep 2 # the library list refreshes after the last progress event
  import -window root build/e2e/package-window.png
'
ok "the installed window opened its command-line file, took a second launch's file (relative path) and ingested both into its current collection; screenshot build/e2e/package-window.png"

remove || fail "apt purge proofglass"
dpkg-query -W -f='${Status}' proofglass 2>/dev/null | grep -q "install ok installed" && fail "proofglass still installed after purge"
left=""
while IFS= read -r p; do
  p="${p#.}"
  [ -z "$p" ] || [ -d "$p" ] || { [ -e "$p" ] && left+=" $p"; }
done <<<"$contents"
[ -z "$left" ] || fail "left behind after purge:$left"
if [ -f /usr/share/applications/mimeinfo.cache ] && grep -q "$id.desktop" /usr/share/applications/mimeinfo.cache; then
  fail "mimeinfo.cache still names $id.desktop after purge"
fi
dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q "install ok installed" && [ "$(sha256sum /usr/bin/loupe)" = "$loupesum" ] ||
  fail "purging proofglass touched the package loupe or /usr/bin/loupe"
removestandin
ok "apt purge proofglass removed every file of the package; the package loupe (/usr/bin/loupe) was left as it was, before and after"
