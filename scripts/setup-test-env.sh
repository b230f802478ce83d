#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, once per machine (idempotent, cached under
# $LLMBENCH_TOOLS, default ~/.cache/llm-bench). Everything comes from the npm registry or Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
export LLMBENCH_TOOLS="${LLMBENCH_TOOLS:-$HOME/.cache/llm-bench}"
mkdir -p "$LLMBENCH_TOOLS"
# shellcheck source=clean-npm-env.sh
source scripts/clean-npm-env.sh
[ -d node_modules ] || "${CLEAN_NPM_ENV[@]}" npm ci
for part in scripts/setup.d/*.sh; do
  [ -e "$part" ] || continue
  echo "--- $part"
  bash "$part"
done
