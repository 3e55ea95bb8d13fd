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

# shellcheck source=tests/interop/config-facts-lib.sh
source "$here/config-facts-lib.sh"
write_config_facts controller-configs.sh ControllerConfigFacts "$out"
