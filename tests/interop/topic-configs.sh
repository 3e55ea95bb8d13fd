#!/usr/bin/env bash
# Regenerates the topic-config facts kraft-rs' controller is checked against
# (crates/controller/src/topic_config/kafka-topic-configs.json), written by the
# real Apache Kafka 4.4.0 classes: the topic ConfigDef (names, types, defaults,
# validators, synonyms), the outcome of config changes run through Kafka's
# ConfigurationControlManager with its ControllerConfigurationValidator, the
# CreateTopics null-value check and the effective configs of CreateTopics.
#
#   tests/interop/topic-configs.sh [OUTPUT]   # default: the file above
#
# Needs a JDK 17+ and Maven. The driver (org.kraftrs.interop.TopicConfigFacts)
# is compiled by this directory's Maven project and run on the Kafka server
# classpath of kafka-quorum/ (kafka_2.13 brings KafkaConfig and the controller
# validator). The first run downloads the jars into ~/.m2; later runs work
# offline. Generation is deterministic. Environment: MVN, MVN_ARGS, JAVA.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/crates/controller/src/topic_config/kafka-topic-configs.json}
case $out in
    /*) ;;
    *) out=$PWD/$out ;;
esac

# shellcheck source=tests/interop/config-facts-lib.sh
source "$here/config-facts-lib.sh"
write_config_facts topic-configs.sh TopicConfigFacts "$out"
