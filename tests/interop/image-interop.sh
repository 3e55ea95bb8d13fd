#!/usr/bin/env bash
# The metadata image against the real Apache Kafka 4.4.0 classes (issue 13).
#
#   tests/interop/image-interop.sh generate DIR  # Kafka writes DIR/kafka-log.log,
#                                                # DIR/kafka-snapshot.checkpoint,
#                                                # DIR/image-info.properties
#   tests/interop/image-interop.sh compare DIR   # Kafka loads DIR/ours-from-*.checkpoint
#                                                # (written by kraft-rs) and
#                                                # compares with its own image
#   tests/interop/image-interop.sh dump DIR      # print Kafka's snapshot records
#
# `cargo xtask image-interop` runs generate, the Rust side
# (crates/controller/tests/image_interop.rs) and compare. Same build as
# golden.sh: a JDK 17+ and Maven; the first run downloads the Kafka 4.4.0
# jars into ~/.m2, later runs work offline. Environment: MVN, MVN_ARGS, JAVA.
set -euo pipefail

usage() {
    echo "usage: $0 generate|compare|dump DIR" >&2
    exit 2
}

[[ $# -eq 2 ]] || usage
mode=$1
dir=$2
[[ $mode == generate || $mode == compare || $mode == dump ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case $dir in
    /*) ;;
    *) dir=$PWD/$dir ;;
esac
if [[ $mode != generate && ! -d $dir ]]; then
    echo "image-interop.sh: $dir is not a directory" >&2
    exit 2
fi

# shellcheck source=tests/interop/interop-java.sh
source "$here/interop-java.sh"
interop_java image-interop.sh org.kraftrs.interop.ImageInterop "$mode" "$dir"
