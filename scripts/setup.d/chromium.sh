#!/usr/bin/env bash
# Debian's Chromium for the e2e tier (driven by playwright-core, which downloads no browser here),
# and libkrb5-dev, which code-server's `kerberos` module needs to compile when its prebuilt
# binary cannot be downloaded (scripts/setup.d/vscode.sh). Idempotent: installs only what is missing.
set -euo pipefail

# fonts-liberation: only recommended by chromium, which is installed without its recommends (no desktop services).
packages=(chromium fonts-liberation libkrb5-dev)
missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "chromium.sh: needs root to apt-get install ${missing[*]}; run it as root or with sudo" >&2
    exit 1
  fi
  echo "chromium.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# (Debian's wrapper script prints a harmless shell warning on stderr here.)
/usr/bin/chromium --version 2>/dev/null
