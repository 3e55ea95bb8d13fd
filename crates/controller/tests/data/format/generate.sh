#!/bin/sh
# Regenerates the golden format outputs in this directory with the real
# Apache Kafka 4.4.0 storage tool (kafka.tools.StorageTool, JDK 17).
#
# Needs the kafka_2.13:4.4.0 jar and its runtime dependencies in $KAFKA_LIB,
# e.g. made with a throwaway pom depending on org.apache.kafka:kafka_2.13:4.4.0
# and org.slf4j:slf4j-nop:1.7.36, then `mvn dependency:copy-dependencies
# -DoutputDirectory=$KAFKA_LIB`.
#
# For each scenario directory (server.properties + args, one argument per
# line) the tool formats /tmp/kraft-rs-golden/<scenario>; its stdout (with
# that path replaced by @DIR@) and every file it wrote are copied here.
set -eu
KAFKA_LIB=${KAFKA_LIB:-/tmp/kafkatool/lib}
HERE=$(cd "$(dirname "$0")" && pwd)
for s in "$HERE"/*/; do
  name=$(basename "$s")
  dir=/tmp/kraft-rs-golden/$name
  rm -rf "$dir" && mkdir -p "$dir"
  sed "s#@DIR@#$dir#g" "$s/server.properties" > "$dir.properties"
  set --
  while IFS= read -r a; do set -- "$@" "$a"; done < "$s/args"
  java -cp "$KAFKA_LIB/*" kafka.tools.StorageTool format --config "$dir.properties" "$@" \
    | sed "s#$dir#@DIR@#g" > "$s/stdout.txt"
  rm -rf "$s/out" && mkdir -p "$s/out"
  cp -r "$dir"/. "$s/out/"
  chmod -R u+w "$s/out"
done
