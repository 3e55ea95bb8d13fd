#!/usr/bin/env bash
# Golden vectors backed by the real Apache Kafka 4.4.0 classes.
#
#   tests/interop/golden.sh generate DIR   # (re)write DIR/<Message>.json and DIR/frames.json
#   tests/interop/golden.sh verify DIR     # check vectors written by kraft-rs against Kafka
#
# Needs only a JDK 17+ and Maven. The first run downloads kafka-clients,
# kafka-metadata and kafka-server-common 4.4.0 (plus plugins) into ~/.m2; later
# runs work offline. Environment: MVN (default "mvn"), MVN_ARGS (extra flags),
# JAVA (default "java").
set -euo pipefail

usage() {
    echo "usage: $0 generate|verify DIR" >&2
    exit 2
}

[[ $# -eq 2 ]] || usage
mode=$1
dir=$2
[[ $mode == generate || $mode == verify ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mvn_cmd=${MVN:-mvn}
java_cmd=${JAVA:-java}
# shellcheck disable=SC2206
extra=(${MVN_ARGS:-})

# shellcheck source=tests/interop/ensure-tools.sh
source "$here/ensure-tools.sh"
command -v "$mvn_cmd" >/dev/null || { echo "golden.sh: '$mvn_cmd' not found (need Maven)" >&2; exit 2; }
command -v "$java_cmd" >/dev/null || { echo "golden.sh: '$java_cmd' not found (need a JDK 17+)" >&2; exit 2; }

# Resolve DIR before changing directory.
case $dir in
    /*) ;;
    *) dir=$PWD/$dir ;;
esac
if [[ $mode == verify && ! -d $dir ]]; then
    echo "golden.sh: $dir is not a directory" >&2
    exit 2
fi

build() {
    # Try offline first (fast, no network); fall back to an online build the
    # first time, when ~/.m2 lacks the artifacts.
    local log
    log=$(mktemp)
    if ! "$mvn_cmd" -q -B -o -f "$here/pom.xml" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
        if ! "$mvn_cmd" -q -B -f "$here/pom.xml" ${extra[@]+"${extra[@]}"} compile >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            echo "golden.sh: maven build failed" >&2
            exit 2
        fi
    fi
    rm -f "$log"
}

build
cp="$here/target/classes:$(cat "$here/target/classpath.txt")"
exec "$java_cmd" -cp "$cp" org.kraftrs.interop.GoldenVectors "$mode" "$dir"
