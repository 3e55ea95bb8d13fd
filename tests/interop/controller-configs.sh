#!/usr/bin/env bash
# Regenerates the config definitions kraft-rs' controller answers
# DescribeConfigs from (crates/controller/src/handlers/configs/kafka-controller-configs.json),
# written by the real Apache Kafka 4.4.0 classes: the broker ConfigDef (types,
# defaults, dynamic flags, synonyms, documentation), the topic configs'
# documentation, the group and client-metrics ConfigDefs and the group
# defaults of a controller without group settings.
#
#   tests/interop/controller-configs.sh [OUTPUT]   # default: the file above
#
# Needs a JDK 17+ and Maven. The driver (org.kraftrs.interop.ControllerConfigFacts)
# is compiled by this directory's Maven project and run on the Kafka server
# classpath of kafka-quorum/. The first run downloads the jars into ~/.m2;
# later runs work offline. Generation is deterministic. Environment: MVN,
# MVN_ARGS, JAVA.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/crates/controller/src/handlers/configs/kafka-controller-configs.json}
case $out in
    /*) ;;
    *) out=$PWD/$out ;;
esac

# shellcheck source=tests/interop/ensure-tools.sh
source "$here/ensure-tools.sh"
mvn_cmd=${MVN:-mvn}
java_cmd=${JAVA:-java}
# shellcheck disable=SC2206
extra=(${MVN_ARGS:-})
command -v "$mvn_cmd" >/dev/null || { echo "controller-configs.sh: '$mvn_cmd' not found (need Maven)" >&2; exit 2; }
command -v "$java_cmd" >/dev/null || { echo "controller-configs.sh: '$java_cmd' not found (need a JDK 17+)" >&2; exit 2; }

build() {
    local pom=$1 log
    log=$(mktemp)
    if ! "$mvn_cmd" -q -B -o -f "$pom" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1 &&
        ! "$mvn_cmd" -q -B -f "$pom" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "controller-configs.sh: maven build of $pom failed" >&2
        exit 2
    fi
    rm -f "$log"
}

build "$here/pom.xml"
build "$here/kafka-quorum/pom.xml"
"$java_cmd" -Dlog4j2.level=OFF -cp "$here/target/classes:$(cat "$here/kafka-quorum/target/classpath.txt")" \
    org.kraftrs.interop.ControllerConfigFacts "$out"
echo "controller-configs.sh: wrote $out" >&2
