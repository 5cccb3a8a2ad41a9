#!/usr/bin/env bash
# Builds the Debian package build/dist/proofglass_<deb version>_<arch>.deb from the release binary build/bin/proofglass with
# Debian's own tools: dpkg-shlibdeps works out the shared-library dependencies, dpkg-deb builds the archive.
# Usage: scripts/package.sh VERSION DEB_VERSION (make package passes both from scripts/version.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: package.sh VERSION DEB_VERSION}"
debv="${2:?usage: package.sh VERSION DEB_VERSION}"
bin=build/bin/proofglass
id=io.github.proofglass.Proofglass
for t in dpkg-deb dpkg-shlibdeps dpkg-architecture jq; do
  command -v "$t" >/dev/null || { echo "package: $t missing (apt install dpkg-dev jq)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "package: $bin missing (make build)" >&2; exit 1; }
# The binary must say the version the package is named after.
got="$("$bin" version --json | jq -r .version)"
[ "$got" = "$version" ] || { echo "package: $bin says version $got, want $version (rebuild: make build)" >&2; exit 1; }

arch="$(dpkg-architecture -qDEB_HOST_ARCH)"
root="$PWD/build/pkg/proofglass"
rm -rf build/pkg
mkdir -p "$root/DEBIAN" build/dist

# Files.
install -D -m 0755 "$bin" "$root/usr/bin/proofglass"
# The MuPDF worker on its own (make worker): /usr/bin/proofglass starts it instead of re-executing itself.
install -D -m 0755 "$(dirname "$bin")/proofglass-pdf-worker" "$root/usr/lib/proofglass/proofglass-pdf-worker"
install -D -m 0644 "build/linux/$id.desktop" "$root/usr/share/applications/$id.desktop"
install -d "$root/usr/share/metainfo"
sed -e "s/@VERSION@/$debv/" -e "s/@DATE@/$(git log -1 --format=%cs 2>/dev/null || date -u +%F)/" \
  "build/linux/$id.metainfo.xml.in" >"$root/usr/share/metainfo/$id.metainfo.xml"
for s in 16 24 32 48 64 128 256 512; do
  install -D -m 0644 "build/icons/proofglass-$s.png" "$root/usr/share/icons/hicolor/${s}x$s/apps/$id.png"
done
install -D -m 0644 build/icons/proofglass.svg "$root/usr/share/icons/hicolor/scalable/apps/$id.svg"

doc="$root/usr/share/doc/proofglass"
install -d "$doc"
mupdf="$(sed -n 's/^#define FZ_VERSION "\(.*\)"/\1/p' "$(go env GOMODCACHE)/github.com/gen2brain/go-fitz@v1.28.2/include/mupdf/fitz/version.h")"
{
  sed "s/@MUPDF_VERSION@/${mupdf:?MuPDF version not found in go-fitz}/g" build/linux/copyright.in
  printf '\nLicense: AGPL-3.0-or-later\n'
  sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /' LICENSE
} >"$doc/copyright"
bash scripts/notices.sh "$bin" >"$doc/THIRD-PARTY-NOTICES"
gzip -9n "$doc/THIRD-PARTY-NOTICES"

# Control file: shared libraries from dpkg-shlibdeps, plus the programs Proofglass runs (ffmpeg, tesseract and its
# English and Simplified Chinese data).
shl="$(mktemp -d)"
trap 'rm -rf "$shl"' EXIT
mkdir -p "$shl/debian"
printf 'Source: proofglass\n\nPackage: proofglass\nArchitecture: any\n' >"$shl/debian/control"
libs="$(cd "$shl" && dpkg-shlibdeps -O "$root/usr/bin/proofglass" | sed -n 's/^shlibs:Depends=//p')"
case "$libs" in *libwebkit2gtk-4.1-0*) ;; *) echo "package: dpkg-shlibdeps found no WebKitGTK 4.1 in $libs" >&2; exit 1 ;; esac
cat >"$root/DEBIAN/control" <<CONTROL
Package: proofglass
Version: $debv
Architecture: $arch
Maintainer: Proofglass developers <proofglass@invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $libs, ffmpeg, tesseract-ocr, tesseract-ocr-eng, tesseract-ocr-chi-sim
Recommends: fonts-noto-cjk
Section: utils
Priority: optional
Description: local visual document Q&A for PDFs, images and videos
 Proofglass keeps a local knowledge base of PDFs, images and videos and answers
 questions about them: a visual agent searches page images, crops and zooms
 into the regions that matter, and answers with citations that open the page
 at the region. Models come from Ollama, vLLM or any OpenAI-compatible server;
 without a model Proofglass still ingests and searches (text layer, OCR, full-text
 search and a built-in embedder).
 .
 This package is the desktop app (WebKitGTK window) with its command line.
 Version $version.
CONTROL
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

out="build/dist/proofglass_${debv}_${arch}.deb"
rm -f "$out"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
