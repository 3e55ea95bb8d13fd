#!/usr/bin/env bash
# Authorization with unmodified Apache Kafka 4.4.0 brokers and tools on a
# controller quorum: the brokers authenticate clients with SASL/PLAIN and
# forward their admin requests, which the controllers authorize with the
# principal the Envelope carries (Kafka's StandardAuthorizer on both sides).
#
#   authz.sh KRAFT_BINARY
#
# Three controllers (kraft-rs, or Java with AZ_CONTROLLERS=java: the same
# checks against the real thing) and three Java brokers, all with
# authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
# and super.users=User:admin;User:ANONYMOUS; the brokers' client listener
# SASL is SASL_PLAINTEXT (PLAIN: admin, alice), the inter-broker and
# controller listeners PLAINTEXT.
#  - alice, allowed only to describe admin-t and its configs (which the
#    brokers' tools check before they change anything), through a broker:
#    kafka-topics --create,
#    --alter --partitions and --delete, kafka-configs --alter of a topic and
#    kafka-features downgrade are each refused with Kafka's authorization
#    error, and nothing changes (admin's view);
#  - admin grants alice CREATE on the prefix `alice-` with kafka-acls --add
#    (CreateAcls forwarded to the controller): she creates alice-1, is still
#    refused bob-1; kafka-acls --list shows the ACL (the brokers' own
#    authorizer read the record the controller wrote);
#  - kafka-acls --remove takes it back: alice-2 is refused.
# Exits non-zero on the first failed check (with the tails of every node's
# log); always stops every process.
#
# Environment: AZ_CONTROLLERS (kraft | java), AZ_START_TIMEOUT (seconds for
# a broker to be unfenced, default 90), AZ_KEEP=1 keeps the work directory.
set -euo pipefail

kraft=${1:?usage: authz.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "authz.sh: $kraft is not executable" >&2; exit 2; }
mode=${AZ_CONTROLLERS:-kraft}
case $mode in kraft | java) ;; *) echo "authz.sh: AZ_CONTROLLERS must be kraft or java" >&2; exit 2 ;; esac
mode_label=kraft-rs
[[ $mode == java ]] && mode_label=Java
start_timeout=${AZ_START_TIMEOUT:-90}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-authz.XXXXXX")
script=authz.sh
BR_KEEP=${AZ_KEEP:-}
authorizer=org.apache.kafka.metadata.authorizer.StandardAuthorizer
controller_props="authorizer.class.name=$authorizer
super.users=User:admin;User:ANONYMOUS"
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# client_props USER PASSWORD FILE
client_props() {
    cat >"$3" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$1" password="$2";
default.api.timeout.ms=15000
request.timeout.ms=10000
EOF
}

declare -A sasl_port=()
# The SASL listener and the authorizer of each broker, appended after the
# format (a later key overrides an earlier one).
secure_brokers() {
    local id p
    for id in "${brokers[@]}"; do
        p=$(free_port)
        sasl_port[$id]=$p
        cat >>"$d/node$id/server.properties" <<EOF
listeners=PLAINTEXT://127.0.0.1:$(port "$id"),SASL://127.0.0.1:$p
advertised.listeners=PLAINTEXT://127.0.0.1:$(port "$id"),SASL://127.0.0.1:$p
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT
listener.name.sasl.sasl.enabled.mechanisms=PLAIN
listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_alice="alice-secret";
authorizer.class.name=$authorizer
super.users=User:admin;User:ANONYMOUS
EOF
    done
}

sasl_bs() { echo "127.0.0.1:${sasl_port[4]},127.0.0.1:${sasl_port[5]}"; }
# as USER TOOL_CLASS ARGS...: a Kafka tool through the SASL listener.
as() {
    local who=$1 class=$2
    shift 2
    tool "$class" --bootstrap-server "$(sasl_bs)" --command-config "$root/$who.properties" "$@" 2>&1
}
topics_of() { as admin org.apache.kafka.tools.TopicCommand --list; }
# refused WHAT PATTERN OUTPUT STATUS: the tool failed with PATTERN in its output.
refused() {
    local what=$1 pattern=$2 out=$3 rc=$4
    [[ $rc != 0 || $out == *"$pattern"* ]] || fail "$what: not refused (status $rc): $out"
    grep -q -- "$pattern" <<<"$out" || fail "$what: refused without '$pattern': $(head -c 1500 <<<"$out")"
}

d="$root/s1"
tag=1
echo "== three $mode_label controllers with the StandardAuthorizer, three Java brokers authenticating clients with SASL/PLAIN"
client_props admin admin-secret "$root/admin.properties"
client_props alice alice-secret "$root/alice.properties"
start_quorum "$mode"
pass "three $mode_label controllers ($cbs) lead with three voters, super.users=User:admin;User:ANONYMOUS"
format_brokers
secure_brokers
t0=$(now)
for id in "${brokers[@]}"; do start_broker "$id"; done
for id in "${brokers[@]}"; do wait_unfenced "$id" 0 "$t0" "first start"; done
pass "Java brokers 4, 5, 6 with SASL listeners and the StandardAuthorizer are unfenced"

