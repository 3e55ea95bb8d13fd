package org.kraftrs.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.UnregisterControllerRequestData;
import org.apache.kafka.common.message.UnregisterControllerResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestAndSize;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Complete frames (int32 size prefix + header + body) built the way Kafka's network
 * layer builds them: {@code AbstractRequest.toSend(RequestHeader)} and
 * {@code AbstractResponse.toSend(ResponseHeader, version)}, with the header version
 * derived by Kafka ({@code ApiKeys.requestHeaderVersion/responseHeaderVersion}).
 */
final class Frames {
    private Frames() {
    }

    private record Spec(String name, String kind, ApiKeys api, short version, int correlationId, String clientId,
                        Message body) {
    }

    private static Message typical(String message, short v) {
        KafkaMessage km = KafkaMessage.resolve(message);
        Message m = Samples.typical(message, v);
        Filler.prune(m, km.schema.root, v);
        return m;
    }

    private static Message extra(String message, short v, String caseName) {
        KafkaMessage km = KafkaMessage.resolve(message);
        for (Samples.Extra e : Samples.extras(message, v)) {
            if (e.caseName().equals(caseName)) {
                Filler.prune(e.message(), km.schema.root, v);
                return e.message();
            }
        }
        throw new IllegalArgumentException("no extra " + caseName + " for " + message);
    }

