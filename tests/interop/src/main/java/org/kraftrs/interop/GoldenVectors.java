package org.kraftrs.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.Message;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Golden-vector driver for kraft-rs, backed by the real Apache Kafka 4.4.0 classes.
 *
 * <pre>
 *   GoldenVectors generate OUT_DIR   write OUT_DIR/&lt;Message&gt;.json and OUT_DIR/frames.json
 *   GoldenVectors verify IN_DIR      check every vector in IN_DIR/*.json against Kafka
 * </pre>
 *
 * See tests/golden/README.md for the file format.
 */
public final class GoldenVectors {
    private GoldenVectors() {
    }

    /** The messages generate covers (verify accepts any message Kafka 4.4 knows). */
    static final List<String> MESSAGES = List.of(
        "RequestHeader", "ResponseHeader",
        "ApiVersionsRequest", "ApiVersionsResponse",
        "FetchRequest", "FetchResponse",
        "VoteRequest", "VoteResponse",
        "BeginQuorumEpochRequest", "BeginQuorumEpochResponse",
        "EndQuorumEpochRequest", "EndQuorumEpochResponse",
        "DescribeQuorumRequest", "DescribeQuorumResponse",
        "FetchSnapshotRequest", "FetchSnapshotResponse",
        "DescribeClusterRequest", "DescribeClusterResponse",
        "UpdateFeaturesRequest", "UpdateFeaturesResponse",
        "ControllerRegistrationRequest", "ControllerRegistrationResponse",
        "AddRaftVoterRequest", "AddRaftVoterResponse",
        "RemoveRaftVoterRequest", "RemoveRaftVoterResponse",
        "UpdateRaftVoterRequest", "UpdateRaftVoterResponse",
        "UnregisterControllerRequest", "UnregisterControllerResponse",
        "BrokerRegistrationRequest", "BrokerRegistrationResponse",
        "BrokerHeartbeatRequest", "BrokerHeartbeatResponse",
        "UnregisterBrokerRequest", "UnregisterBrokerResponse",
        "EnvelopeRequest", "EnvelopeResponse", "DefaultPrincipalData",
        "CreateTopicsRequest", "CreateTopicsResponse",
        "DeleteTopicsRequest", "DeleteTopicsResponse",
        "CreatePartitionsRequest", "CreatePartitionsResponse",
        "ElectLeadersRequest", "ElectLeadersResponse",
        "AlterPartitionReassignmentsRequest", "AlterPartitionReassignmentsResponse",
        "ListPartitionReassignmentsRequest", "ListPartitionReassignmentsResponse",
        "DescribeConfigsRequest", "DescribeConfigsResponse",
        "AlterConfigsRequest", "AlterConfigsResponse",
        "IncrementalAlterConfigsRequest", "IncrementalAlterConfigsResponse",
        "AlterPartitionRequest", "AlterPartitionResponse",
        "AllocateProducerIdsRequest", "AllocateProducerIdsResponse",
        "AssignReplicasToDirsRequest", "AssignReplicasToDirsResponse",
        // access control: ACLs, delegation tokens, client quotas, SCRAM credentials; SASL
        "DescribeAclsRequest", "DescribeAclsResponse",
        "CreateAclsRequest", "CreateAclsResponse",
        "DeleteAclsRequest", "DeleteAclsResponse",
        "CreateDelegationTokenRequest", "CreateDelegationTokenResponse",
        "RenewDelegationTokenRequest", "RenewDelegationTokenResponse",
        "ExpireDelegationTokenRequest", "ExpireDelegationTokenResponse",
        "DescribeDelegationTokenRequest", "DescribeDelegationTokenResponse",
        "DescribeClientQuotasRequest", "DescribeClientQuotasResponse",
        "AlterClientQuotasRequest", "AlterClientQuotasResponse",
        "DescribeUserScramCredentialsRequest", "DescribeUserScramCredentialsResponse",
        "AlterUserScramCredentialsRequest", "AlterUserScramCredentialsResponse",
        "SaslHandshakeRequest", "SaslHandshakeResponse",
        "SaslAuthenticateRequest", "SaslAuthenticateResponse",
        "VotersRecord", "KRaftVersionRecord", "LeaderChangeMessage",
        "SnapshotHeaderRecord", "SnapshotFooterRecord",
        "RegisterControllerRecord", "UnregisterControllerRecord", "FeatureLevelRecord",
        // the other metadata records (kafka-metadata), by record type
        "RegisterBrokerRecord", "UnregisterBrokerRecord", "TopicRecord", "PartitionRecord",
        "ConfigRecord", "PartitionChangeRecord", "FenceBrokerRecord", "UnfenceBrokerRecord",
        "RemoveTopicRecord", "DelegationTokenRecord", "UserScramCredentialRecord",
        "ClientQuotaRecord", "ProducerIdsRecord", "BrokerRegistrationChangeRecord",
        "AccessControlEntryRecord", "RemoveAccessControlEntryRecord", "NoOpRecord",
        "ZkMigrationStateRecord", "RemoveUserScramCredentialRecord", "BeginTransactionRecord",
        "EndTransactionRecord", "AbortTransactionRecord", "RemoveDelegationTokenRecord",
        "ClearElrRecord");

