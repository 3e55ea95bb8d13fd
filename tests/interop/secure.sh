#!/usr/bin/env bash
# A controller quorum behind a secured controller listener, with unmodified
# Apache Kafka 4.4.0 brokers and tools: TLS with client certificates
# (mTLS), or SASL over TLS, written with Kafka's own configuration keys,
# the same for kraft-rs and Java controllers.
#
#   secure.sh KRAFT_BINARY
#
# Three controllers (kraft-rs; Java with SEC_CONTROLLERS=java: the same
# checks against the real thing; kraft-rs controller 1 and Java controllers
# 2 and 3 with SEC_CONTROLLERS=mixed) and three Java brokers 4-6, whose own
# listener stays PLAINTEXT for the clients; certs.sh makes a CA and a
# certificate per node (subject CN=controller-N / CN=broker-N /
# CN=admin,OU=interop,O=kraft-rs; SAN DNS:localhost,IP:127.0.0.1).
#
# SEC_MODE=mtls (default): listener CONTROLLER is SSL with
# listener.name.controller.ssl.client.auth=required. Controllers 2 and 3 and
# the brokers hold their key store inline, Strimzi's way
# (listener.name.controller.ssl.keystore.type=PEM, ...keystore.certificate.chain
# and ...keystore.key: one line each, "\n" escapes) and trust the CA
# inline (...ssl.truststore.type=PEM, ...ssl.truststore.certificates);
# controller 1 runs docs/operations.md's mTLS block: its key store and the
# CA in PEM files (...ssl.keystore.location, so that it can be rotated;
# ...ssl.truststore.location) and ssl.principal.mapping.rules. Controllers
# reach each other through the same listener with their own certificates;
# the brokers with theirs.
# SEC_MODE=sasl_ssl: listener CONTROLLER is SASL_SSL with PKCS12 key and
# trust stores (files with passwords; no client certificates);
# listener.name.controller.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512; the
# controllers log in to each other with PLAIN (sasl.mechanism.controller.protocol=PLAIN,
# user controller in listener.name.controller.plain.sasl.jaas.config: KAFKA-15513,
# Java controllers cannot use SCRAM among themselves); the brokers log in
# with SCRAM-SHA-512 as user broker
# (listener.name.controller.scram-sha-512.sasl.jaas.config, the key a
# broker's controller connections read), whose credentials the controllers
# were formatted with (`storage format --add-scram
# 'SCRAM-SHA-512=[name=broker,password=...,salt=...,iterations=8192]'`,
# Kafka's StorageTool and kraft alike; one salt for all three, so that their
# bootstrap snapshots are equal).
#
# Checks, each printing PASS (a failure prints the tail of every node's log):
#  1. the controllers elect a leader with three voters and replicate to each
#     other over the secured listener; openssl s_client sees each
#     controller's own certificate (CN=controller-N), verified against the
#     CA for 127.0.0.1; mtls: each broker's configured certificate is
#     CN=broker-N and verifies as a client certificate;
#  2. the three Java brokers register and are unfenced (their controller
#     connections authenticated);
#  3. Kafka's tools with --command-config (security.protocol, ssl.*, and
#     for sasl_ssl sasl.mechanism=PLAIN and sasl.jaas.config of user
#     controller): kafka-metadata-quorum describe --status and --replication,
#     kafka-features describe, kafka-cluster list-endpoints, all with
#     --bootstrap-controller; `kraft metadata-quorum` with the same file
#     prints describe --status and --replication as Kafka's tool does (the
#     HighWatermark/MaxFollowerLag* lines and the offset/time columns
#     aside); sasl_ssl: user broker (SCRAM-SHA-512) may use the tools too;
#  4. refused: a client without security settings (Kafka's tool: does not
#     succeed within 30 s; kraft: exits non-zero within 30 s and says why),
#     sasl_ssl: a wrong password ("Authentication failed", both tools),
#     mtls: no client certificate, and a certificate from another CA;
#  5. mtls, controller 1 kraft-rs: its PEM key store file is replaced by a
#     renewed certificate (new key, same subject, same CA; a changed
#     subject is refused as Kafka refuses it without ssl.allow.dn.changes);
#     within 30 s a new TLS connection to it sees the new certificate,
#     kafka-metadata-quorum succeeded during the rotation and, bootstrapped
#     from controller 1 alone, after it, and the leader epoch did not change (Java controller 1: skipped, Kafka reloads a key
#     store only on a dynamic config change);
#  6. topic t (3 partitions, RF 3, min.insync.replicas=2) created through a
#     broker; TopicWorkload (topics.sh's idempotent acks=all producer) sends
#     SEC_RECORDS keyed records, paced, while the raft leader is SIGKILLed:
#     a new leader, every broker logs that it uses it, the producer keeps
#     being acknowledged, the killed controller restarts and follows; then
#     every send is acknowledged and a consumer group reads every
#     acknowledged record exactly once at its offset (TopicWorkload's checks);
#  7. mixed: leadership moves (SIGTERM of the leader, restart, as authz.sh)
#     to the other implementation and back, each leader creating a topic;
#     java and mixed: compare_images (cluster-lib.sh) at the end, with
#     metadata.log.max.snapshot.interval.ms=2000.
#
# The listener's keys, the certificates and the clients' files are
# cluster-lib.sh's security_init (shared with swap.sh's SW_SECURITY=sasl_ssl);
# the SASL_SSL ones are docs/operations.md's blocks, word for word (doc_fill:
# "Securing the quorum"). This script redefines quorum only with
# SEC_SKIP_KRAFT_CLI=1 (Kafka's tool instead of `kraft metadata-quorum`).
#
# Environment: SEC_MODE (mtls | sasl_ssl), SEC_CONTROLLERS (kraft | java |
# mixed), SEC_SKIP_KRAFT_CLI=1 (no `kraft metadata-quorum` call, Kafka's
# tool polls the quorum instead: for a kraft build without TLS against Java
# controllers; by default the kraft CLI checks run), SEC_RECORDS (default 4000), SEC_RATE (records/s while the leader is
# killed, default 40), SEC_START_TIMEOUT (seconds for a broker to be
# unfenced, default 90), SEC_MAX_MOVES (mixed, default 8),
# SEC_SNAPSHOT_TIMEOUT (default 60), SEC_KEEP=1 keeps the work directory
# after a success.
set -euo pipefail

