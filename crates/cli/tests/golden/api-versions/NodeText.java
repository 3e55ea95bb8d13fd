import java.util.*;
import org.apache.kafka.clients.NodeApiVersions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
// Prints node-api-versions.txt with Kafka 4.4.0's client classes:
//   java -cp "$(cat tests/interop/kafka-quorum/target/classpath.txt)" NodeText.java
public class NodeText {
    public static void main(String[] a) {
        short[][] v = {{55, 0, 2}, {18, 0, 4}, {4, 0, 7}, {0, 0, 2}, {999, 1, 1}, {1, 4, 20}, {80, 0, 1}, {57, 0, 0}};
        List<ApiVersion> list = new ArrayList<>();
        for (short[] e : v) list.add(new ApiVersion().setApiKey(e[0]).setMinVersion(e[1]).setMaxVersion(e[2]));
        NodeApiVersions nav = new NodeApiVersions(list, List.of());
        System.out.print(new Node(3, "127.0.0.1", 9093) + " -> " + nav.toString(true) + "\n");
        System.out.print(new Node(4, "broker-4.example", 9092, "rack-a", true) + " -> " + new NodeApiVersions(List.of(), List.of()).toString(true) + "\n");
    }
}
