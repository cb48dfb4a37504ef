#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH, e.g. `scripts/with-node24.sh npm test`. Node comes from the npm
# registry's node-linux-<arch> package (the official build, its headers included, so native addons compile
# against it offline); better-sqlite3 is rebuilt for Node 24's ABI for the command and back for this machine's
# Node afterwards, whatever the command's outcome.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${IRONCLAW_NODE24_VERSION:-24}"
case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64) ARCH=arm64 ;;
  *) echo "with-node24: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
DIR="${IRONCLAW_NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ironclaw/node$VERSION}"
N24="$DIR/node_modules/node-linux-$ARCH"
if [ ! -x "$N24/bin/node" ]; then
  echo "with-node24: installing node-linux-$ARCH@$VERSION into $DIR" >&2
  npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$DIR" "node-linux-$ARCH@$VERSION" >/dev/null
fi

restore() {
  echo "with-node24: rebuilding better-sqlite3 for $(node --version) again" >&2
  npm rebuild better-sqlite3 >/dev/null
}
trap restore EXIT
echo "with-node24: $("$N24/bin/node" --version); rebuilding better-sqlite3 for it" >&2
PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm rebuild better-sqlite3 >/dev/null
PATH="$N24/bin:$PATH" "$@"
