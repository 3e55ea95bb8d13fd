package org.apache.kafka.common.utils;

/**
 * Kafka 4.4 moved this class to {@code org.apache.kafka.common.utils.internals};
 * kafka-shell 4.3.1 still links against the old name. Forwards to 4.4's class,
 * so the shell's /local/version reads 4.4.0.
 */
public final class AppInfoParser {
    private AppInfoParser() {
    }

    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }

    public static String getCommitId() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
    }
}
