#!/usr/bin/env bash
# Certificates for the interop scripts' TLS listeners (secure.sh), made
# with openssl (and keytool for the PKCS12 trust store Java reads).
#
#   certs.sh DIR [NAME...]
#
# Into DIR, each file made only when it is missing (so a later call adds a
# certificate signed by the same CA):
#   ca.key, ca.crt          the CA (RSA 2048, self-signed, CA:TRUE), subject
#                           CN=kraft-rs interop CA,O=kraft-rs
#   truststore.p12          the CA as a PKCS12 trust store (keytool
#                           -importcert: Java ignores a certificate in a
#                           PKCS12 file unless it carries Java's trusted-cert
#                           attribute, which openssl 3.0 cannot write)
#   store-password          the password of every PKCS12 file here
# and for each NAME (default: controller-1 controller-2 controller-3
# broker-4 broker-5 broker-6 admin):
#   NAME.key                its RSA 2048 key, unencrypted PKCS#8 PEM
#                           ("BEGIN PRIVATE KEY", what Kafka's PEM key store reads)
#   NAME.crt                its certificate, subject CN=NAME,OU=interop,O=kraft-rs
#                           (RFC 2253 order, as Java prints it), SAN
#                           DNS:localhost,IP:127.0.0.1, serverAuth and
#                           clientAuth (a controller is both), 3650 days
#   NAME.chain.pem          NAME.crt then the CA's certificate
#   NAME.pem                NAME.key then NAME.chain.pem (a file-based PEM key store)
#   NAME.p12                a PKCS12 key store (key, certificate, CA; PBES2
#                           AES-256-CBC for key and certificates, SHA-256 MAC:
#                           Java 17 reads it), alias NAME
#
# Environment: CERTS_CA (default ca) names the CA's files: another name makes
# (or reuses) another CA, e.g. CERTS_CA=rogue-ca certs.sh DIR rogue for a
# certificate nobody trusts; CERTS_PASSWORD (default interop-store-secret),
# used when DIR/store-password does not exist yet; CERTS_DAYS (3650).
set -euo pipefail

dir=${1:?usage: certs.sh DIR [NAME...]}
shift
names=("$@")
((${#names[@]})) || names=(controller-1 controller-2 controller-3 broker-4 broker-5 broker-6 admin)
ca=${CERTS_CA:-ca}
days=${CERTS_DAYS:-3650}
# shellcheck source=tests/interop/ensure-tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/ensure-tools.sh"
command -v openssl >/dev/null || { echo "certs.sh: openssl not found" >&2; exit 2; }

mkdir -p "$dir"
cd "$dir"
[[ -s store-password ]] || printf '%s\n' "${CERTS_PASSWORD:-interop-store-secret}" >store-password
pw=$(cat store-password)

# openssl's own messages only when it fails.
quiet() {
    local out
    out=$("$@" 2>&1) || { echo "certs.sh: $* failed:" >&2; echo "$out" >&2; exit 1; }
}

if [[ ! -s $ca.crt || ! -s $ca.key ]]; then
    quiet openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$ca.key"
    quiet openssl req -x509 -new -key "$ca.key" -sha256 -days "$days" \
        -subj "/O=kraft-rs/CN=kraft-rs interop ${ca}" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash" \
        -out "$ca.crt"
fi
if [[ $ca == ca && ! -s truststore.p12 ]]; then
    command -v keytool >/dev/null || { echo "certs.sh: keytool not found (need a JDK)" >&2; exit 2; }
    rm -f truststore.p12.tmp
    quiet keytool -importcert -noprompt -alias ca -file ca.crt -keystore truststore.p12.tmp \
        -storetype PKCS12 -storepass "$pw"
    mv truststore.p12.tmp truststore.p12
fi

for name in "${names[@]}"; do
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "certs.sh: bad name $name" >&2; exit 2; }
    [[ -s $name.crt && -s $name.key && -s $name.p12 ]] && continue
    ext=$(mktemp)
    cat >"$ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:localhost,IP:127.0.0.1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
    quiet openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$name.key"
    quiet openssl req -new -key "$name.key" -subj "/O=kraft-rs/OU=interop/CN=$name" -out "$name.csr"
    quiet openssl x509 -req -in "$name.csr" -CA "$ca.crt" -CAkey "$ca.key" -CAcreateserial \
        -sha256 -days "$days" -extfile "$ext" -out "$name.crt"
    rm -f "$ext" "$name.csr"
    cat "$name.crt" "$ca.crt" >"$name.chain.pem"
    cat "$name.key" "$name.chain.pem" >"$name.pem"
    quiet openssl pkcs12 -export -inkey "$name.key" -in "$name.crt" -certfile "$ca.crt" -name "$name" \
        -certpbe AES-256-CBC -keypbe AES-256-CBC -macalg sha256 -passout "pass:$pw" -out "$name.p12"
    chmod 600 "$name.key" "$name.pem" "$name.p12"
done
