#!/usr/bin/env bash
# Prints Proofglass's version, from git, for the binary (`proofglass version`, the window's footer) or, with --deb, for the
# Debian package. Both come from one `git describe` of the tree as it is now:
#   release tag v1.2.0 at HEAD   → 1.2.0                   deb 1.2.0
#   3 commits after v1.2.0       → 1.2.0-3-gabc1234        deb 1.2.0+git3.abc1234
#   no release tag yet           → abc1234                 deb 0.0.0~git<commits>.abc1234
#   pre-release tag v1.2.0-rc1   → 1.2.0-rc1               deb 1.2.0~rc1
#   tracked files changed        → …-dirty                 deb …+dirty
# "-dirty" means tracked files differ from the commit (a file mode too); the build changes no tracked file itself
# (what it generates, such as frontend/wailsjs, is not committed; scripts/test.sh checks), so a clean checkout builds a
# clean version. Outside git: "dev" (deb 0.0.0~dev).
set -euo pipefail
cd "$(dirname "$0")/.."
deb=0
[ "${1:-}" = "--deb" ] && deb=1

if ! d="$(git describe --tags --match 'v[0-9]*' --always --dirty --abbrev=7 2>/dev/null)"; then
  if [ $deb = 1 ]; then echo 0.0.0~dev; else echo dev; fi
  exit 0
fi
dirty=""
case "$d" in *-dirty) dirty=1; d="${d%-dirty}" ;; esac

tag="" n="" hash=""
if [[ "$d" =~ ^v([0-9].*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
  tag="${BASH_REMATCH[1]}" n="${BASH_REMATCH[2]}" hash="${BASH_REMATCH[3]}"
elif [[ "$d" =~ ^v([0-9].*)$ ]]; then
  tag="${BASH_REMATCH[1]}"
else
  hash="$d"
fi
if [ -n "$tag" ]; then
  app="$tag"
  debv="${tag//-/\~}" # a pre-release tag v1.2.0-rc1 sorts before 1.2.0 as 1.2.0~rc1
  if [ -n "$n" ]; then
    app="$app-$n-g$hash"
    debv="$debv+git$n.$hash"
  fi
else
  app="$hash"
  debv="0.0.0~git$(git rev-list --count HEAD).$hash"
fi
if [ -n "$dirty" ]; then
  app="$app-dirty"
  debv="$debv+dirty"
fi
if [[ ! "$debv" =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
  echo "version.sh: $debv (from git describe $d) is not a valid Debian version" >&2
  exit 1
fi
if [ $deb = 1 ]; then echo "$debv"; else echo "$app"; fi
