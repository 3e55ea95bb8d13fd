#!/usr/bin/env bash
# Regenerates the TLS test fixtures of kraft-security with real tools
# (openssl, keytool) and the subject names Java prints for them
# (SubjectNames.java, run with `java SubjectNames.java`).
#
# Run from anywhere:  bash crates/security/tests/data/tls/make-fixtures.sh
# Needs: openssl (3.x), a JDK (keytool, java 11+).
#
# The certificates are valid for 100 years (36500 days), except expired.pem.
# Passwords (test fixtures only):
#   PKCS12 and JKS store password:  store-secret-42
#   JKS key password:               key-secret-42   (differs from the store's)
#   server-keypass.p12 key password: key-secret-42  (differs from the store's)
#   encrypted PKCS#8 PEM keys:      key-secret-42
set -euo pipefail

cd "$(dirname "$0")"
STORE_PASS=store-secret-42
KEY_PASS=key-secret-42
DAYS=36500
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

rm -f -- *.pem *.key *.p12 *.jks expected-subjects.txt

# An RSA key as unencrypted PKCS#8 PEM.
newkey() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }

# A CA: self-signed, basicConstraints CA:true.
make_ca() { # name subject
    newkey "$1.key"
    openssl req -x509 -new -key "$1.key" -days "$DAYS" -subj "$2" -sha256 \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$1.pem"
}

# A leaf certificate signed by a CA.
make_leaf() { # name subject ca san(optional) extra-req-args...
    local name=$1 subj=$2 ca=$3 san=${4:-}
    shift 4 || shift $#
    newkey "$name.key"
    openssl req -new -key "$name.key" -subj "$subj" "$@" -out "$WORK/$name.csr"
    {
        echo "basicConstraints=CA:FALSE"
        echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=serverAuth,clientAuth"
        if [ -n "$san" ]; then echo "subjectAltName=$san"; fi
    } > "$WORK/$name.ext"
    openssl x509 -req -in "$WORK/$name.csr" -CA "$ca.pem" -CAkey "$ca.key" \
        -CAcreateserial -CAserial "$WORK/$ca.srl" -days "$DAYS" -sha256 \
        -extfile "$WORK/$name.ext" -out "$name.pem" 2>/dev/null
}

# PEM key store: key, then the chain (leaf, CA).
pem_keystore() { # name ca
    cat "$1.key" "$1.pem" "$2.pem" > "$1-keystore.pem"
}

# PKCS12 key store (openssl) and JKS key store (keytool, key password differs).
stores() { # name ca
    openssl pkcs12 -export -name "$1" -inkey "$1.key" -in "$1.pem" -certfile "$2.pem" \
        -passout "pass:$STORE_PASS" -out "$1.p12"
    keytool -importkeystore -noprompt -srckeystore "$1.p12" -srcstoretype PKCS12 \
        -srcstorepass "$STORE_PASS" -destkeystore "$1.jks" -deststoretype JKS \
        -deststorepass "$STORE_PASS" -destkeypass "$KEY_PASS" -srcalias "$1" -destalias "$1" 2>/dev/null
}

# The CA every test trusts, and one no test trusts.
make_ca ca "/O=kraft-rs/CN=kraft-rs Test CA"
make_ca untrusted-ca "/O=Elsewhere/CN=Untrusted CA"

# Trust stores with the CA as their only (trusted certificate) entry.
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 \
    -storetype PKCS12 -storepass "$STORE_PASS" 2>/dev/null
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.jks \
    -storetype JKS -storepass "$STORE_PASS" 2>/dev/null

# The server: localhost and 127.0.0.1, a subject with a comma and a plus.
make_leaf server "/C=US/ST=California/L=San Francisco/O=Acme, Inc./OU=Kafka\\+Controllers/CN=localhost" \
    ca "DNS:localhost,IP:127.0.0.1"
pem_keystore server ca
stores server ca
# A PKCS12 key store whose private key has its own password, as Java's
# KeyStore API writes one (keytool cannot: it ignores -keypass for PKCS12):
# the integrity MAC under the store password, the key bag under the key
# password, the certificates unencrypted. With -twopass openssl asks for
# the MAC password, then the key's, each twice; without a terminal
# (setsid) it reads them from standard input.
printf '%s\n' "$STORE_PASS" "$STORE_PASS" "$KEY_PASS" "$KEY_PASS" |
    setsid openssl pkcs12 -export -twopass -certpbe NONE -name server -inkey server.key \
        -in server.pem -certfile ca.pem -out server-keypass.p12