kraft=${1:?usage: secure.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "secure.sh: $kraft is not executable" >&2; exit 2; }
sec=${SEC_MODE:-mtls}
case $sec in mtls | sasl_ssl) ;; *) echo "secure.sh: SEC_MODE must be mtls or sasl_ssl" >&2; exit 2 ;; esac
mode=${SEC_CONTROLLERS:-kraft}
case $mode in kraft | java | mixed) ;; *) echo "secure.sh: SEC_CONTROLLERS must be kraft, java or mixed" >&2; exit 2 ;; esac
case $mode in
kraft) mode_label="three kraft-rs" ;;
java) mode_label="three Java" ;;
mixed) mode_label="kraft-rs 1 and Java 2, 3" ;;
esac
skip_kraft_cli=${SEC_SKIP_KRAFT_CLI:-}
records=${SEC_RECORDS:-4000}
rate=${SEC_RATE:-40}
start_timeout=${SEC_START_TIMEOUT:-90}
max_moves=${SEC_MAX_MOVES:-8}
snapshot_timeout=${SEC_SNAPSHOT_TIMEOUT:-60}
for v in records rate start_timeout max_moves snapshot_timeout; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "secure.sh: $v must be a positive integer (${!v})" >&2; exit 2; }
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-secure.XXXXXX")
script=secure.sh
# java and mixed: frequent snapshots, for compare_images.
[[ $mode == kraft ]] || controller_props+="
metadata.log.max.snapshot.interval.ms=2000"

# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
trap cleanup EXIT
# The certificates, the listener's keys and ctl_cfg (cluster-lib.sh).
security_init "$sec" "${controllers[@]}"
ccfg=$ctl_cfg
# Kafka's classpath (Maven, the first time) and TopicWorkload compiled
# once, before the parallel formats would each try.
t0=$(now)
bash "$kq" java "$root" org.kraftrs.interop.TopicWorkload >/dev/null 2>&1 || true
[[ -s $here/kafka-quorum/target/classpath.txt ]] || fail "kafka-quorum.sh could not resolve Kafka 4.4.0 (Maven)"
timing "Kafka's classpath and TopicWorkload (kafka-quorum.sh java)" "$(secs "$t0")"

# cluster-lib's quorum (with ctl_cfg), or Kafka's tool with SEC_SKIP_KRAFT_CLI=1.
if [[ -n $skip_kraft_cli ]]; then
    quorum() {
        local bs
        bs=$(alive_bs "${controllers[@]}")
        [[ -n $bs ]] || return 0
        tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$bs" --command-config "$ccfg" \
            describe "$@" 2>/dev/null || true
    }