    private static List<Spec> specs() {
        List<Spec> s = new ArrayList<>();
        s.add(new Spec("ApiVersionsRequest-v4", "request", ApiKeys.API_VERSIONS, (short) 4, 1, "adminclient-1",
            new ApiVersionsRequestData().setClientSoftwareName("apache-kafka-java").setClientSoftwareVersion("4.4.0")));
        s.add(new Spec("ApiVersionsResponse-v4", "response", ApiKeys.API_VERSIONS, (short) 4, 1, null,
            typical("ApiVersionsResponse", (short) 4)));
        s.add(new Spec("ApiVersionsRequest-v5", "request", ApiKeys.API_VERSIONS, (short) 5, 2, "raft-client-2",
            typical("ApiVersionsRequest", (short) 5)));
        s.add(new Spec("ApiVersionsRequest-v0", "request", ApiKeys.API_VERSIONS, (short) 0, 3, "legacy-client",
            new ApiVersionsRequestData()));
        // What a 4.4 server answers to an ApiVersions request with a too-high version: a v0 body.
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id)
            .setMinVersion(ApiKeys.API_VERSIONS.oldestVersion()).setMaxVersion(ApiKeys.API_VERSIONS.latestVersion()));
        s.add(new Spec("ApiVersionsResponse-v0-unsupported-version", "response", ApiKeys.API_VERSIONS, (short) 0, 4, null,
            new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(keys)));
        s.add(new Spec("VoteRequest-v2", "request", ApiKeys.VOTE, (short) 2, 42, "raft-client-1",
            typical("VoteRequest", (short) 2)));
        s.add(new Spec("VoteResponse-v2", "response", ApiKeys.VOTE, (short) 2, 42, null,
            typical("VoteResponse", (short) 2)));
        s.add(new Spec("BeginQuorumEpochRequest-v0", "request", ApiKeys.BEGIN_QUORUM_EPOCH, (short) 0, 43, "raft-client-1",
            typical("BeginQuorumEpochRequest", (short) 0)));
        s.add(new Spec("BeginQuorumEpochResponse-v0", "response", ApiKeys.BEGIN_QUORUM_EPOCH, (short) 0, 43, null,
            typical("BeginQuorumEpochResponse", (short) 0)));
        s.add(new Spec("FetchRequest-v18", "request", ApiKeys.FETCH, (short) 18, 44, "raft-client-2",
            typical("FetchRequest", (short) 18)));
        s.add(new Spec("FetchResponse-v18", "response", ApiKeys.FETCH, (short) 18, 44, null,
            typical("FetchResponse", (short) 18)));
        s.add(new Spec("DescribeQuorumRequest-v2", "request", ApiKeys.DESCRIBE_QUORUM, (short) 2, 10, "adminclient-1",
            typical("DescribeQuorumRequest", (short) 2)));
        s.add(new Spec("DescribeQuorumResponse-v2", "response", ApiKeys.DESCRIBE_QUORUM, (short) 2, 10, null,
            typical("DescribeQuorumResponse", (short) 2)));
        s.add(new Spec("AddRaftVoterRequest-v1-spec", "request", ApiKeys.ADD_RAFT_VOTER, (short) 1, 9, "adminclient-1",
            extra("AddRaftVoterRequest", (short) 1, "spec-example")));
        // hand-computed examples from the message schemas
        s.add(new Spec("UnregisterControllerRequest-v0-spec", "request", ApiKeys.UNREGISTER_CONTROLLER, (short) 0, 7,
            "adminclient-1", new UnregisterControllerRequestData().setControllerId(5)));
        s.add(new Spec("UnregisterControllerResponse-v0-spec", "response", ApiKeys.UNREGISTER_CONTROLLER, (short) 0, 7,
            null, new UnregisterControllerResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage("")));
        s.add(new Spec("UnregisterControllerResponse-v0-error", "response", ApiKeys.UNREGISTER_CONTROLLER, (short) 0, 7,
            null, extra("UnregisterControllerResponse", (short) 0, "error")));
        return s;
    }

    static List<ObjectNode> generate() {
        List<ObjectNode> out = new ArrayList<>();
        for (Spec s : specs()) {
            byte[] body = KafkaMessage.serialize(s.body, s.version);
            byte[] frame;
            if (s.kind.equals("request")) {
                RequestHeader h = new RequestHeader(s.api, s.version, s.clientId, s.correlationId);
                RequestAndSize r = AbstractRequest.parseRequest(s.api, s.version, new ByteBufferAccessor(ByteBuffer.wrap(body)));
                frame = drain(r.request.toSend(h));
                // cross-check against serializeWithHeader (no size prefix)
                byte[] noPrefix = toArray(r.request.serializeWithHeader(h));
                if (!Arrays.equals(Arrays.copyOfRange(frame, 4, frame.length), noPrefix)) {
                    throw new IllegalStateException(s.name + ": toSend and serializeWithHeader disagree");
                }
            } else {
                ResponseHeader h = new ResponseHeader(s.correlationId, s.api.responseHeaderVersion(s.version));
                AbstractResponse r = AbstractResponse.parseResponse(s.api, new ByteBufferAccessor(ByteBuffer.wrap(body)), s.version);
                frame = drain(r.toSend(h, s.version));
            }
            ObjectNode n = JsonNodeFactory.instance.objectNode();
            n.put("name", s.name);
            n.put("api_key", s.api.id);
            n.put("api_version", s.version);
            n.put("correlation_id", s.correlationId);
            if (s.clientId == null) {
                n.putNull("client_id");
            } else {
                n.put("client_id", s.clientId);
            }
            n.put("kind", s.kind);
            n.put("hex", GoldenVectors.hex(frame));
            String err = check(n);
            if (err != null) {
                throw new IllegalStateException("self-check failed for frame " + s.name + ": " + err);
            }
            out.add(n);
        }
        return out;
    }

    /** Verifies the frames of a frames.json file; returns {passed, failed}. */
    static int[] verify(String file, JsonNode frames) {
        int passed = 0;
        int failed = 0;
        for (JsonNode f : frames) {
            String err;
            try {
                err = check(f);
            } catch (RuntimeException e) {
                err = "bad frame: " + e;
            }
            if (err == null) {
                passed++;
            } else {
                System.out.printf("FAIL %s frame %s: %s%n", file, f.path("name").asText("?"), err);
                failed++;
            }
        }
        return new int[]{passed, failed};
    }

    /** Parses a frame with Kafka's header and body parsers and re-serializes it. Null when OK. */
    static String check(JsonNode f) {
        byte[] frame = GoldenVectors.unhex(f.path("hex").asText());
        String kind = f.path("kind").asText();
        short apiKey = (short) f.path("api_key").asInt(-1);
        short version = (short) f.path("api_version").asInt(-1);
        int corr = f.path("correlation_id").asInt();
        JsonNode cidNode = f.get("client_id");
        String clientId = cidNode == null || cidNode.isNull() ? null : cidNode.asText();
        if (frame.length < 4) {
            return "frame shorter than its size prefix";
        }
        ByteBuffer buf = ByteBuffer.wrap(frame);
        int size = buf.getInt();
        if (size != frame.length - 4) {
            return "size prefix " + size + " but " + (frame.length - 4) + " bytes follow";
        }
        if (!ApiKeys.hasId(apiKey)) {
            return "api_key " + apiKey + " unknown to Kafka 4.4";
        }
        ApiKeys api = ApiKeys.forId(apiKey);
        if (!api.isVersionSupported(version)) {
            return "api_version " + version + " of " + api + " unknown to Kafka 4.4";
        }
        byte[] again;
        ByteBuffer body = buf.slice();
        if (kind.equals("request")) {
            RequestHeader h;
            try {
                h = RequestHeader.parse(body);
            } catch (RuntimeException e) {
                return "Kafka cannot parse the request header: " + e;
            }
            if (h.apiKey() != api || h.apiVersion() != version || h.correlationId() != corr) {
                return "header says api " + h.apiKey().id + " v" + h.apiVersion() + " corr " + h.correlationId()
                    + ", frame fields say api " + apiKey + " v" + version + " corr " + corr;
            }
            if (!Objects.equals(h.clientId(), clientId)) {
                return "header client id " + h.clientId() + " != " + clientId;
            }
            AbstractRequest req;
            try {
                req = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(body)).request;
            } catch (RuntimeException e) {
                return "Kafka cannot parse the request body: " + e;
            }
            if (body.hasRemaining()) {
                return body.remaining() + " trailing byte(s) after the request body";
            }
            again = drain(req.toSend(h));
        } else if (kind.equals("response")) {
            short hv = api.responseHeaderVersion(version);
            ResponseHeader h;
            try {
                h = ResponseHeader.parse(body, hv);
            } catch (RuntimeException e) {
                return "Kafka cannot parse the response header (v" + hv + "): " + e;
            }
            if (h.correlationId() != corr) {
                return "header correlation id " + h.correlationId() + " != " + corr;
            }
            AbstractResponse resp;
            try {
                resp = AbstractResponse.parseResponse(api, new ByteBufferAccessor(body), version);
            } catch (RuntimeException e) {
                return "Kafka cannot parse the response body: " + e;
            }
            if (body.hasRemaining()) {
                return body.remaining() + " trailing byte(s) after the response body";
            }
            again = drain(resp.toSend(h, version));
        } else {
            return "kind must be request or response, got " + kind;
        }
        if (!Arrays.equals(again, frame)) {
            return "Kafka re-serializes differently: " + GoldenVectors.bytesDiff(frame, again);
        }
        return null;
    }

    private static byte[] toArray(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** Writes a Send into memory. */
    static byte[] drain(Send send) {
        Sink sink = new Sink();
        try {
            while (!send.completed()) {
                send.writeTo(sink);
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return sink.out.toByteArray();
    }

    private static final class Sink implements TransferableChannel {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            out.write(b, 0, n);
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            ByteBuffer b = ByteBuffer.allocate((int) count);
            int n = fileChannel.read(b, position);
            b.flip();
            write(b);
            return n;
        }
    }
}
