#!/usr/bin/env bash
# Authorization with unmodified Apache Kafka 4.4.0 brokers and tools on a
# controller quorum: the brokers authenticate clients with SASL/PLAIN and
# forward their admin requests, which the controllers authorize with the
# principal the Envelope carries (Kafka's StandardAuthorizer on both sides).
#
#   authz.sh KRAFT_BINARY
#
# Three controllers (kraft-rs; Java with AZ_CONTROLLERS=java: the same
# checks against the real thing; kraft-rs controller 1 and Java controllers
# 2 and 3 with AZ_CONTROLLERS=mixed) and three Java brokers, all with
# authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
# and super.users=User:admin;User:ANONYMOUS; the brokers' client listener
# SASL is SASL_PLAINTEXT with PLAIN (admin, alice) and SCRAM-SHA-256 (users
# whose credentials are in the metadata log), the inter-broker and
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
#  - SCRAM: admin gives carol SCRAM-SHA-256 and SCRAM-SHA-512 credentials
#    with kafka-configs --alter --entity-type users --add-config
#    (AlterUserScramCredentials, forwarded; the controller writes
#    UserScramCredentialRecords) and WRITE/DESCRIBE on carol-t; carol logs
#    in with SCRAM-SHA-256 (the brokers check her against the record),
#    produces three records with kafka-console-producer, admin consumes them
#    back; kafka-configs --describe shows both credentials; --delete-config
#    SCRAM-SHA-256 (RemoveUserScramCredentialRecord) leaves SCRAM-SHA-512
#    and carol's next SCRAM-SHA-256 login fails ("Authentication failed").
#  - Quotas: admin sets producer_byte_rate=1024 and consumer_byte_rate on
#    client-id quota-client (AlterClientQuotas, forwarded; ClientQuotaRecords);
#    kafka-producer-perf-test with that client.id (20 x 1000 bytes, one
#    batch) is throttled by the broker: its produce-throttle-time-max > 0;
#    --delete-config producer_byte_rate: kafka-configs --describe shows only
#    consumer_byte_rate and the same producer is no longer throttled.
#  - mixed: leadership moves (SIGTERM of the leader, restart, until the
#    wanted implementation leads): the SCRAM credentials are written under
#    a kraft-rs leader and one deleted under a Java leader, which sets the
#    quota; a kraft-rs leader deletes it. java and mixed: at the end
#    Kafka's DumpLogSegments decodes every controller's snapshots and logs
#    (metadata.log.max.snapshot.interval.ms=2000), the logs agree record
#    for record, each snapshot of controller 1 holds the same image as the
#    others' nearest ones and the newest are equal (compare_images in
#    cluster-lib.sh, metadata-images.py); in mixed mode kraft-rs and Java
#    leaders each wrote some of the SCRAM and quota records.
# Exits non-zero on the first failed check (with the tails of every node's
# log); always stops every process.
#
# Environment: AZ_CONTROLLERS (kraft | java | mixed), AZ_START_TIMEOUT
# (seconds for a broker to be unfenced, default 90), AZ_MAX_MOVES (mixed:
# leadership moves at most, default 8), AZ_SNAPSHOT_TIMEOUT (seconds for the
# final snapshots, default 60), AZ_KEEP=1 keeps the work directory after a success.
set -euo pipefail

