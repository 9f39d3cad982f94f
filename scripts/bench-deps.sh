#!/usr/bin/env bash
# What `pnpm bench` needs: the test dependencies (scripts/test-deps.sh, which also requires Go 1.26
# or newer on PATH; it builds the Go net/http baseline in bench/go-hello). Debian's golang-go (1.19)
# is never installed: the baseline must be built with the Go that builds today's Fabric.
set -euo pipefail

bash "$(dirname "$0")/test-deps.sh"
