#!/usr/bin/env bash
# What `pnpm bench` needs beyond the test dependencies: the Go toolchain (Debian's golang-go) that
# builds the Go net/http baseline in bench/go-hello. Kept out of scripts/test-deps.sh so CI stays light.
# A missing Go is not fatal: the bench prints that and runs without the Go column.
set -euo pipefail

bash "$(dirname "$0")/test-deps.sh"

command -v go >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "bench-deps: go is missing and apt-get needs root; the bench runs without the Go baseline" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bench-deps: go is missing and there is no apt-get here; the bench runs without the Go baseline" >&2
  exit 0
fi
echo "bench-deps: installing golang-go" >&2
if ! { "${sudo[@]}" apt-get update -qq >/dev/null &&
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends golang-go >/dev/null; }; then
  echo "bench-deps: installing golang-go failed; the bench runs without the Go baseline" >&2
fi
exit 0