fi
leader_epoch() { quorum --status | awk '/^LeaderEpoch:/ {print $2}'; }
# kafka_quorum CONFIG ARGS...: Kafka's kafka-metadata-quorum (stdout only).
kafka_quorum() {
    local cfg=$1
    shift
    tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$cbs" --command-config "$cfg" "$@"
}
kraft_quorum() {
    local cfg=$1
    shift
    timeout 30 "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$cfg" "$@"
}
# The lines of describe --status that move on every call masked; the
# replication table as NodeId DirectoryId Status.
# CommittedVoters is DescribeQuorum v3 (a kraft-rs extension): the kraft CLI
# prints it when a kraft-rs leader answers; Kafka's tool knows only v2.
mask_status() {
    sed -E -e 's/^(HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):.*/\1: <varies>/' -e '/^CommittedVoters:/d'
}
mask_replication() {
    awk -F'\t' '{ for (i = 1; i <= NF; i++) { gsub(/^ +| +$/, "", $i) } print $1, $2, $7 }'
}

# subject_of PORT: the subject (RFC 2253) of the certificate a TLS
# connection to 127.0.0.1:PORT sees, verified against the CA for
# 127.0.0.1 (empty when the handshake or the verification fails).
# fingerprint_of PORT: the SHA-256 fingerprint of the certificate a TLS
# listener presents now (verified against the CA), or nothing.
fingerprint_of() {
    local out
    out=$(timeout 10 openssl s_client -connect "127.0.0.1:$1" -CAfile "$certs/ca.crt" -verify_ip 127.0.0.1 \
        -verify_return_error -cert "$certs/admin.crt" -key "$certs/admin.key" </dev/null 2>/dev/null) || true
    grep -q "Verify return code: 0 (ok)" <<<"$out" || return 0
    openssl x509 -noout -fingerprint -sha256 <<<"$out" 2>/dev/null | sed 's/^.*=//' || true
}
subject_of() {
    local out
    out=$(timeout 10 openssl s_client -connect "127.0.0.1:$1" -CAfile "$certs/ca.crt" -verify_ip 127.0.0.1 \
        -verify_return_error -cert "$certs/admin.crt" -key "$certs/admin.key" </dev/null 2>/dev/null) || true
    grep -q "Verify return code: 0 (ok)" <<<"$out" || return 0
    openssl x509 -noout -subject -nameopt RFC2253 <<<"$out" 2>/dev/null | sed 's/^subject=//' || true
}

# The brokers' controller connections' security (broker_security, appended
# by format_brokers), their workload settings, and mixed mode's leadership
# moves (move, lead_by): cluster-lib.sh's.
workload_brokers 3

# ---------- topics and the workload (topics.sh's TopicWorkload) ----------
# bs, create_config and workload: cluster-lib.sh's.
topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" "$@"; }
# full_isr TOPIC PARTITIONS: --describe shows each partition with a leader and 3 in Isr.
desc=
full_isr() {
    desc=$(topics --command-config "$fast" --describe --topic "$1" 2>&1) || return 1
    sed -n 's/.*Partition: \([0-9]*\).*Leader: \([-0-9a-z]*\).*Replicas: \([0-9,]*\).*Isr: \([0-9,]*\).*/\1 \2 \3 \4/p' <<<"$desc" |
        awk -v n="$2" '{ if (!($2 ~ /^[0-9]+$/) || split($4, i, ",") != 3) bad = 1; seen[$1] = 1 }
            END { for (p = 0; p < n; p++) if (!(p in seen)) bad = 1; exit bad }'
}
# create_topic NAME PARTITIONS: RF 3, min.insync.replicas=2, every ISR full.
create_topic() {
    local out rc=0 deadline
    out=$(topics --command-config "$create_config" --create --topic "$1" --partitions "$2" --replication-factor 3 \
        --config min.insync.replicas=2 2>&1) || rc=$?
    if [[ $rc != 0 ]] || ! grep -qx "Created topic $1." <<<"$out"; then
        fail "kafka-topics --create --topic $1 (leader $(leader_id)) failed (status $rc): $(tail -c 2000 <<<"$out")"
    fi
    deadline=$((SECONDS + 60))
    until full_isr "$1" "$2"; do
        ((SECONDS < deadline)) || fail "topic $1: not every partition has a leader and 3 in Isr within 60s: $desc"
        sleep 0.5
    done
}
w="$root/workload"
ppid_=
cleanup_hook() { stop_pids "$w"/*.pid; }
fail_hook() {
    local f
    for f in "$w"/producer.log "$w"/consumer.log; do
        [[ -f $f ]] || continue
        echo "--- ${f##*/}, tail:"
        tail -n 15 "$f" | cut -c1-400
    done
}
# Records in the producer's file (written in full when it ends).
acked_now() { local n; n=$(grep -c '' "$w/acked.txt" 2>/dev/null) || true; echo "${n:-0}"; }
progress_line() { grep '^progress' "$w/producer.log" 2>/dev/null | tail -n 1 || true; }
# The acknowledged count of the producer's latest progress line (every 5 s).
acked_progress() { local n; n=$(progress_line | sed -n 's/.* acknowledged \([0-9]*\),.*/\1/p'); echo "${n:-0}"; }
producer_alive() {
    [[ -n $ppid_ ]] || return 0
    kill -0 "$ppid_" 2>/dev/null && return 0
    local rc=0
    wait "$ppid_" 2>/dev/null || rc=$?
    ppid_=
    rm -f "$w/producer.pid"
    fail "the producer exited (status $rc) before the leader kill was over: $(grep -E '^(PRODUCED|FIRST_ACK)' "$w/producer.log" | tr '\n' ' ')$( ((rc == 0)) && echo "(it sent all $records records while paced: raise SEC_RECORDS)")"
}

