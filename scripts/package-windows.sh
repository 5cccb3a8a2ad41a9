#!/usr/bin/env bash
# Builds Proofglass for Windows on Debian (make package-windows): the desktop executable (the Wails/WebView2 window and
# the CLI subcommands, like build/bin/proofglass on Linux) and the PDF worker, cross-compiled with MinGW-w64, each
# with an icon, a version resource and a manifest (windres .syso); then the NSIS installer and a portable zip:
#   build/windows/app/                                          the staged files
#   build/dist/proofglass-<version>-windows-amd64-setup.exe     per-user installer (no administrator)
#   build/dist/proofglass-<version>-windows-amd64.zip           the same files, unpacked anywhere
# Signed with Authenticode when the environment names a certificate (scripts/windows-sign.sh); otherwise it says the
# build is unsigned. The frontend must be built (make frontend; make package-windows does it).
# Usage: scripts/package-windows.sh VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: package-windows.sh VERSION}"
for t in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres makensis zip python3; do
  command -v "$t" >/dev/null || { echo "package-windows: $t missing (apt install mingw-w64 nsis zip python3)" >&2; exit 1; }
done
[ -f frontend/dist/index.html ] || { echo "package-windows: frontend/dist not built (make frontend)" >&2; exit 1; }

# The four numbers a Windows version resource holds: the release tag's three and the commits since it; before the
# first tag 0.0.0.<commits>.
if [[ "$version" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.]+)?(-([0-9]+)-g[0-9a-f]+)?(-dirty)?$ ]]; then
  v4="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}.${BASH_REMATCH[6]:-0}"
else
  v4="0.0.0.$(git rev-list --count HEAD 2>/dev/null || echo 0)"
fi
v4c="${v4//./,}"

res=build/windows/res
app=build/windows/app
rm -rf "$res" "$app"
mkdir -p "$res" "$app" build/dist
python3 scripts/png2ico.py "$res/proofglass.ico" build/icons/proofglass-{16,24,32,48,64,128,256}.png

# resources NAME DESCRIPTION OUT.syso: icon (ID 3, the one Wails' window loads), manifest, version resource.
resources() {
  local name=$1 desc=$2 out=$3
  sed -e "s/@NAME@/io.github.proofglass.$name/" -e "s/@VERSION4@/$v4/" build/windows/proofglass.exe.manifest \
    >"$res/$name.manifest"
  cat >"$res/$name.rc" <<RC
#include <winver.h>
3 ICON "proofglass.ico"
1 24 "$name.manifest"
1 VERSIONINFO
FILEVERSION $v4c
PRODUCTVERSION $v4c
FILEOS VOS_NT_WINDOWS32
FILETYPE VFT_APP
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "CompanyName", "Proofglass developers"
      VALUE "FileDescription", "$desc"
      VALUE "FileVersion", "$version"
      VALUE "InternalName", "$name"
      VALUE "LegalCopyright", "Proofglass developers, AGPL-3.0-or-later"
      VALUE "OriginalFilename", "$name.exe"
      VALUE "ProductName", "Proofglass"
      VALUE "ProductVersion", "$version"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
  (cd "$res" && x86_64-w64-mingw32-windres -O coff -c 65001 -i "$name.rc" -o "$name.syso")
  cp "$res/$name.syso" "$out"
}
# The .syso files sit in the packages' directories only for this build (a *_windows_amd64.syso is never linked
# into another platform's build, and they are not committed).
trap 'rm -f rsrc_windows_amd64.syso cmd/proofglass-pdf-worker/rsrc_windows_amd64.syso' EXIT
resources proofglass "Proofglass" rsrc_windows_amd64.syso
resources proofglass-pdf-worker "Proofglass PDF worker" cmd/proofglass-pdf-worker/rsrc_windows_amd64.syso

wingo() {
  GOFLAGS=-buildvcs=false CGO_LDFLAGS= GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
    CXX=x86_64-w64-mingw32-g++ go "$@"
}
ld="-s -X proofglass/backend/buildinfo.Version=$version"
echo "package-windows: building $version ($v4)" >&2
# The window: Wails' Windows frontend (WebView2, no cgo of its own) is chosen by the desktop and production tags that
# `wails build` passes; -H windowsgui makes a GUI program (no console window; CLI subcommands attach to the caller's).
wingo build -tags desktop,production -ldflags "$ld -H windowsgui" -o "$app/proofglass.exe" .
wingo build -ldflags "$ld" -o "$app/proofglass-pdf-worker.exe" ./cmd/proofglass-pdf-worker
# proofglass.com, the console front: cmd and PowerShell run it before the .exe for "proofglass", and wait for it.
x86_64-w64-mingw32-gcc -O2 -s -Wall -o "$app/proofglass.com" build/windows/proofglass-com.c

# Licences: the AGPL, what the executable contains (the Debian copyright file's text), and the notices of every Go
# module and JavaScript package linked into it. CRLF so Notepad on old Windows shows lines.
crlf() { sed 's/$/\r/'; }
crlf <LICENSE >"$app/LICENSE.txt"
mupdf="$(sed -n 's/^#define FZ_VERSION "\(.*\)"/\1/p' "$(go env GOMODCACHE)/github.com/gen2brain/go-fitz@v1.28.2/include/mupdf/fitz/version.h")"
sed -e "s/@MUPDF_VERSION@/${mupdf:?MuPDF version not found in go-fitz}/g" \
  -e 's#/usr/share/doc/proofglass/THIRD-PARTY-NOTICES#THIRD-PARTY-NOTICES.txt beside this file#' \
  build/linux/copyright.in | crlf >"$app/COPYRIGHT.txt"
bash scripts/notices.sh "$app/proofglass.exe" | crlf >"$app/THIRD-PARTY-NOTICES.txt"

signer=""
if bash scripts/windows-sign.sh --configured; then
  signer="bash $PWD/scripts/windows-sign.sh"
  bash scripts/windows-sign.sh "$app/proofglass.exe"
  bash scripts/windows-sign.sh "$app/proofglass-pdf-worker.exe"
  bash scripts/windows-sign.sh "$app/proofglass.com"
else
  echo "package-windows: UNSIGNED build (no certificate: set PROOFGLASS_SIGN_PFX or PROOFGLASS_SIGN_CERT/KEY, see scripts/windows-sign.sh)" >&2
fi

base="proofglass-$version-windows-amd64"
setup="build/dist/$base-setup.exe"
rm -f "$setup"
makensis -V2 -INPUTCHARSET UTF8 -DVERSION="$version" -DVERSION4="$v4" -DSRC="$PWD/$app" -DICON="$PWD/$res/proofglass.ico" \
  -DOUTFILE="$PWD/$setup" -DSIGN="$signer" build/windows/installer.nsi >&2
[ -z "$signer" ] || bash scripts/windows-sign.sh "$setup"

# The portable zip: a Proofglass folder with the same files (its data is still %AppData%\Proofglass, or --data).
zipf="build/dist/$base.zip"
rm -rf "$res/zip" "$zipf"
mkdir -p "$res/zip/Proofglass"
cp "$app"/* "$res/zip/Proofglass/"
stamp="$(git log -1 --format=%cI 2>/dev/null || date -u -Iseconds)"
find "$res/zip" -exec touch -d "$stamp" {} +
(cd "$res/zip" && find Proofglass -print | LC_ALL=C sort | zip -q -X -9 "$OLDPWD/$zipf" -@)
echo "$setup"
echo "$zipf"
