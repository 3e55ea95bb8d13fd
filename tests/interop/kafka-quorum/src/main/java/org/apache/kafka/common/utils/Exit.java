package org.apache.kafka.common.utils;

/**
 * Kafka 4.4 moved this class to {@code org.apache.kafka.common.utils.internals};
 * kafka-shell 4.3.1 (the newest on Maven Central) still links against the old
 * name. Forwards to 4.4's class.
 */
public final class Exit {
    private Exit() {
    }

    public static void exit(int statusCode) {
        org.apache.kafka.common.utils.internals.Exit.exit(statusCode);
    }

    public static void addShutdownHook(String name, Runnable runnable) {
        org.apache.kafka.common.utils.internals.Exit.addShutdownHook(name, runnable);
    }
}
