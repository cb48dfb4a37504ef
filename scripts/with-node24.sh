#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH, e.g. `scripts/with-node24.sh npm test`. Node comes from the npm
# registry's node-linux-<arch> package (the official build, its headers included, so native addons compile
# against it offline). better-sqlite3 is compiled for Node 24's ABI once (the build is kept beside that Node)
# and swapped in for the command; the build for this machine's Node is put back afterwards, whatever the
# command's outcome.
#
# `scripts/with-node24.sh --prepare` only installs Node 24 and compiles the addon into that cache, in a copy of
# the package: the checkout's addon is never touched, so it can run while other tests load it.
#
# `scripts/with-node24.sh --copy <command>` runs the command in a copy of the checkout instead of swapping the
# addon in place: the checkout is untouched, so it can run beside other tests on this machine's Node. The copy
# (its packages hard-linked, better-sqlite3 copied with the Node 24 build in it) is removed afterwards, with
# anything the command wrote into it.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${IRONCLAW_NODE24_VERSION:-24}"
# The headers better-sqlite3 compiles against. From 24.19.0 on, node_object_wrap.h (compiled into the addon)
# registers a cleanup hook for every wrapped object and removes it in the destructor, which V8 runs from a GC
# callback with no context entered: Node aborts ("RemoveEnvironmentCleanupHook … Assertion failed: (env) !=
# nullptr", nodejs/node#65446) the first time a collected statement is swept. 24.18.1's header has no hook, and
# every 24.x runtime loads the result (one ABI, NODE_MODULE_VERSION 137).
HEADERS="${IRONCLAW_NODE24_HEADERS:-24.18.1}"
case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64) ARCH=arm64 ;;
  *) echo "with-node24: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
DIR="${IRONCLAW_NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ironclaw/node$VERSION}"
N24="$DIR/node_modules/node-linux-$ARCH"
N24_HEADERS="$DIR/node_modules/node-headers-$HEADERS"
if [ ! -x "$N24/bin/node" ] || [ ! -f "$N24_HEADERS/include/node/node.h" ]; then
  echo "with-node24: installing node-linux-$ARCH@$VERSION (and its $HEADERS headers) into $DIR" >&2
  # One install for both: a later --no-save install into the same prefix would prune the other.
  npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$DIR" \
    "node-linux-$ARCH@$VERSION" "node-headers-$HEADERS@npm:node-linux-$ARCH@$HEADERS" >/dev/null
fi

ADDON=node_modules/better-sqlite3/build/Release/better_sqlite3.node
BSQL_VERSION="$(node -p 'require("./node_modules/better-sqlite3/package.json").version')"
BUILT="$DIR/better-sqlite3-$BSQL_VERSION-headers-$HEADERS.node"

# Compiles the addon for Node 24 in a copy of the package and keeps the result at $BUILT (renamed into place, so
# a reader never sees half a file).
compile_addon() {
  echo "with-node24: $("$N24/bin/node" --version); compiling better-sqlite3 $BSQL_VERSION for it (headers of $HEADERS)" >&2
  local work
  work="$(mktemp -d)"
  cp -a node_modules/better-sqlite3 "$work/better-sqlite3"
  rm -rf "$work/better-sqlite3/build"
  # From source even where prebuilt binaries can be downloaded: they may come from a 24.19+ header.
  (cd "$work/better-sqlite3" && PATH="$N24/bin:$PATH" npm_config_nodedir="$N24_HEADERS" npm run build-release >/dev/null)
  cp "$work/better-sqlite3/build/Release/better_sqlite3.node" "$BUILT.partial"
  mv "$BUILT.partial" "$BUILT"
  rm -rf "$work"
}

if [ "${1:-}" = "--prepare" ]; then
  [ -f "$BUILT" ] || compile_addon
  echo "with-node24: $("$N24/bin/node" --version) and better-sqlite3 $BSQL_VERSION for it are ready in $DIR" >&2
  exit 0
fi
if [ "${1:-}" = "--copy" ]; then
  shift
  [ -f "$BUILT" ] || compile_addon
  COPY="$(mktemp -d "${TMPDIR:-/tmp}/ironclaw-node24-XXXXXX")"
  trap 'rm -rf "$COPY"' EXIT
  # Cells run as users of their own (under a root warden) and must reach the package, as they reach the checkout.
  chmod 755 "$COPY"
  find . -mindepth 1 -maxdepth 1 ! -name node_modules -exec cp -a -t "$COPY/" {} +
  mkdir "$COPY/node_modules"
  # Nothing writes into an installed package, so links do; the cache folder is written to, so the copy starts
  # its own.
  find node_modules -mindepth 1 -maxdepth 1 ! -name better-sqlite3 ! -name .cache -exec cp -al -t "$COPY/node_modules/" {} +
  cp -a node_modules/better-sqlite3 "$COPY/node_modules/"
  cp "$BUILT" "$COPY/$ADDON"
  echo "with-node24: $("$N24/bin/node" --version); better-sqlite3 $BSQL_VERSION for it from $BUILT; in a copy of the checkout ($COPY)" >&2
  cd "$COPY"
  rc=0
  PATH="$N24/bin:$PATH" "$@" || rc=$?
  cd /
  exit "$rc"
fi
SAVED="$(mktemp)"
# The addon as it is now (built for this machine's Node) goes back in place afterwards, whatever the command's
# outcome: a copy, not a second compile.
cp "$ADDON" "$SAVED"
restore() {
  echo "with-node24: putting back better-sqlite3 for $(node --version)" >&2
  cp "$SAVED" "$ADDON" && rm -f "$SAVED"
}
trap restore EXIT
[ -f "$BUILT" ] || compile_addon
echo "with-node24: $("$N24/bin/node" --version); better-sqlite3 $BSQL_VERSION for it from $BUILT" >&2
cp "$BUILT" "$ADDON"
PATH="$N24/bin:$PATH" "$@"