# =====================================================================
d="$root/s1"
tag=$sec
sec_label=$([[ $sec == mtls ]] && echo "mTLS (SSL, ssl.client.auth=required, inline PEM)" || echo "SASL_SSL (PKCS12 stores; PLAIN among controllers, SCRAM-SHA-512 for brokers)")
echo "== $mode_label controllers, controller listener $sec_label, three Java brokers"

# ---- 1. the quorum over the secured listener ----
if [[ $mode == mixed ]]; then
    setup_controllers kraft java java
elif [[ $mode == java ]]; then
    setup_controllers java java java
else
    setup_controllers kraft kraft kraft
fi
effective_session
cur=$(wait_leader none 30) || fail "no raft leader"
leaders=("$cur")
for id in "${controllers[@]}"; do
    [[ $id == "$cur" ]] && continue
    wait_follower "$id" 60 || fail "controller $id does not follow leader $cur over the $sec listener: $(quorum --replication)"
done
pass "$mode_label controllers ($cbs) elect leader $cur with three voters and replicate to each other over the $sec controller listener"
subjects=
for id in "${controllers[@]}"; do
    s=$(subject_of "$(port "$id")")
    [[ $s == "CN=controller-$id,OU=interop,O=kraft-rs" ]] ||
        fail "controller $id ($(impl_of "$id")) presents '${s:-no certificate verified against the CA for 127.0.0.1}', not CN=controller-$id,OU=interop,O=kraft-rs"
    subjects+="${subjects:+; }$id: $s"
done
pass "openssl s_client sees each controller's own certificate, verified against the CA for IP 127.0.0.1: $subjects"

# ---- 2. the brokers ----
format_brokers
if [[ $sec == mtls ]]; then
    subjects=
    for id in "${brokers[@]}"; do
        chain=$(sed -n "s/^$lc.ssl.keystore.certificate.chain=//p" "$d/node$id/server.properties" | tail -n 1)
        s=$(printf '%b' "$chain" | openssl x509 -noout -subject -nameopt RFC2253 | sed 's/^subject=//')
        [[ $s == "CN=broker-$id,OU=interop,O=kraft-rs" ]] || fail "broker $id's configured certificate is '$s'"
        printf '%b' "$chain" | openssl verify -CAfile "$certs/ca.crt" -purpose sslclient >/dev/null 2>&1 ||
            fail "broker $id's certificate does not verify as a TLS client certificate against the CA"
        subjects+="${subjects:+; }$id: $s"
    done
    pass "each broker's inline key store holds its own client certificate: $subjects"
fi
t0=$(now)
for id in "${brokers[@]}"; do start_broker "$id"; done
for id in "${brokers[@]}"; do wait_unfenced "$id" 0 "$t0" "first start"; done
check_brokers "after the first start"
pass "Java brokers 4, 5, 6 reach the controllers over $sec ($([[ $sec == mtls ]] && echo "client certificates CN=broker-N" || echo "SCRAM-SHA-512 as user broker, credentials from format --add-scram")), register and are unfenced"

# ---- 3. the tools with --command-config ----
t_tools=$(now)
rc=0
st_kafka=$(kafka_quorum "$ccfg" describe --status 2>"$root/tool.err") || rc=$?
if [[ $rc != 0 ]] || ! grep -qE '^LeaderId: +[0-9]' <<<"$st_kafka"; then
    fail "kafka-metadata-quorum --command-config describe --status failed (status $rc): $st_kafka $(tail -c 1500 "$root/tool.err")"
