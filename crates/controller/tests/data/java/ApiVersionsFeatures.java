// Prints the ApiVersions response bodies (ApiKeys cleared) that a Kafka 4.4.0
// controller builds for a few metadata images, as hex, for versions 3 and 4.
// Used to pin the order of SupportedFeatures / FinalizedFeatures (the
// iteration order of Java hash maps) in src/handlers_tests.rs.
//
//   javac -cp "$KAFKA_LIB/*" ApiVersionsFeatures.java
//   java -cp "$KAFKA_LIB/*:." ApiVersionsFeatures
//
// $KAFKA_LIB: kafka_2.13:4.4.0 and its dependencies (see ../format/generate.sh).
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.image.FeaturesDelta;
import org.apache.kafka.image.FeaturesImage;
import org.apache.kafka.server.SimpleApiVersionManager;
import org.apache.kafka.server.common.FinalizedFeatures;

import java.nio.ByteBuffer;

public class ApiVersionsFeatures {
    static String hex(ByteBuffer b) {
        StringBuilder sb = new StringBuilder();
        while (b.hasRemaining()) sb.append(String.format("%02x", b.get()));
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.println("Errors.NONE.message() = " + Errors.NONE.message());
        // metadata.version level, kraft.version level, other features (replay order)
        String[][] scenarios = {
            {"33", "1", "eligible.leader.replicas.version=1", "group.version=1", "share.version=2",
                "streams.version=1", "transaction.version=2"},
            {"21", "1"},
            {"30", "0", "share.version=1", "group.version=1"},
        };
        for (String[] s : scenarios) {
            FeaturesDelta delta = new FeaturesDelta(FeaturesImage.EMPTY);
            delta.replay(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel(Short.parseShort(s[0])));
            for (int i = 2; i < s.length; i++) {
                String[] kv = s[i].split("=");
                delta.replay(new FeatureLevelRecord().setName(kv[0]).setFeatureLevel(Short.parseShort(kv[1])));
            }
            FeaturesImage image = delta.apply();
            short kraft = Short.parseShort(s[1]);
            SimpleApiVersionManager manager = new SimpleApiVersionManager(ApiMessageType.ListenerType.CONTROLLER, false,
                () -> FinalizedFeatures.of(image.metadataVersionOrThrow(), image.finalizedVersions(), 42L)
                    .setFinalizedLevel("kraft.version", kraft));
            for (short v : new short[] {3, 4}) {
                ApiVersionsResponse r = manager.apiVersionResponse(0, v < 4);
                r.data().apiKeys().clear();
                System.out.println(String.join(",", s) + " v" + v + " "
                    + hex(MessageUtil.toByteBufferAccessor(r.data(), v).buffer()));
            }
        }
    }
}
