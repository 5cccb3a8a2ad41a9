#!/usr/bin/env bash
# Prints the third-party notices of a Proofglass binary: every Go module linked into it (from `go version -m`) and every
# JavaScript package bundled into its window (frontend's production dependencies), each with its licence text from
# the module cache or node_modules. Usage: scripts/notices.sh BINARY > THIRD-PARTY-NOTICES
set -euo pipefail
bin="${1:?usage: notices.sh BINARY}"
cd "$(dirname "$0")/.."
modcache="$(go env GOMODCACHE)"

licence_files() { # the licence files at the top of a module or package directory
  find "$1" -maxdepth 1 -type f \( -iname 'licen[cs]e*' -o -iname 'copying*' -o -iname 'notice*' \) | sort
}
section() {
  printf '\n%s\n' "================================================================================"
  printf '%s\n' "$1"
  printf '%s\n\n' "================================================================================"
}
body() { # name, directory
  local files
  files="$(licence_files "$2")"
  if [ -z "$files" ]; then
    echo "error: no licence file for $1 in $2" >&2
    return 1
  fi
  while IFS= read -r f; do
    printf -- '--- %s\n\n' "$(basename "$f")"
    cat "$f"
    printf '\n'
  done <<<"$files"
}
# A module path as the module cache spells it: each upper-case letter becomes "!" and its lower case.
escape() { sed -E 's/([A-Z])/!\L\1/g' <<<"$1"; }

cat <<'HEAD'
Third-party notices for Proofglass
=============================

The proofglass binary is built from the Go modules and JavaScript packages below; each is followed by its licence as its
authors ship it. MuPDF, the GloVe table and the sample library are described in /usr/share/doc/proofglass/copyright.
HEAD

section "Go $(go env GOVERSION) (the Go standard library and runtime)"
body "Go" "$(go env GOROOT)"

# A replaced module ("=>" after its "dep" line) is listed as its replacement.
mods="$(go version -m "$bin" | awk '$1 == "dep" { if (m) print m, v; m = $2; v = $3 } $1 == "=>" { m = $2; v = $3 }
  END { if (m) print m, v }' | sort -u)"
[ -n "$mods" ] || { echo "notices: $bin lists no Go modules (not a Go binary with build info?)" >&2; exit 1; }
while read -r mod ver; do
  section "Go module $mod $ver"
  body "$mod" "$modcache/$(escape "$mod")@$ver"
done <<<"$mods"

while IFS= read -r dir; do
  name="$(jq -r .name "$dir/package.json")"
  ver="$(jq -r .version "$dir/package.json")"
  lic="$(jq -r '.license // "see below"' "$dir/package.json")"
  section "JavaScript package $name $ver ($lic)"
  body "$name" "$dir"
done < <(cd frontend && npm ls --omit=dev --all --parseable 2>/dev/null | tail -n +2 | sort -u)
