#!/usr/bin/env bash
# A throw-away PKI for trying operations TLS on one machine: an operations CA, a server
# certificate for the operations endpoint and a client certificate for you (curl, opsctl) or
# Prometheus. ECDSA P-256, as Fabric's own tools issue. For development only: the CA key sits
# unprotected beside the certificates, and nothing here is fit for a real network.
#
#   scripts/dev-pki.sh [DIR] [EXTRA_SERVER_NAME...]
#
# DIR defaults to ./dev-pki. The server certificate names localhost, 127.0.0.1 and ::1, plus any
# extra names given (peer0.org1.example.com, 10.0.0.5, ...). Prints the core.yaml lines and the
# curl command that use the files.
set -euo pipefail

dir="${1:-dev-pki}"
shift || true
command -v openssl >/dev/null 2>&1 || { echo "dev-pki: openssl is needed (apt-get install openssl)" >&2; exit 1; }
if [ -e "$dir/ca.pem" ]; then
  echo "dev-pki: $dir/ca.pem exists; remove $dir or name another directory" >&2
  exit 1
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

sans="DNS:localhost,IP:127.0.0.1,IP:::1"
for name in "$@"; do
  if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then sans="$sans,IP:$name"; else sans="$sans,DNS:$name"; fi
done

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; chmod 600 "$1"; }

# The operations CA: signs the server's and the clients' certificates; clientRootCAs names it.
key "$dir/ca-key.pem"
openssl req -x509 -new -key "$dir/ca-key.pem" -sha256 -days 365 -subj "/O=Dev/CN=dev operations CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out "$dir/ca.pem"

issue() { # name subject extendedKeyUsage [subjectAltName]
  local name="$1" subject="$2" usage="$3" alt="${4:-}"
  local ext="$dir/$name.ext"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$alt" ] && echo "subjectAltName=$alt"
  } >"$ext"
  key "$dir/$name-key.pem"
  openssl req -new -key "$dir/$name-key.pem" -subj "$subject" -out "$dir/$name.csr"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" -CAcreateserial \
    -sha256 -days 365 -extfile "$ext" -out "$dir/$name.pem" 2>/dev/null
  rm -f "$dir/$name.csr" "$ext"
}
issue server "/O=Dev/CN=operations server" serverAuth "$sans"
issue client "/O=Dev/CN=operator" clientAuth
rm -f "$dir/ca.srl"

cat <<OUT
dev-pki: wrote $dir/{ca,server,client}.pem and their -key.pem files

core.yaml (the peer; orderer.yaml's Operations.TLS takes the same files):
operations:
  listenAddress: 127.0.0.1:9443
  tls:
    enabled: true
    cert:
      file: $dir/server.pem
    key:
      file: $dir/server-key.pem
    clientAuthRequired: false
    clientRootCAs:
      files:
        - $dir/ca.pem

then, with the peer running:
curl --cacert $dir/ca.pem https://127.0.0.1:9443/healthz
curl --cacert $dir/ca.pem --cert $dir/client.pem --key $dir/client-key.pem https://127.0.0.1:9443/logspec
OUT
