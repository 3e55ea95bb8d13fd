# Shared by topic-configs.sh and controller-configs.sh (sourced, not run):
# builds the Maven projects of tests/interop offline if it can (else with
# downloads) and runs one fact-writing driver class of
# org.kraftrs.interop with Kafka 4.4.0's classpath.
#
#   write_config_facts SCRIPT_NAME DRIVER_CLASS OUTPUT
#
# Environment: MVN, MVN_ARGS, JAVA.
# shellcheck shell=bash

write_config_facts() {
    local name=$1 class=$2 out=$3 here mvn_cmd java_cmd
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    # shellcheck source=tests/interop/ensure-tools.sh
    source "$here/ensure-tools.sh"
    mvn_cmd=${MVN:-mvn}
    java_cmd=${JAVA:-java}
    # shellcheck disable=SC2206
    local extra=(${MVN_ARGS:-})
    command -v "$mvn_cmd" >/dev/null || { echo "$name: '$mvn_cmd' not found (need Maven)" >&2; exit 2; }
    command -v "$java_cmd" >/dev/null || { echo "$name: '$java_cmd' not found (need a JDK 17+)" >&2; exit 2; }
    local pom log
    for pom in "$here/pom.xml" "$here/kafka-quorum/pom.xml"; do
        log=$(mktemp)
        if ! "$mvn_cmd" -q -B -o -f "$pom" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1 &&
            ! "$mvn_cmd" -q -B -f "$pom" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            echo "$name: maven build of $pom failed" >&2
            exit 2
        fi
        rm -f "$log"
    done
    "$java_cmd" -Dlog4j2.level=OFF -cp "$here/target/classes:$(cat "$here/kafka-quorum/target/classpath.txt")" \
        "org.kraftrs.interop.$class" "$out"
    echo "$name: wrote $out" >&2
}