fi
[[ $(grep '^CurrentVoters:' <<<"$st_kafka" | grep -o '"id": *[0-9]*' | wc -l) == 3 ]] || fail "describe --status: not three voters: $st_kafka"
grep -q "CONTROLLER://127.0.0.1:$(port 1)" <<<"$st_kafka" || fail "describe --status does not show controller 1's endpoint: $st_kafka"
pass "kafka-metadata-quorum --bootstrap-controller --command-config describe --status: $(grep -E '^(LeaderId|LeaderEpoch):' <<<"$st_kafka" | tr -s ' ' | paste -sd ' ')"
rc=0
rep_kafka=$(kafka_quorum "$ccfg" describe --replication 2>"$root/tool.err") || rc=$?
[[ $rc == 0 ]] || fail "kafka-metadata-quorum describe --replication failed (status $rc): $(tail -c 1500 "$root/tool.err")"
rows=$(mask_replication <<<"$rep_kafka")
for id in "${controllers[@]}"; do awk -v id="$id" '$1 == id && ($3 == "Leader" || $3 == "Follower") {f = 1} END {exit !f}' <<<"$rows" || fail "describe --replication: controller $id is not a voter: $rep_kafka"; done
for id in "${brokers[@]}"; do awk -v id="$id" '$1 == id && $3 == "Observer" {f = 1} END {exit !f}' <<<"$rows" || fail "describe --replication: broker $id is not an observer: $rep_kafka"; done
pass "kafka-metadata-quorum describe --replication: $(awk 'NR > 1 {printf "%s%s %s", s, $1, $3; s = ", "}' <<<"$rows")"
rc=0
out=$(tool org.apache.kafka.tools.FeatureCommand --bootstrap-controller "$cbs" --command-config "$ccfg" describe 2>"$root/tool.err") || rc=$?
if [[ $rc != 0 ]] || ! grep -qE "Feature: metadata.version.*FinalizedVersionLevel: $release_version" <<<"$out"; then
    fail "kafka-features --bootstrap-controller --command-config describe (status $rc): $out $(tail -c 1500 "$root/tool.err")"
fi
pass "kafka-features --bootstrap-controller --command-config describe: $(grep -c '^Feature:' <<<"$out") features, metadata.version $release_version"
rc=0
out=$(tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-controller "$cbs" --command-config "$ccfg" 2>"$root/tool.err") || rc=$?
[[ $rc == 0 ]] || fail "kafka-cluster list-endpoints --bootstrap-controller --command-config (status $rc): $out $(tail -c 1500 "$root/tool.err")"
for id in "${controllers[@]}"; do
    awk -v id="$id" -v p="$(port "$id")" '$1 == id && $2 == "127.0.0.1" && $3 == p && $NF == "controller" {f = 1} END {exit !f}' <<<"$out" ||
        fail "kafka-cluster list-endpoints does not list controller $id at 127.0.0.1:$(port "$id"): $out"
done
pass "kafka-cluster list-endpoints --bootstrap-controller --command-config lists controllers 1, 2, 3"
if [[ $sec == sasl_ssl ]]; then
    client_config "$root/broker-user.properties" broker "$broker_password" SCRAM-SHA-512
    rc=0
    out=$(kafka_quorum "$root/broker-user.properties" describe --status 2>&1) || rc=$?
    if [[ $rc != 0 ]] || ! grep -qE '^LeaderId: +[0-9]' <<<"$out"; then
        fail "kafka-metadata-quorum as user broker (SCRAM-SHA-512) failed (status $rc): $(tail -c 1500 <<<"$out")"
    fi
    pass "kafka-metadata-quorum as user broker with SCRAM-SHA-512 (the credentials of format --add-scram) is answered"
fi
if [[ -n $skip_kraft_cli ]]; then
    echo "SKIP kraft metadata-quorum checks (SEC_SKIP_KRAFT_CLI=1)"
else
    for what in --status --replication; do
        ok=
        for attempt in 1 2 3; do
            rc=0
            ours=$(kraft_quorum "$ccfg" describe "$what" 2>"$root/kraft.err") || rc=$?
            [[ $rc == 0 ]] || fail "kraft metadata-quorum --command-config describe $what failed (status $rc): $ours $(tail -c 1500 "$root/kraft.err")"
            theirs=$(kafka_quorum "$ccfg" describe "$what" 2>/dev/null) || true
            if [[ $what == --status ]]; then
                a=$(mask_status <<<"$ours")
                b=$(mask_status <<<"$theirs")
            else
                a=$(mask_replication <<<"$ours")
                b=$(mask_replication <<<"$theirs")
            fi
            if [[ $a == "$b" ]]; then ok=1; break; fi
            sleep 1
        done
        [[ -n $ok ]] || fail "kraft metadata-quorum describe $what differs from Kafka's (3 tries; timing fields masked):
$(diff <(echo "$a") <(echo "$b") | head -n 30)
--- kraft:
$ours
--- Kafka:
$theirs"
        pass "kraft metadata-quorum --command-config describe $what prints what Kafka's tool prints ($(wc -l <<<"$a") lines; timing fields masked)"
    done
fi
timing "Kafka's tools and kraft's CLI over $sec" "$(secs "$t_tools")"

