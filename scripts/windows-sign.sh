#!/usr/bin/env bash
# Signs a Windows executable in place (Authenticode, SHA-256) with osslsigncode and the certificate the environment
# names; scripts/package-windows.sh calls it for each executable, the uninstaller and the installer.
#   PROOFGLASS_SIGN_PFX=cert.pfx                        a PKCS#12 file with the certificate and its key, or
#   PROOFGLASS_SIGN_CERT=cert.pem PROOFGLASS_SIGN_KEY=key.pem   the certificate (chain) and the key in PEM/DER
#   PROOFGLASS_SIGN_PASS_FILE=file  or  PROOFGLASS_SIGN_PASS=...   the key's password, if it has one
#   PROOFGLASS_SIGN_TIMESTAMP=https://...               an RFC 3161 time-stamp server (optional)
# The password reaches osslsigncode through -readpass (a file), never its command line, which any user can read in ps.
# Usage: windows-sign.sh FILE.exe; `windows-sign.sh --configured` exits 0 when a certificate is given.
set -euo pipefail
configured() { [ -n "${PROOFGLASS_SIGN_PFX:-}" ] || { [ -n "${PROOFGLASS_SIGN_CERT:-}" ] && [ -n "${PROOFGLASS_SIGN_KEY:-}" ]; }; }
if [ "${1:-}" = "--configured" ]; then configured; exit; fi
f="${1:?usage: windows-sign.sh FILE}"
configured || { echo "windows-sign: no certificate (PROOFGLASS_SIGN_PFX, or PROOFGLASS_SIGN_CERT and PROOFGLASS_SIGN_KEY)" >&2; exit 1; }
command -v osslsigncode >/dev/null || { echo "windows-sign: osslsigncode missing (apt install osslsigncode)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(sign -h sha256 -n Proofglass -i https://github.com/proofglass/proofglass)
if [ -n "${PROOFGLASS_SIGN_PFX:-}" ]; then
  args+=(-pkcs12 "$PROOFGLASS_SIGN_PFX")
else
  args+=(-certs "$PROOFGLASS_SIGN_CERT" -key "$PROOFGLASS_SIGN_KEY")
fi
if [ -n "${PROOFGLASS_SIGN_PASS_FILE:-}" ]; then
  args+=(-readpass "$PROOFGLASS_SIGN_PASS_FILE")
elif [ -n "${PROOFGLASS_SIGN_PASS:-}" ]; then
  (umask 077 && printf '%s' "$PROOFGLASS_SIGN_PASS" >"$tmp/pass")
  args+=(-readpass "$tmp/pass")
fi
[ -z "${PROOFGLASS_SIGN_TIMESTAMP:-}" ] || args+=(-ts "$PROOFGLASS_SIGN_TIMESTAMP")
osslsigncode "${args[@]}" -in "$f" -out "$tmp/signed" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; echo "windows-sign: signing $f failed" >&2; exit 1; }
cat "$tmp/signed" >"$f"
echo "signed $f" >&2
