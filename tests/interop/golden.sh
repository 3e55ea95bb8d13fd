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

# Resolve DIR before changing directory.
case $dir in
    /*) ;;
    *) dir=$PWD/$dir ;;
esac
if [[ $mode == verify && ! -d $dir ]]; then
    echo "golden.sh: $dir is not a directory" >&2
    exit 2
fi

# shellcheck source=tests/interop/interop-java.sh
source "$here/interop-java.sh"
interop_java golden.sh org.kraftrs.interop.GoldenVectors "$mode" "$dir"