rc=0
out=$(as admin org.apache.kafka.tools.TopicCommand --create --topic admin-t --partitions 1 --replication-factor 1) || rc=$?
[[ $rc == 0 ]] || fail "admin cannot create admin-t: $out"
pass "admin (a super user) creates admin-t through a broker"
# alice may see admin-t and its configs (checked by the brokers, whose
# tools look before they change), nothing more.
rc=0
out=$(as admin org.apache.kafka.tools.AclCommand --add --allow-principal User:alice --operation Describe \
    --operation DescribeConfigs --topic admin-t) || rc=$?
[[ $rc == 0 ]] || fail "kafka-acls --add (DESCRIBE on admin-t) failed: $out"
for _ in $(seq 1 30); do
    as alice org.apache.kafka.tools.TopicCommand --describe --topic admin-t | grep -q "PartitionCount: 1" && break
    sleep 1
done

# ---- alice without the ACLs the changes need ----
rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --create --topic alice-1 --partitions 1 --replication-factor 1) || rc=$?
refused "alice's kafka-topics --create" "TopicAuthorizationException" "$out" "$rc"
rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --alter --topic admin-t --partitions 2) || rc=$?
refused "alice's kafka-topics --alter --partitions" "TopicAuthorizationException" "$out" "$rc"
rc=0; out=$(as alice org.apache.kafka.tools.ConfigCommand --alter --entity-type topics --entity-name admin-t --add-config retention.ms=1000) || rc=$?
refused "alice's kafka-configs --alter" "TopicAuthorizationException" "$out" "$rc"
rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --delete --topic admin-t) || rc=$?
refused "alice's kafka-topics --delete" "TopicAuthorizationException" "$out" "$rc"
rc=0; out=$(as alice org.apache.kafka.tools.FeatureCommand downgrade --feature group.version=0) || rc=$?
refused "alice's kafka-features downgrade" "needs ALTER permission" "$out" "$rc"
list=$(topics_of)
grep -qx admin-t <<<"$list" || fail "admin-t is gone: $list"
! grep -qx alice-1 <<<"$list" || fail "alice-1 exists: $list"
desc=$(as admin org.apache.kafka.tools.TopicCommand --describe --topic admin-t)
grep -q "PartitionCount: 1" <<<"$desc" || fail "admin-t changed: $desc"
cfg=$(as admin org.apache.kafka.tools.ConfigCommand --describe --entity-type topics --entity-name admin-t)
! grep -q "retention.ms=1000" <<<"$cfg" || fail "admin-t's config changed: $cfg"
feat=$(as admin org.apache.kafka.tools.FeatureCommand describe)
grep -qE "Feature: group.version\s+SupportedMinVersion: \S+\s+SupportedMaxVersion: \S+\s+FinalizedVersionLevel: 1" <<<"$feat" ||
    fail "group.version changed: $feat"
pass "alice (DESCRIBE and DESCRIBE_CONFIGS on admin-t only) is refused create, partitions, config alter, delete and a feature downgrade by the controllers; nothing changed"

# ---- admin grants, alice creates ----
rc=0
out=$(as admin org.apache.kafka.tools.AclCommand --add --allow-principal User:alice --operation Create \
    --topic alice- --resource-pattern-type prefixed) || rc=$?
[[ $rc == 0 ]] || fail "kafka-acls --add failed: $out"
pass "admin grants alice CREATE on topics prefixed alice- (kafka-acls --add)"
ok=
for _ in $(seq 1 30); do
    rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --create --topic alice-1 --partitions 1 --replication-factor 1) || rc=$?
    if [[ $rc == 0 ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "alice cannot create alice-1 after the grant: $out"
rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --create --topic bob-1 --partitions 1 --replication-factor 1) || rc=$?
refused "alice's kafka-topics --create bob-1" "TopicAuthorizationException" "$out" "$rc"
grep -qx alice-1 <<<"$(topics_of)" || fail "alice-1 is not listed"
acls=$(as admin org.apache.kafka.tools.AclCommand --list --topic alice- --resource-pattern-type prefixed)
grep -q "principal=User:alice, host=\*, operation=CREATE, permissionType=ALLOW" <<<"$acls" ||
    fail "kafka-acls --list does not show the grant: $acls"
pass "alice creates alice-1 and is still refused bob-1; kafka-acls --list shows the ACL"

rc=0
out=$(as admin org.apache.kafka.tools.AclCommand --remove --force --allow-principal User:alice --operation Create \
    --topic alice- --resource-pattern-type prefixed) || rc=$?
[[ $rc == 0 ]] || fail "kafka-acls --remove failed: $out"
ok=
for _ in $(seq 1 30); do
    rc=0; out=$(as alice org.apache.kafka.tools.TopicCommand --create --topic alice-2 --partitions 1 --replication-factor 1) || rc=$?
    if [[ $rc != 0 && $out == *TopicAuthorizationException* ]]; then ok=1; break; fi
    [[ $rc == 0 ]] && fail "alice created alice-2 after the ACL was removed"
    sleep 1
done
[[ -n $ok ]] || fail "alice-2 not refused after the removal: $out"
pass "kafka-acls --remove takes it back: alice-2 is refused"

stop_scenario "$d"
echo "authz.sh: every check passed ($mode_label controllers) in $(secs "$started")s"