kraft=${1:?usage: authz.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "authz.sh: $kraft is not executable" >&2; exit 2; }
mode=${AZ_CONTROLLERS:-kraft}
case $mode in kraft | java | mixed) ;; *) echo "authz.sh: AZ_CONTROLLERS must be kraft, java or mixed" >&2; exit 2 ;; esac
case $mode in
kraft) mode_label="three kraft-rs" ;;
java) mode_label="three Java" ;;
mixed) mode_label="kraft-rs 1 and Java 2, 3" ;;
esac
start_timeout=${AZ_START_TIMEOUT:-90}
max_moves=${AZ_MAX_MOVES:-8}
snapshot_timeout=${AZ_SNAPSHOT_TIMEOUT:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-authz.XXXXXX")
script=authz.sh
authorizer=org.apache.kafka.metadata.authorizer.StandardAuthorizer
token_secret=authz-token-secret
controller_props="authorizer.class.name=$authorizer
super.users=User:admin;User:ANONYMOUS
delegation.token.secret.key=$token_secret"
# java and mixed: frequent snapshots, for compare_images.
[[ $mode == kraft ]] || controller_props+="
metadata.log.max.snapshot.interval.ms=2000"
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# client_props USER PASSWORD FILE [MECHANISM [JAAS_EXTRA]]: PLAIN, or
# SCRAM-SHA-256 (JAAS_EXTRA e.g. tokenauth="true").
client_props() {
    local module=org.apache.kafka.common.security.plain.PlainLoginModule
    [[ ${4:-PLAIN} == PLAIN ]] || module=org.apache.kafka.common.security.scram.ScramLoginModule
    cat >"$3" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=${4:-PLAIN}
sasl.jaas.config=$module required username="$1" password="$2"${5:+ $5};
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
listener.name.sasl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256
listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_alice="alice-secret";
listener.name.sasl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
authorizer.class.name=$authorizer
super.users=User:admin;User:ANONYMOUS
delegation.token.secret.key=$token_secret
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

# configs ARGS...: admin's kafka-configs through a broker; fails the test
# when it fails.
configs() {
    local rc=0 out
    out=$(as admin org.apache.kafka.tools.ConfigCommand "$@") || rc=$?
    [[ $rc == 0 ]] || fail "admin's kafka-configs $*: status $rc: $out"
    printf '%s\n' "$out"
}

# mixed: leadership moves by move and lead_by (cluster-lib.sh); lead_by does
# nothing in kraft and java mode, where every controller is of one kind.

d="$root/s1"
tag=1
echo "== $mode_label controllers with the StandardAuthorizer, three Java brokers authenticating clients with SASL/PLAIN and SCRAM-SHA-256"
client_props admin admin-secret "$root/admin.properties"
client_props alice alice-secret "$root/alice.properties"
client_props carol carol-secret "$root/carol.properties" SCRAM-SHA-256
if [[ $mode == mixed ]]; then
    setup_controllers kraft java java
    effective_session
else
    start_quorum "$mode"
fi
pass "$mode_label controllers ($cbs) lead with three voters, super.users=User:admin;User:ANONYMOUS"
format_brokers
secure_brokers
t0=$(now)
for id in "${brokers[@]}"; do start_broker "$id"; done
for id in "${brokers[@]}"; do wait_unfenced "$id" 0 "$t0" "first start"; done
pass "Java brokers 4, 5, 6 with SASL listeners and the StandardAuthorizer are unfenced"
cur=$(wait_leader none 30) || fail "no raft leader"
leaders=("$cur")

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


# ---- SCRAM: credentials the controller wrote, checked by the brokers ----
lead_by kraft-rs
t_scram=$(now)
rc=0; out=$(as admin org.apache.kafka.tools.TopicCommand --create --topic carol-t --partitions 1 --replication-factor 1) || rc=$?
[[ $rc == 0 ]] || fail "admin cannot create carol-t: $out"
# One mechanism a call: Kafka refuses two credentials of one user in one
# request (DUPLICATE_RESOURCE).
for cred in 'SCRAM-SHA-256=[iterations=4096,password=carol-secret]' 'SCRAM-SHA-512=[iterations=8192,password=carol-secret]'; do
    out=$(configs --alter --entity-type users --entity-name carol --add-config "$cred")
    grep -q "Completed updating config for user carol." <<<"$out" || fail "kafka-configs --alter --add-config ${cred%%=*} printed: $out"
done
rc=0
out=$(as admin org.apache.kafka.tools.AclCommand --add --allow-principal User:carol --operation Write \
    --operation Describe --operation DescribeConfigs --topic carol-t) || rc=$?
[[ $rc == 0 ]] || fail "kafka-acls --add (WRITE, DESCRIBE, DESCRIBE_CONFIGS on carol-t for carol) failed: $out"
pass "admin gives carol SCRAM-SHA-256 (4096 iterations) and SCRAM-SHA-512 (8192) credentials (kafka-configs --alter, AlterUserScramCredentials) and WRITE, DESCRIBE, DESCRIBE_CONFIGS on carol-t (controller $cur, $(impl_of "$cur"))"
# carol logs in with SCRAM-SHA-256 as soon as the brokers have the record
# and sees carol-t once they have the ACLs (kafka-topics --describe also
# describes the topic's configs).
ok=
for _ in $(seq 1 20); do
    rc=0; out=$(as carol org.apache.kafka.tools.TopicCommand --describe --topic carol-t) || rc=$?
    if [[ $rc == 0 && $out == *"PartitionCount: 1"* ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "carol cannot log in with SCRAM-SHA-256 and describe carol-t: $(head -c 1500 <<<"$out")"
rc=0
out=$(printf 'carol-1\ncarol-2\ncarol-3\n' | as carol org.apache.kafka.tools.ConsoleProducer --topic carol-t \
    --command-property acks=all --sync) || rc=$?
[[ $rc == 0 && $out != *Exception* ]] || fail "carol's kafka-console-producer (SCRAM-SHA-256) failed (status $rc): $(head -c 1500 <<<"$out")"
rc=0
out=$(as admin org.apache.kafka.tools.consumer.ConsoleConsumer --topic carol-t --partition 0 --offset earliest \
    --max-messages 3 --timeout-ms 20000) || rc=$?
got=$(grep -x 'carol-[0-9]' <<<"$out" | tr '\n' ' ' || true)
[[ $got == "carol-1 carol-2 carol-3 " ]] || fail "admin consumed '$got' from carol-t, not carol-1 carol-2 carol-3 (status $rc): $(head -c 1500 <<<"$out")"
pass "carol logs in with SCRAM-SHA-256 and produces carol-1..3 to carol-t (kafka-console-producer); admin consumes them back"
desc=$(configs --describe --entity-type users --entity-name carol)
grep -q "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-256=iterations=4096, SCRAM-SHA-512=iterations=8192" <<<"$desc" ||
    grep -q "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-512=iterations=8192, SCRAM-SHA-256=iterations=4096" <<<"$desc" ||
    fail "kafka-configs --describe --entity-type users does not show carol's credentials: $desc"
pass "kafka-configs --describe --entity-type users --entity-name carol: $(grep -o "SCRAM credential configs.*" <<<"$desc")"

lead_by Java
out=$(configs --alter --entity-type users --entity-name carol --delete-config SCRAM-SHA-256)
grep -q "Completed updating config for user carol." <<<"$out" || fail "kafka-configs --delete-config SCRAM-SHA-256 printed: $out"
ok=
for _ in $(seq 1 20); do
    rc=0; out=$(as carol org.apache.kafka.tools.TopicCommand --describe --topic carol-t) || rc=$?
    if [[ $rc != 0 && $out == *"Authentication failed"* ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "carol still logs in with SCRAM-SHA-256 after its deletion (status $rc): $(head -c 1500 <<<"$out")"
failed_line=$(grep -m1 -o "SaslAuthenticationException.*Authentication failed[^.]*" <<<"$out" || grep -m1 -o "Authentication failed.*" <<<"$out")
desc=$(configs --describe --entity-type users --entity-name carol)
grep -q "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-512=iterations=8192$" <<<"$desc" ||
    fail "after --delete-config SCRAM-SHA-256, kafka-configs --describe shows: $desc"
pass "admin deletes carol's SCRAM-SHA-256 credential (controller $cur, $(impl_of "$cur")): her next login fails ($(cut -c1-160 <<<"$failed_line")); --describe shows SCRAM-SHA-512 only"
timing "SCRAM: credentials, login, produce, consume, delete" "$(secs "$t_scram")"

# ---- a producer quota, enforced by the brokers ----
t_quota=$(now)
# throttle_max: kafka-producer-perf-test with client.id quota-client, 20
# records of 1000 bytes in one batch to admin-t; sets thr to the producer's
# produce-throttle-time-max (ms) and perf_out to its output.
perf_out=
thr=
throttle_max() {
    local rc=0
    perf_out=$(as admin org.apache.kafka.tools.ProducerPerformance --topic admin-t --num-records 20 --record-size 1000 \
        --throughput -1 --print-metrics --command-property client.id=quota-client acks=1 linger.ms=200 batch.size=65536) || rc=$?
    [[ $rc == 0 ]] || fail "kafka-producer-perf-test failed (status $rc): $(tail -c 1500 <<<"$perf_out")"
    thr=$(awk '$1 ~ /^producer-metrics:produce-throttle-time-max:/ {v = $NF} END {print v == "" ? "none" : v}' <<<"$perf_out")
}
out=$(configs --alter --entity-type clients --entity-name quota-client --add-config producer_byte_rate=1024,consumer_byte_rate=1048576)
grep -q "Completed updating config for client quota-client." <<<"$out" || fail "kafka-configs --alter (quota) printed: $out"
desc=$(configs --describe --entity-type clients --entity-name quota-client)
grep -q "producer_byte_rate=1024" <<<"$desc" || fail "kafka-configs --describe --entity-type clients does not show the quota: $desc"
pass "admin sets producer_byte_rate=1024, consumer_byte_rate=1048576 on client-id quota-client (kafka-configs --alter, AlterClientQuotas; controller $cur, $(impl_of "$cur")): $(grep -o "Quota configs for.*" <<<"$desc")"
ok=
for _ in 1 2 3; do
    throttle_max
    if [[ $thr != none ]] && awk -v t="$thr" 'BEGIN {exit !(t > 0)}'; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "the producer with client.id quota-client was not throttled (produce-throttle-time-max $thr): $(tail -c 1500 <<<"$perf_out")"
pass "kafka-producer-perf-test as quota-client (20 x 1000 bytes) is throttled by the broker: produce-throttle-time-max ${thr} ms ($(grep -m1 "records sent" <<<"$perf_out" | cut -d, -f1,2))"

lead_by kraft-rs
out=$(configs --alter --entity-type clients --entity-name quota-client --delete-config producer_byte_rate)
grep -q "Completed updating config for client quota-client." <<<"$out" || fail "kafka-configs --delete-config producer_byte_rate printed: $out"
ok=
for _ in $(seq 1 10); do
    desc=$(configs --describe --entity-type clients --entity-name quota-client)
    if ! grep -q producer_byte_rate <<<"$desc" && grep -q "consumer_byte_rate=1048576" <<<"$desc"; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "after --delete-config producer_byte_rate, kafka-configs --describe shows: $desc"
ok=
for _ in 1 2 3; do
    throttle_max
    if [[ $thr == 0.000 || $thr == 0.0 || $thr == 0 ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "the producer with client.id quota-client is still throttled after the quota's deletion (produce-throttle-time-max $thr)"
pass "admin deletes producer_byte_rate (controller $cur, $(impl_of "$cur")): --describe shows $(grep -o "Quota configs for.*" <<<"$desc"); the same producer is not throttled (produce-throttle-time-max $thr ms)"
timing "quota: set, throttled producer, delete, unthrottled producer" "$(secs "$t_quota")"

# ---- a delegation token: created, used to log in, renewed, expired ----
t_token=$(now)
lead_by kraft-rs
rc=0
out=$(as admin org.apache.kafka.tools.DelegationTokenCommand --create --max-life-time-period -1 \
    --renewer-principal User:admin) || rc=$?
[[ $rc == 0 ]] || fail "kafka-delegation-tokens --create failed (status $rc): $(head -c 1500 <<<"$out")"
token_line=$(awk '$1 == "TOKENID" {getline; getline; print; exit}' <<<"$out")
token_id=$(awk '{print $1}' <<<"$token_line")
token_hmac=$(awk '{print $2}' <<<"$token_line")
[[ -n $token_id && -n $token_hmac ]] || fail "kafka-delegation-tokens --create printed no token: $out"
pass "admin creates a delegation token (kafka-delegation-tokens --create, CreateDelegationToken forwarded; controller $cur, $(impl_of "$cur")): $(awk '{print $1, $3, $4, $5}' <<<"$token_line")"
client_props "$token_id" "$token_hmac" "$root/token.properties" SCRAM-SHA-256 'tokenauth="true"'
ok=
for _ in $(seq 1 20); do
    rc=0; out=$(as token org.apache.kafka.tools.TopicCommand --describe --topic admin-t) || rc=$?
    if [[ $rc == 0 && $out == *"PartitionCount: 1"* ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "a client cannot log in with the delegation token (SCRAM-SHA-256, tokenauth): $(head -c 1500 <<<"$out")"
rc=0
out=$(printf 'token-1\n' | as token org.apache.kafka.tools.ConsoleProducer --topic admin-t --command-property acks=all --sync) || rc=$?
[[ $rc == 0 && $out != *Exception* ]] || fail "the token client's kafka-console-producer failed (status $rc): $(head -c 1500 <<<"$out")"
rc=0
out=$(as token org.apache.kafka.tools.DelegationTokenCommand --create --max-life-time-period -1) || rc=$?
refused "a token client's kafka-delegation-tokens --create" "UnsupportedByAuthenticationException\|are not allowed" "$out" "$rc"
pass "a client logs in with the token (SCRAM-SHA-256, tokenauth=true) as its owner admin and produces to admin-t, but may not create a token"
rc=0
out=$(as admin org.apache.kafka.tools.DelegationTokenCommand --renew --hmac "$token_hmac" --renew-time-period -1) || rc=$?
[[ $rc == 0 && $out == *"Completed renew operation. New expiry date"* ]] ||
    fail "kafka-delegation-tokens --renew failed (status $rc): $(head -c 1500 <<<"$out")"
pass "admin renews it (RenewDelegationToken; controller $cur, $(impl_of "$cur")): $(grep -o "Completed renew operation.*" <<<"$out")"
rc=0
out=$(as alice org.apache.kafka.tools.DelegationTokenCommand --renew --hmac "$token_hmac" --renew-time-period -1) || rc=$?
refused "alice's kafka-delegation-tokens --renew of admin's token" "DelegationTokenOwnerMismatchException" "$out" "$rc"
lead_by Java
# Just after a move the new leader may not have taken up its duties yet
# (NOT_CONTROLLER, which the admin client does not retry for this call).
for _ in $(seq 1 10); do
    rc=0
    out=$(as admin org.apache.kafka.tools.DelegationTokenCommand --renew --hmac "$token_hmac" --renew-time-period 600000) || rc=$?
    [[ $rc != 0 && $out == *NotControllerException* ]] || break
    sleep 1
done
[[ $rc == 0 && $out == *"Completed renew operation. New expiry date"* ]] ||
    fail "kafka-delegation-tokens --renew (10 min) failed (status $rc): $(head -c 1500 <<<"$out")"
lead_by kraft-rs
for _ in $(seq 1 10); do
    rc=0
    out=$(as admin org.apache.kafka.tools.DelegationTokenCommand --expire --hmac "$token_hmac" --expiry-time-period -1) || rc=$?
    [[ $rc != 0 && $out == *NotControllerException* ]] || break
    sleep 1
done
[[ $rc == 0 && $out == *"Completed expire operation"* ]] ||
    fail "kafka-delegation-tokens --expire failed (status $rc): $(head -c 1500 <<<"$out")"
ok=
for _ in $(seq 1 20); do
    rc=0; out=$(as token org.apache.kafka.tools.TopicCommand --describe --topic admin-t) || rc=$?
    if [[ $rc != 0 && $out == *"Authentication failed"* ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "the token still authenticates after --expire (status $rc): $(head -c 1500 <<<"$out")"
pass "admin expires it (ExpireDelegationToken; controller $cur, $(impl_of "$cur")): the next login with it fails"
timing "delegation token: create, login, produce, renew, expire" "$(secs "$t_token")"

# ---- the controllers' images ----
if [[ $mode != kraft ]]; then
    await_restarted
    compare_images
    if [[ $mode == mixed ]]; then
        # Who wrote the SCRAM and quota records: kraft-rs and Java leaders each.
        for w in "kraft-rs USER_SCRAM_CREDENTIAL_RECORD" "Java REMOVE_USER_SCRAM_CREDENTIAL_RECORD" \
            "Java CLIENT_QUOTA_RECORD" "kraft-rs CLIENT_QUOTA_RECORD" "kraft-rs DELEGATION_TOKEN_RECORD" \
            "Java DELEGATION_TOKEN_RECORD" "kraft-rs REMOVE_DELEGATION_TOKEN_RECORD"; do
            grep -q "^WRITES $w [1-9]" <<<"$images_out" ||
                fail "the metadata log holds no ${w#* } written by a ${w%% *} leader:
$(grep -E '^(TERM|WRITES)' <<<"$images_out")"
        done
        pass "the metadata log: kraft-rs leaders wrote $(awk '$1 == "WRITES" && $2 == "kraft-rs" && $3 ~ /SCRAM|QUOTA|ACCESS_CONTROL|TOKEN/ {printf "%s%sx%s", s, $3, $4; s = ", "}' <<<"$images_out"); Java leaders wrote $(awk '$1 == "WRITES" && $2 == "Java" && $3 ~ /SCRAM|QUOTA|ACCESS_CONTROL|TOKEN/ {printf "%s%sx%s", s, $3, $4; s = ", "}' <<<"$images_out")"
    fi
fi

stop_scenario "$d"
echo "timings:"
printf '  %s\n' "${timings[@]}"
echo "authz.sh: every check passed ($mode_label controllers$( ((moves)) && echo ", $moves leadership moves: leaders ${leaders[*]}")) in $(secs "$started")s"
if [[ -z ${AZ_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
