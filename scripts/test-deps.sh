#!/usr/bin/env bash
# Installs the real outside systems the integration tests talk to, when missing:
# podman (Docker-compatible API), prometheus + promtool, the blackbox exporter (the kit's /healthz probe), wrk, openssl, and Go (golang-go: the
# x509 differential test builds its oracle from tools/x509-oracle). Debian/Ubuntu, as root or with sudo.
set -euo pipefail

need=()
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v prometheus-blackbox-exporter >/dev/null 2>&1 || command -v blackbox_exporter >/dev/null 2>&1 || need+=(prometheus-blackbox-exporter)
command -v go >/dev/null 2>&1 || need+=(golang-go)
[ ${#need[@]} -eq 0 ] && exit 0

# podman as root needs these at run time on a minimal image.
need+=(uidmap slirp4netns fuse-overlayfs)
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "test-deps: missing ${need[*]}; install them with apt-get (needs root) or run 'pnpm test:unit'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: missing ${need[*]} and no apt-get here; install them by hand" >&2
  exit 1
fi
echo "test-deps: installing ${need[*]}" >&2
"${sudo[@]}" apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
