#!/usr/bin/env bash
# Installs the real outside systems the integration tests talk to, when missing:
# - Go 1.26 or newer must already be installed (the x509 differential builds its oracle with it,
#   and its verdicts must be Go 1.26's; Debian's golang-go is 1.19, so this never installs it);
# - Prometheus and promtool 3.16, built with `go install` (module version v0.316.0) into Go's bin
#   directory ($FABRIC_OPS_PROMETHEUS_BIN_DIR when set, else $GOBIN, else $GOPATH/bin), where
#   test-kit's prometheusTool() finds them; Debian's prometheus package is 2.42 and is not used;
# - podman (Docker-compatible API), the blackbox exporter (the kit's /healthz probe), wrk and openssl from apt (Debian/Ubuntu, as root or with sudo).
set -euo pipefail

PROMETHEUS_MODULE_VERSION=v0.316.0 # Prometheus 3.16
GO_MIN_MINOR=26

if ! command -v go >/dev/null 2>&1; then
  echo "test-deps: Go 1.${GO_MIN_MINOR} or newer is required and 'go' is not on PATH; install it from https://go.dev/dl/ (Debian's golang-go is too old)" >&2
  exit 1
fi
go_version="$(go env GOVERSION)"
if ! [[ "$go_version" =~ ^go1\.([0-9]+) ]] || [ "${BASH_REMATCH[1]}" -lt "$GO_MIN_MINOR" ]; then
  echo "test-deps: Go 1.${GO_MIN_MINOR} or newer is required (the x509 oracle must decide as Go 1.26 does); 'go' here is ${go_version} ($(command -v go))" >&2
  exit 1
fi

# Go's bin directory, as test-kit's prometheusTool() looks for it.
if [ -n "${FABRIC_OPS_PROMETHEUS_BIN_DIR:-}" ]; then
  bin_dir="$FABRIC_OPS_PROMETHEUS_BIN_DIR"
elif [ -n "$(go env GOBIN)" ]; then
  bin_dir="$(go env GOBIN)"
else
  bin_dir="$(go env GOPATH | cut -d: -f1)/bin"
fi

# `prometheus --version` of a `go install` build prints no version; the module version Go
# recorded in the binary is the reliable one.
is_prometheus_316() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null | grep -qE "^[[:space:]]+mod[[:space:]]+github.com/prometheus/prometheus[[:space:]]+${PROMETHEUS_MODULE_VERSION}([[:space:]]|$)"
}
build=()
for tool in prometheus promtool; do
  is_prometheus_316 "$bin_dir/$tool" || build+=("github.com/prometheus/prometheus/cmd/${tool}@${PROMETHEUS_MODULE_VERSION}")
done
if [ ${#build[@]} -ne 0 ]; then
  echo "test-deps: building ${build[*]} into ${bin_dir} (a few minutes from a cold Go cache)" >&2
  mkdir -p "$bin_dir"
  GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "${build[@]}"
fi

need=()
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v prometheus-blackbox-exporter >/dev/null 2>&1 || command -v blackbox_exporter >/dev/null 2>&1 || need+=(prometheus-blackbox-exporter)
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