# The same key encrypted (PKCS#8, PBES2 with AES-256-CBC), alone and as a key store.
openssl pkcs8 -topk8 -v2 aes-256-cbc -in server.key -passout "pass:$KEY_PASS" -out server.key.enc.pem
cat server.key.enc.pem server.pem ca.pem > server-keystore-encrypted.pem
# The same key encrypted as older openssl did (PBES2, 3DES, PBKDF2 with HMAC-SHA1).
openssl pkcs8 -topk8 -v2 des3 -v2prf hmacWithSHA1 -in server.key -passout "pass:$KEY_PASS" -out server.key.des3-sha1.pem
# The same key encrypted the legacy way (PKCS#12 PBE with 3DES), as Kafka's own tests do.
openssl pkcs8 -topk8 -v1 PBE-SHA1-3DES -in server.key -passout "pass:$KEY_PASS" -out server.key.legacy-enc.pem

# A second server certificate (new key, same subject and names): the reload test.
make_leaf server2 "/C=US/ST=California/L=San Francisco/O=Acme, Inc./OU=Kafka\\+Controllers/CN=localhost" \
    ca "DNS:localhost,IP:127.0.0.1"
pem_keystore server2 ca
stores server2 ca

# A client certificate.
make_leaf client "/O=kraft-rs/OU=clients/CN=client1" ca ""
pem_keystore client ca
stores client ca

# A server certificate for another host only.
make_leaf other-host "/O=kraft-rs/CN=other.example.com" ca "DNS:other.example.com"
pem_keystore other-host ca

# A server certificate naming its host only in the CN, without subject
# alternative names (older Kafka set-ups; Java's host name check accepts it).
make_leaf cn-only "/O=kraft-rs/CN=localhost" ca ""
pem_keystore cn-only ca
# CN=localhost, but a DNS alternative name for another host: no CN fallback.
make_leaf cn-and-san "/O=kraft-rs/CN=localhost" ca "DNS:other.example.com"
pem_keystore cn-and-san ca

# A server certificate from a CA nobody trusts.
make_leaf untrusted "/O=Elsewhere/CN=localhost" untrusted-ca "DNS:localhost,IP:127.0.0.1"
pem_keystore untrusted untrusted-ca

# An expired server certificate (valid in 2000 only), signed with `openssl ca`.
mkdir -p "$WORK/ca-db"
touch "$WORK/ca-db/index.txt"
echo 1000 > "$WORK/ca-db/serial"
cat > "$WORK/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $WORK/ca-db/index.txt
serial = $WORK/ca-db/serial
new_certs_dir = $WORK/ca-db
default_md = sha256
policy = any
unique_subject = no
copy_extensions = copy
[any]
organizationName = optional
commonName = supplied
CNF
newkey expired.key
openssl req -new -key expired.key -subj "/O=kraft-rs/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -out "$WORK/expired.csr"
openssl ca -batch -config "$WORK/ca.cnf" -cert ca.pem -keyfile ca.key \
    -startdate 20000101000000Z -enddate 20010101000000Z -notext \
    -in "$WORK/expired.csr" -out expired.pem 2>/dev/null
pem_keystore expired ca

# Subjects for subject_name: many attributes, escapes, multi-valued RDNs.
make_leaf subject-many "/C=DE/ST=Berlin/L=Berlin/O=Example GmbH/OU=Platform/OU=Streaming/CN=broker-1/emailAddress=ops@example.com" ca ""
make_leaf subject-escapes "/O=Quotes \"and\" <angles>; semi#colon/OU= padded /CN=#hash=equals\\\\backslash" ca ""
make_leaf subject-multi "/DC=org/DC=example/O=Org/CN=multi+UID=u-42" ca "" -multivalue-rdn
make_leaf subject-utf8 "/O=Zoë Ünïcødé/serialNumber=1234/street=Main Street 1/CN=näme" ca "" -utf8
# DefaultKafkaPrincipalBuilderTest's subjects.
make_leaf duke1 "/C=US/O=Org/OU=ServiceUsers/CN=Duke" ca ""
make_leaf duke2 "/C=US/ST=MD/L=Fulton/O=mycp/OU=SME/CN=Duke" ca ""
make_leaf duke3 "/O=Sun Microsystems/OU=JavaSoft/CN=duke" ca ""
make_leaf duke4 "/C=US/O=Sun Microsystems/OU=JavaSoft" ca ""

rm -f ./*.srl

# What Java prints for each certificate's subject (X500Principal.getName()).
for f in ca untrusted-ca server server2 client other-host cn-only cn-and-san untrusted expired \
         subject-many subject-escapes subject-multi subject-utf8 duke1 duke2 duke3 duke4; do
    echo "$f.pem"
done > "$WORK/list"
java SubjectNames.java $(cat "$WORK/list") > expected-subjects.txt
echo "fixtures written to $(pwd)"
