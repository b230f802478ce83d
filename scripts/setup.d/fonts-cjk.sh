#!/usr/bin/env bash
# Debian's Noto CJK fonts, so the screenshots of the Chinese views (issue 27; code-server with
# --locale zh-cn) show their labels, not tofu boxes: Chromium finds no Chinese glyph otherwise.
# Idempotent: installs only when missing. Noto Sans CJK SC is in the charts' font stack (src/views/fonts.ts).
set -euo pipefail

if ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "fonts-cjk.sh: needs root to apt-get install fonts-noto-cjk; run it as root or with sudo" >&2
    exit 1
  fi
  echo "fonts-cjk.sh: installing fonts-noto-cjk"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-cjk >/dev/null
fi
fc-list :lang=zh-cn family | grep -m1 'Noto Sans CJK SC'
