#!/usr/bin/env bash
# Makes sure a JDK 17+ and Maven, and openssl (certs.sh, secure.sh), are on
# PATH for the interop scripts, installing Debian's packages when they are
# missing and we may (root with apt-get). Sourced by interop-java.sh,
# kafka-quorum.sh and certs.sh; honours MVN and JAVA.
ensure_java_tools() {
    local mvn_cmd=${MVN:-mvn} java_cmd=${JAVA:-java}
    if command -v "$mvn_cmd" >/dev/null && command -v "$java_cmd" >/dev/null; then
        return 0
    fi
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "ensure-tools: installing a JDK 17 and Maven with apt-get" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                openjdk-17-jdk-headless maven >&2 ||
            echo "ensure-tools: apt-get could not install them" >&2
    fi
}
ensure_java_tools
ensure_openssl() {
    command -v openssl >/dev/null && return 0
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "ensure-tools: installing openssl with apt-get" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >&2 ||
            echo "ensure-tools: apt-get could not install openssl" >&2
    fi
}
ensure_openssl
