package kafka.tools;

/**
 * Kafka 4.4 moved this class to {@code org.apache.kafka.server.util};
 * kafka-shell 4.3.1 still catches the old name.
 */
public class TerseFailure extends Exception {
    public TerseFailure(String message) {
        super(message);
    }
}