# ---- 4. refused clients ----
t_bad=$(now)
# refused_kafka WHAT CONFIG [PATTERN]: Kafka's tool with CONFIG does not
# succeed within 30 s (and prints PATTERN when given).
refused_kafka() {
    local rc=0 out
    out=$(timeout 30 bash "$kq" tool "$d" org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$cbs" \
        --command-config "$2" describe --status 2>&1) || rc=$?
    if [[ $rc == 0 ]] || grep -qE '^LeaderId: +[0-9]' <<<"$out"; then fail "$1: Kafka's kafka-metadata-quorum succeeded: $out"; fi
    [[ -z ${3:-} ]] || grep -q -- "$3" <<<"$out" || fail "$1: Kafka's kafka-metadata-quorum failed (status $rc) without '$3': $(tail -c 1500 <<<"$out")"
    # The tool's own error line rather than a client log line ("[date] WARN ...").
    refused_line=$(awk 'match($0, /[A-Za-z.]*(Exception|Error)[^"]*/) {
            m = substr($0, RSTART, RLENGTH)
            if ($0 !~ /^\[/) { print m; found = 1; exit }
            if (first == "") first = m
        } END { if (!found && first != "") print first }' <<<"$out" | cut -c1-200)
    [[ -n $refused_line || $rc != 124 ]] || refused_line="no answer within 30 s"
    refused_line="status $rc${refused_line:+: $refused_line}"
}
# refused_kraft WHAT CONFIG [PATTERN]: kraft metadata-quorum exits non-zero
# within 30 s, saying why (PATTERN when given).
refused_kraft() {
    [[ -z $skip_kraft_cli ]] || { refused_line="kraft: skipped"; return 0; }
    local rc=0 out
    out=$(timeout 30 "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$2" describe --status 2>&1) || rc=$?
    [[ $rc != 124 ]] || fail "$1: kraft metadata-quorum did not exit within 30s: $out"
    [[ $rc != 0 ]] || fail "$1: kraft metadata-quorum succeeded: $out"
    [[ -n $out ]] || fail "$1: kraft metadata-quorum exited with status $rc and printed nothing"
    [[ -z ${3:-} ]] || grep -q -- "$3" <<<"$out" || fail "$1: kraft metadata-quorum failed (status $rc) without '$3': $(tail -c 1500 <<<"$out")"
    refused_line="kraft status $rc: $(head -n 1 <<<"$out" | cut -c1-160)"
}
refused_kafka "a client without security settings" "$fast"
k=$refused_line
refused_kraft "a client without security settings" "$fast"
pass "a client without security settings is refused by the $sec listener: Kafka's tool ($k); $refused_line"
if [[ $sec == sasl_ssl ]]; then
    client_config "$root/wrong-password.properties" controller wrong-password
    refused_kafka "user controller with a wrong password" "$root/wrong-password.properties" "Authentication failed"
    k=$refused_line
    refused_kraft "user controller with a wrong password" "$root/wrong-password.properties" "Authentication failed"
    pass "user controller with a wrong password (PLAIN) is refused: Kafka's tool ($k); $refused_line"
    client_config "$root/wrong-scram.properties" broker wrong-password SCRAM-SHA-512
    refused_kafka "user broker with a wrong password (SCRAM-SHA-512)" "$root/wrong-scram.properties" "Authentication failed"
    pass "user broker with a wrong password (SCRAM-SHA-512) is refused: Kafka's tool ($refused_line)"
else
    client_config "$root/no-cert.properties" none
    refused_kafka "a TLS client without a client certificate" "$root/no-cert.properties"
    k=$refused_line
    refused_kraft "a TLS client without a client certificate" "$root/no-cert.properties"
    pass "a TLS client without a client certificate is refused: Kafka's tool ($k); $refused_line"
    CERTS_CA=rogue-ca bash "$here/certs.sh" "$certs" rogue || fail "certs.sh could not make a certificate of another CA"
    client_config "$root/rogue.properties" "$certs/rogue.pem"
    refused_kafka "a client certificate from another CA" "$root/rogue.properties"
    k=$refused_line
    refused_kraft "a client certificate from another CA" "$root/rogue.properties"
    pass "a client certificate from another CA (CN=rogue) is refused: Kafka's tool ($k); $refused_line"
fi
timing "refused clients" "$(secs "$t_bad")"

# ---- 5. certificate rotation (mtls, kraft-rs controller 1) ----
if [[ $sec != mtls ]]; then
    echo "SKIP certificate rotation: checked in SEC_MODE=mtls (controller 1's PEM key store file)"
elif [[ $(impl_of 1) != kraft-rs ]]; then
    echo "SKIP certificate rotation: controller 1 is a Java controller, which reloads its key store only on a dynamic config change (kafka-configs --alter of $lc.ssl.keystore.location), not when the file changes"
else
    t_rot=$(now)
    epoch0=$(leader_epoch)
    leader0=$(leader_id)
    [[ $epoch0 =~ ^[0-9]+$ ]] || fail "rotation: no leader epoch before the rotation"
    s=$(subject_of "$(port 1)")
    [[ $s == "CN=controller-1,OU=interop,O=kraft-rs" ]] || fail "rotation: controller 1 presents '$s' before the rotation"
    # A renewed certificate: a new key and certificate for the same subject
    # from the same CA (a changed subject is refused, as Kafka refuses it
    # unless ssl.allow.dn.changes=true).
    mkdir -p "$certs/renewed"
    cp "$certs/ca.key" "$certs/ca.crt" "$certs/store-password" "$certs/renewed/"
    bash "$here/certs.sh" "$certs/renewed" controller-1 || fail "certs.sh could not renew controller-1"
    fp_old=$(fingerprint_of "$(port 1)")
    fp_new=$(openssl x509 -noout -fingerprint -sha256 -in "$certs/renewed/controller-1.crt" | sed 's/^.*=//')
    [[ -n $fp_old && $fp_old != "$fp_new" ]] || fail "rotation: cannot tell the old certificate ($fp_old) from the renewed one ($fp_new)"
    cp "$certs/renewed/controller-1.pem" "$d/node1/keystore.pem.new"
    mv "$d/node1/keystore.pem.new" "$d/node1/keystore.pem"
    t_swap=$(now)
    rc=0
    out=$(kafka_quorum "$ccfg" describe --status 2>&1) || rc=$?
    if [[ $rc != 0 ]] || ! grep -qE '^LeaderId: +[0-9]' <<<"$out"; then
        fail "rotation: kafka-metadata-quorum during the rotation failed (status $rc): $(tail -c 1500 <<<"$out")"
    fi
    deadline=$((SECONDS + 30))
    while :; do
        fp=$(fingerprint_of "$(port 1)")
        [[ $fp == "$fp_new" ]] && break
        ((SECONDS < deadline)) || fail "rotation: 30s after its key store file was replaced, controller 1 still presents $fp (renewed: $fp_new)"
        sleep 1
    done
    s=$(subject_of "$(port 1)")
    [[ $s == "CN=controller-1,OU=interop,O=kraft-rs" ]] || fail "rotation: controller 1 presents '$s' after the rotation"
    t_seen=$(secs "$t_swap")
    # Kafka's client accepts the new certificate (same CA, same SANs).
    rc=0
    out=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "127.0.0.1:$(port 1)" \
        --command-config "$ccfg" describe --status 2>&1) || rc=$?
    if [[ $rc != 0 ]] || ! grep -qE '^LeaderId: +[0-9]' <<<"$out"; then
        fail "rotation: kafka-metadata-quorum --bootstrap-controller 127.0.0.1:$(port 1) (controller 1 alone, new certificate) failed (status $rc): $(tail -c 1500 <<<"$out")"
    fi
    epoch1=$(leader_epoch)
    [[ $epoch1 == "$epoch0" && $(leader_id) == "$leader0" ]] ||
        fail "rotation: the leader changed (epoch $epoch0 leader $leader0 -> epoch $epoch1 leader $(leader_id))"
    check_brokers "after the rotation"
    timing "rotation: key store file replaced -> new certificate served" "$t_seen"
    timing "rotation: all of it (epoch, certificates, tool, brokers)" "$(secs "$t_rot")"
    pass "certificate rotation: controller 1 serves its renewed certificate (SHA-256 $fp_new) ${t_seen}s after its PEM key store file was replaced; kafka-metadata-quorum succeeded meanwhile and, bootstrapped from controller 1 alone, after; leader $leader0, epoch $epoch0 unchanged; brokers unfenced"
fi

# ---- 6. records through a SIGKILL of the raft leader ----
mkdir -p "$w"
topic=t
t0=$(now)
create_topic "$topic" 3
pass "kafka-topics --create --topic $topic (3 partitions, RF 3, min.insync.replicas=2) through a broker: every partition has a leader and 3 in Isr ($(secs "$t0")s)"
t_prod=$(now)
bash "$kq" java "$d" "$workload" produce "$(bs)" "$topic" "$records" 30 "$rate" \
    "$w/acked.txt" "$w/finish" >"$w/producer.log" 2>&1 &
ppid_=$!
echo "$ppid_" >"$w/producer.pid"
deadline=$((SECONDS + 60))
until grep -q '^FIRST_ACK' "$w/producer.log" 2>/dev/null; do
    producer_alive
    ((SECONDS < deadline)) || fail "the producer has no acknowledged record 60s after its start"
    sleep 0.2
done
sleep 3
l=$(wait_leader none 30) || fail "no raft leader before the kill"
# blines: read by wait_brokers_use (a nameref).
declare -A blines=()
# shellcheck disable=SC2034
for id in "${brokers[@]}"; do blines[$id]=$(log_lines "$d/node$id/server.log"); done
acked_kill=$(acked_progress)
t_kill=$(now)
kill_node "$l" KILL
nl=$(wait_leader "$l" 60) || fail "no new raft leader within 60s of kill -9 of controller $l"
t_new=$(secs "$t_kill")
wait_brokers_use "$nl" blines 60 "after kill -9 of leader $l"
t_follow=$(secs "$t_kill")
acked_new=$(acked_progress)
deadline=$((SECONDS + 60))
until (($(acked_progress) > acked_new + 20)); do
    producer_alive
    ((SECONDS < deadline)) || fail "the producer got no acknowledgement within 60s of the new leader $nl: $(progress_line)"
    sleep 0.5
done
timing "kill -9 raft leader $l ($(impl_of "$l")) -> new leader $nl" "$t_new"
timing "kill -9 raft leader -> every broker uses the new leader" "$t_follow"
pass "kill -9 raft leader $l ($(impl_of "$l")) with about $acked_kill records acknowledged: controller $nl ($(impl_of "$nl")) leads after ${t_new}s, every broker uses it after ${t_follow}s; acknowledgements go on ($(progress_line))"
t0=$(now)
start_controller "$l"
wait_follower "$l" 90 || fail "restarted controller $l does not follow leader $nl: $(quorum --replication)"
timing "restart controller $l -> caught-up follower" "$(secs "$t0")"
check_brokers "after the controller kill"
pass "controller $l restarted and follows $nl ($(secs "$t0")s); every broker unfenced; producer: $(progress_line)"
cur=$nl
leaders+=("$nl")
t_fin=$(now)
touch "$w/finish"
deadline=$((SECONDS + 180))
while kill -0 "$ppid_" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
kill -0 "$ppid_" 2>/dev/null && fail "the producer did not finish within 180s ($(progress_line))"
rc=0
wait "$ppid_" 2>/dev/null || rc=$?
ppid_=
rm -f "$w/producer.pid"
summary=$(grep '^PRODUCED' "$w/producer.log" || true)
failed=$(sed -n 's/.* failed=\([0-9]*\).*/\1/p' <<<"$summary")
acked=$(sed -n 's/.* acked=\([0-9]*\).*/\1/p' <<<"$summary")
[[ $rc == 0 && $failed == 0 && $acked == "$records" ]] ||
    fail "the producer: status $rc, $summary
$(sed -n '/^send errors/,$p' "$w/producer.log")"
[[ $(acked_now) == "$acked" ]] || fail "the producer reported $acked acknowledged, its file has $(acked_now)"
timing "leader kill over -> producer done" "$(secs "$t_fin")"
timing "producer start -> all $records acknowledged" "$(secs "$t_prod")"
pass "producer done: all $records sends acknowledged, none failed ($summary)"
t0=$(now)
rc=0
timeout 150 bash "$kq" java "$d" "$workload" consume "$(bs)" "$topic" secure-sh "$w/acked.txt" 90 >"$w/consumer.log" 2>&1 || rc=$?
((rc == 0)) || fail "the consumer's checks failed (status $rc):
$(grep -v '^\[' "$w/consumer.log" | tail -n 40)"
timing "consumer group: all read and checked" "$(secs "$t0")"
pass "consumer group secure-sh read $(sed -n 's/^CONSUMED .* consumed=\([0-9]*\).*/\1/p' "$w/consumer.log") records: $(grep '^CHECKS' "$w/consumer.log" | cut -c8-)"

# ---- 7. mixed: leadership moves; java and mixed: the images ----
if [[ $mode == mixed ]]; then
    first=$(impl_of "$cur")
    other=$([[ $first == kraft-rs ]] && echo Java || echo kraft-rs)
    lead_by "$other"
    create_topic "moved-$moves" 1
    check_brokers "after the moves to controller $cur"
    pass "controller $cur ($other) leads; kafka-topics --create moved-$moves through a broker; every broker unfenced"
    lead_by "$first"
    create_topic "moved-$moves" 1
    check_brokers "after the moves to controller $cur"
    pass "controller $cur ($first) leads again; kafka-topics --create moved-$moves through a broker; every broker unfenced"
fi
if [[ $mode != kraft ]]; then
    await_restarted
    compare_images
fi

stop_scenario "$d"
echo "timings:"
printf '  %s\n' "${timings[@]}"
echo "secure.sh: every check passed ($sec, $mode_label controllers$( ((moves)) && echo ", $moves leadership moves: leaders ${leaders[*]}")$([[ -n $skip_kraft_cli ]] && echo "; kraft CLI checks skipped")) in $(secs "$started")s"
if [[ -z ${SEC_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
