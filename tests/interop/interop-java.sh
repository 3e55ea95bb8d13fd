# Shared by golden.sh and image-interop.sh (source it): checks for a JDK 17+
# and Maven, builds this directory's Maven project (offline first; online the
# first time, when ~/.m2 lacks the Kafka 4.4.0 artifacts) and runs one of its
# classes in place of the calling script.
#
#   interop_java SCRIPT_NAME CLASS ARGS...
#
# Environment: MVN (default "mvn"), MVN_ARGS (extra flags), JAVA (default "java").

interop_java() {
    local name=$1 class=$2
    shift 2
    local here mvn_cmd=${MVN:-mvn} java_cmd=${JAVA:-java} log
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    # shellcheck disable=SC2206
    local extra=(${MVN_ARGS:-})
    # shellcheck source=tests/interop/ensure-tools.sh
    source "$here/ensure-tools.sh"
    command -v "$mvn_cmd" >/dev/null || { echo "$name: '$mvn_cmd' not found (need Maven)" >&2; exit 2; }
    command -v "$java_cmd" >/dev/null || { echo "$name: '$java_cmd' not found (need a JDK 17+)" >&2; exit 2; }
    log=$(mktemp)
    if ! "$mvn_cmd" -q -B -o -f "$here/pom.xml" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
        if ! "$mvn_cmd" -q -B -f "$here/pom.xml" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            echo "$name: maven build failed" >&2
            exit 2
        fi
    fi
    rm -f "$log"
    exec "$java_cmd" -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" "$class" "$@"
}
