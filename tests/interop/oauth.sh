#!/usr/bin/env bash
# OAUTHBEARER with signed JWTs between a kraft-rs controller and Kafka's own
# client: one kraft-rs controller whose second listener serves OAUTHBEARER
# with Kafka's JWT validator (OAuthBearerValidatorCallbackHandler) over the
# JWKS of the golden JWT cases (crates/security/tests/data/sasl); Kafka
# 4.4's kafka-metadata-quorum logs in with OAuthBearerLoginCallbackHandler
# and a file: token URL (FileJwtRetriever), allowed through
# -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls as Kafka requires:
#
#   * the case `rs256` is served (describe --status prints the leader);
#   * `bad_signature` and `expired` fail with Kafka's
#     SaslAuthenticationException: {"status":"invalid_token"}.
#
#   KRAFT=target/debug/kraft tests/interop/oauth.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/interop/ensure-tools.sh
source "$here/ensure-tools.sh"
kraft=${KRAFT:-$root/target/debug/kraft}
cases=$root/crates/security/tests/data/sasl
work=$(mktemp -d)
pid=
cleanup() {
    if [[ -n $pid ]]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "oauth.sh: FAIL: $*" >&2
    [[ -f $work/server.log ]] && tail -20 "$work/server.log" >&2
    exit 1
}
[[ -x $kraft ]] || fail "no kraft binary at $kraft (cargo build -p kraft-cli)"

free_port() {
    local p
    for _ in $(seq 1 100); do
        p=$((20000 + RANDOM % 12000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    fail "no free port"
}
port=$(free_port)
oauth_port=$(free_port)
[[ $port != "$oauth_port" ]] || oauth_port=$((port + 1))
jwks_url=file:$cases/jwt_jwks.json
cat >"$work/controller.properties" <<EOF
node.id=1
process.roles=controller
controller.listener.names=CONTROLLER,OAUTH
listeners=CONTROLLER://127.0.0.1:$port,OAUTH://127.0.0.1:$oauth_port
listener.security.protocol.map=CONTROLLER:PLAINTEXT,OAUTH:SASL_PLAINTEXT
log.dirs=$work/data
metadata.log.dir=$work/data
controller.quorum.bootstrap.servers=127.0.0.1:$port
listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER
listener.name.oauth.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
listener.name.oauth.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler
sasl.oauthbearer.jwks.endpoint.url=$jwks_url
sasl.oauthbearer.expected.audience=kraft-rs-test
sasl.oauthbearer.expected.issuer=https://issuer.example
EOF
"$kraft" storage format --config "$work/controller.properties" \
    --cluster-id "$("$kraft" storage random-uuid)" --standalone >"$work/format.log" 2>&1 ||
    fail "format: $(cat "$work/format.log")"
KAFKA_OPTS="-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=$jwks_url" \
    "$kraft" server --config "$work/controller.properties" >"$work/server.log" 2>&1 &
pid=$!

# The client file and token of case $1 (from jwt_cases.txt).
client() {
    local name=$1
    grep "^$name " "$cases/jwt_cases.txt" | cut -d' ' -f2 >"$work/$name.jwt"
    [[ -s $work/$name.jwt ]] || fail "no case $name"
    cat >"$work/$name.properties" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=OAUTHBEARER
sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler
sasl.oauthbearer.token.endpoint.url=file:$work/$name.jwt
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
default.api.timeout.ms=8000
request.timeout.ms=4000
EOF
}

# Kafka's tool as case $1; stdout and stderr to $work/$1.out.
kafka_tool() {
    local name=$1
    client "$name"
    KQ_JVM_FLAGS="-Xms64m -Xmx320m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:$work/$name.jwt" \
        bash "$here/kafka-quorum.sh" tool "$work/kq" org.apache.kafka.tools.MetadataQuorumCommand \
        --bootstrap-controller "127.0.0.1:$oauth_port" --command-config "$work/$name.properties" \
        describe --status >"$work/$name.out" 2>&1
}

# Ready when kraft's own CLI is served with the good token.
client rs256
for _ in $(seq 1 60); do
    if KAFKA_OPTS="-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:$work/rs256.jwt" \
        "$kraft" metadata-quorum --bootstrap-controller "127.0.0.1:$oauth_port" \
        --command-config "$work/rs256.properties" describe --status 2>/dev/null | grep -q '^LeaderId: *1'; then
        ready=1
        break
    fi
    sleep 0.5
done
[[ ${ready:-} == 1 ]] || fail "the OAUTHBEARER listener never served the rs256 token"

kafka_tool rs256 || fail "Kafka's tool with a good token: $(cat "$work/rs256.out")"
grep -q '^LeaderId: *1' "$work/rs256.out" || fail "no leader in: $(cat "$work/rs256.out")"
echo "oauth.sh: Kafka's kafka-metadata-quorum with a FileJwtRetriever token is served"
for name in bad_signature expired; do
    if kafka_tool "$name"; then
        fail "Kafka's tool was served with the $name token"
    fi
    grep -q 'SaslAuthenticationException: {"status":"invalid_token"}' "$work/$name.out" ||
        fail "$name: $(head -5 "$work/$name.out")"
    echo "oauth.sh: the $name token is refused with {\"status\":\"invalid_token\"}"
done
! grep -qF "$(cat "$work/rs256.jwt")" "$work/server.log" || fail "a token is in the server log"
echo "oauth.sh: PASS"