    static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("generate") || args[0].equals("verify"))) {
            System.err.println("usage: GoldenVectors generate OUT_DIR | verify IN_DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[1]);
        if (args[0].equals("generate")) {
            generate(dir);
        } else {
            System.exit(verify(dir) ? 0 : 1);
        }
    }

    // ================================================================== generate

    static void generate(Path out) throws IOException {
        Files.createDirectories(out);
        int total = 0;
        for (String name : MESSAGES) {
            KafkaMessage km = KafkaMessage.resolve(name);
            if (km == null) {
                throw new IllegalStateException("Kafka has no message " + name);
            }
            List<ObjectNode> vectors = new ArrayList<>();
            for (short v = km.lowest; v <= km.highest; v++) {
                for (Map.Entry<String, Message> c : cases(km, v)) {
                    ObjectNode vec = vector(km, v, c.getKey(), c.getValue());
                    if (vec != null) {
                        vectors.add(vec);
                    }
                }
            }
            writeFile(out.resolve(name + ".json"), header(name, km.source), vectors);
            System.out.printf("%-32s %3d vectors (versions %d-%d)%n", name, vectors.size(), km.lowest, km.highest);
            total += vectors.size();
        }
        List<ObjectNode> frames = Frames.generate();
        ObjectNode fh = JsonNodeFactory.instance.objectNode();
        fh.put("source", KafkaMessage.resolve("RequestHeader").source);
        writeFrames(out.resolve("frames.json"), fh, frames);
        System.out.printf("%-32s %3d frames%n", "frames", frames.size());
        System.out.printf("total: %d vectors, %d frames%n", total, frames.size());
    }

    /** The cases of one message version, in file order. */
    static List<Map.Entry<String, Message>> cases(KafkaMessage km, short v) {
        List<Map.Entry<String, Message>> out = new ArrayList<>();
        Schema.Struct root = km.schema.root;

        out.add(Map.entry("defaults", km.newInstance()));

        Message typical = Samples.typical(km.name, v);
        Filler.prune(typical, root, v);
        out.add(Map.entry("typical", typical));

        Message edge = km.newInstance();
        new Filler(km.cls).fill(edge, root, v, Filler.Mode.EDGE, 0, 0);
        out.add(Map.entry("edge", edge));

        Message extreme = km.newInstance();
        new Filler(km.cls).fill(extreme, root, v, Filler.Mode.EXTREME, 0, 1);
        out.add(Map.entry("extreme", extreme));

        if (km.flexible(v)) {
            Message unk = Samples.typical(km.name, v);
            Filler.prune(unk, root, v);
            Filler.addUnknownTags(unk, root, v);
            out.add(Map.entry("unknown-tags", unk));
        }
        for (Samples.Extra e : Samples.extras(km.name, v)) {
            Filler.prune(e.message(), root, v);
            out.add(Map.entry(e.caseName(), e.message()));
        }
        return out;
    }

    static ObjectNode vector(KafkaMessage km, short v, String caseName, Message m) {
        byte[] bytes;
        JsonNode json;
        try {
            bytes = KafkaMessage.serialize(m, v);
            json = normalize(km.toJson(m, v));
        } catch (UnsupportedVersionException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("Attempted to write a non-default")) {
                System.err.printf("note: skipping %s v%d %s: %s%n", km.name, v, caseName, e.getMessage());
                return null;
            }
            throw e;
        }
        // Self-check: the vector must pass exactly the checks `verify` applies.
        String err = check(km, v, bytes, json);
        if (err != null) {
            throw new IllegalStateException("self-check failed for " + km.name + " v" + v + " " + caseName + ": " + err);
        }
        ObjectNode vec = JsonNodeFactory.instance.objectNode();
        vec.put("version", v);
        vec.put("case", caseName);
        vec.put("hex", hex(bytes));
        vec.set("json", json);
        return vec;
    }

    static ObjectNode header(String name, String source) {
        ObjectNode h = JsonNodeFactory.instance.objectNode();
        h.put("message", name);
        h.put("source", source);
        return h;
    }

    /** Writes {header..., "vectors": [one compact vector per line]} (UTF-8, LF). */
    static void writeFile(Path p, ObjectNode header, List<ObjectNode> vectors) throws IOException {
        writeWithArray(p, header, "vectors", vectors);
    }

    static void writeFrames(Path p, ObjectNode header, List<ObjectNode> frames) throws IOException {
        writeWithArray(p, header, "frames", frames);
    }

    private static void writeWithArray(Path p, ObjectNode header, String key, List<ObjectNode> items) throws IOException {
        StringBuilder sb = new StringBuilder("{\n");
        for (Map.Entry<String, JsonNode> e : header.properties()) {
            sb.append("  ").append(MAPPER.writeValueAsString(e.getKey())).append(": ")
                .append(MAPPER.writeValueAsString(e.getValue())).append(",\n");
        }
        sb.append("  ").append(MAPPER.writeValueAsString(key)).append(": [\n");
        for (int i = 0; i < items.size(); i++) {
            sb.append("    ").append(MAPPER.writeValueAsString(items.get(i)));
            sb.append(i + 1 < items.size() ? ",\n" : "\n");
        }
        sb.append("  ]\n}\n");
        Files.writeString(p, sb.toString(), StandardCharsets.UTF_8);
    }

    // ================================================================== verify

    static boolean verify(Path in) throws IOException {
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(in)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
        if (files.isEmpty()) {
            System.out.println("FAIL no *.json files in " + in);
            System.out.println("0 passed, 1 failed");
            return false;
        }
        for (Path f : files) {
            JsonNode root;
            try {
                root = MAPPER.readTree(Files.readAllBytes(f));
            } catch (IOException e) {
                System.out.printf("FAIL %s: unreadable JSON: %s%n", f.getFileName(), e.getMessage());
                failed++;
                continue;
            }
            if (root.has("frames")) {
                int[] r = Frames.verify(f.getFileName().toString(), root.get("frames"));
                passed += r[0];
                failed += r[1];
                continue;
            }
            String name = root.path("message").asText(null);
            KafkaMessage km = name == null ? null : KafkaMessage.resolve(name);
            if (km == null) {
                System.out.printf("FAIL %s: message %s is unknown to Kafka 4.4%n", f.getFileName(), name);
                failed++;
                continue;
            }
            for (JsonNode vec : root.path("vectors")) {
                short v = (short) vec.path("version").asInt(-1);
                String c = vec.path("case").asText("?");
                String label = name + " v" + v + " " + c;
                if (!km.supports(v)) {
                    System.out.printf("SKIP %s: version %d unknown to Kafka 4.4 (supports %d-%d)%n",
                        label, v, km.lowest, km.highest);
                    skipped++;
                    continue;
                }
                String err;
                try {
                    err = check(km, v, unhex(vec.path("hex").asText()), vec.get("json"));
                } catch (RuntimeException e) {
                    err = "bad vector: " + e;
                }
                if (err == null) {
                    passed++;
                } else {
                    System.out.printf("FAIL %s: %s%n", label, err);
                    failed++;
                }
            }
        }
        if (skipped > 0) {
            System.out.printf("%d skipped (versions Kafka 4.4 does not know)%n", skipped);
        }
        System.out.printf("%d passed, %d failed%n", passed, failed);
        return failed == 0;
    }

    /**
     * The check applied to every vector: Kafka decodes the bytes at version v consuming
     * all of them, its JsonConverter output equals the expected JSON, and re-serializing
     * the decoded message gives back exactly the same bytes. Returns null when OK.
     */
    static String check(KafkaMessage km, short v, byte[] bytes, JsonNode expectedJson) {
        KafkaMessage.Decoded d;
        try {
            d = km.deserialize(bytes, v);
        } catch (RuntimeException e) {
            return "Kafka cannot decode the bytes: " + e;
        }
        if (d.remaining() != 0) {
            return d.remaining() + " trailing byte(s) left after decoding " + (bytes.length - d.remaining())
                + " of " + bytes.length;
        }
        JsonNode actual;
        try {
            actual = normalize(km.toJson(d.message(), v));
        } catch (RuntimeException e) {
            return "Kafka JsonConverter failed on the decoded message: " + e;
        }
        if (expectedJson == null) {
            return "vector has no \"json\"";
        }
        String jd = jsonDiff(expectedJson, actual, "");
        if (jd != null) {
            return "json mismatch " + jd;
        }
        byte[] again;
        try {
            again = KafkaMessage.serialize(d.message(), v);
        } catch (RuntimeException e) {
            return "Kafka cannot re-serialize the decoded message: " + e;
        }
        if (!Arrays.equals(again, bytes)) {
            return "re-serialized bytes differ: " + bytesDiff(bytes, again);
        }
        return null;
    }

    // ================================================================== helpers

    /** Round-trips through text so that BinaryNode/ShortNode/LongNode compare like parsed JSON. */
    static JsonNode normalize(JsonNode n) {
        try {
            return MAPPER.readTree(MAPPER.writeValueAsBytes(n));
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** First difference between two JSON trees as "at /path: expected X, Kafka has Y", or null. */
    static String jsonDiff(JsonNode exp, JsonNode act, String path) {
        String here = path.isEmpty() ? "/" : path;
        if (exp.isObject() && act.isObject()) {
            Iterator<String> names = exp.fieldNames();
            while (names.hasNext()) {
                String k = names.next();
                if (!act.has(k)) {
                    return "at " + path + "/" + k + ": present in vector (" + brief(exp.get(k)) + ") but not in Kafka's output";
                }
                String d = jsonDiff(exp.get(k), act.get(k), path + "/" + k);
                if (d != null) {
                    return d;
                }
            }
            Iterator<String> an = act.fieldNames();
            while (an.hasNext()) {
                String k = an.next();
                if (!exp.has(k)) {
                    return "at " + path + "/" + k + ": missing in vector, Kafka has " + brief(act.get(k));
                }
            }
            return null;
        }
        if (exp.isArray() && act.isArray()) {
            for (int i = 0; i < Math.min(exp.size(), act.size()); i++) {
                String d = jsonDiff(exp.get(i), act.get(i), path + "/" + i);
                if (d != null) {
                    return d;
                }
            }
            if (exp.size() != act.size()) {
                return "at " + here + ": array length " + exp.size() + " in vector, " + act.size() + " in Kafka's output";
            }
            return null;
        }
        if (exp.equals(act)) {
            return null;
        }
        return "at " + here + ": expected " + brief(exp) + ", Kafka has " + brief(act);
    }

    private static String brief(JsonNode n) {
        String s = n.toString();
        return s.length() > 120 ? s.substring(0, 117) + "..." : s;
    }

    static String bytesDiff(byte[] exp, byte[] act) {
        int i = 0;
        while (i < exp.length && i < act.length && exp[i] == act[i]) {
            i++;
        }
        int from = Math.max(0, i - 8);
        return "first difference at byte " + i + " (vector " + exp.length + " bytes, Kafka " + act.length + " bytes); "
            + "vector[" + from + "..]=" + hex(Arrays.copyOfRange(exp, from, Math.min(exp.length, i + 16)))
            + " Kafka[" + from + "..]=" + hex(Arrays.copyOfRange(act, from, Math.min(act.length, i + 16)));
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    static byte[] unhex(String s) {
        s = s.replaceAll("\\s+", "");
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(s.charAt(2 * i), 16);
            int lo = Character.digit(s.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("bad hex digit near offset " + (2 * i));
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return out;
    }
}
