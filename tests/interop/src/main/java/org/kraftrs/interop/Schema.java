package org.kraftrs.interop;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal reader for Kafka's message schema JSON files (the ones shipped inside
 * the kafka-clients / kafka-metadata jars, e.g. {@code common/message/VoteRequest.json}).
 * Only what the driver needs to know: which fields exist, are nullable or tagged at a
 * given version, and their nested structs. Wire encoding itself is always done by
 * Kafka's generated classes.
 */
final class Schema {
    private Schema() {
    }

    /** A Kafka version range: "N", "N-M", "N+" or "none". */
    static final class Versions {
        final int lo;
        final int hi;

        private Versions(int lo, int hi) {
            this.lo = lo;
            this.hi = hi;
        }

        static final Versions NONE = new Versions(1, 0);

        static Versions parse(String s) {
            if (s == null) {
                return null;
            }
            s = s.trim();
            if (s.equals("none")) {
                return NONE;
            }
            if (s.endsWith("+")) {
                return new Versions(Integer.parseInt(s.substring(0, s.length() - 1)), Short.MAX_VALUE);
            }
            int dash = s.indexOf('-');
            if (dash > 0) {
                return new Versions(Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1)));
            }
            int v = Integer.parseInt(s);
            return new Versions(v, v);
        }

        boolean contains(int v) {
            return v >= lo && v <= hi;
        }

        @Override
        public String toString() {
            return lo > hi ? "none" : hi == Short.MAX_VALUE ? lo + "+" : lo == hi ? "" + lo : lo + "-" + hi;
        }
    }

    static final class Field {
        String name;
        String type;          // e.g. "int32", "[]TopicData", "SnapshotId"
        Versions versions;
        Versions nullableVersions = Versions.NONE;
        Versions taggedVersions = Versions.NONE;
        Integer tag;
        String defaultString; // null when absent in the schema
        boolean ignorable;
        boolean mapKey;
        Struct struct;        // for struct and []struct fields

        boolean isArray() {
            return type.startsWith("[]");
        }

        String elementType() {
            return isArray() ? type.substring(2) : type;
        }

        boolean isStructLike() {
            return struct != null;
        }

        boolean presentIn(int v) {
            return versions.contains(v);
        }

        boolean taggedIn(int v) {
            return taggedVersions.contains(v);
        }

        boolean nullableIn(int v) {
            return nullableVersions.contains(v);
        }
    }

    static final class Struct {
        final String name;
        final List<Field> fields = new ArrayList<>();

        Struct(String name) {
            this.name = name;
        }
    }

    static final class Message {
        String name;
        String type;
        Integer apiKey;
        Versions validVersions;
        Versions flexibleVersions;
        Struct root;

        boolean flexible(int v) {
            return flexibleVersions.contains(v);
        }
    }

    static final java.util.Set<String> PRIMITIVES = java.util.Set.of(
        "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
        "uuid", "string", "bytes", "records");

    private static final ObjectMapper MAPPER = new ObjectMapper()
        .configure(JsonParser.Feature.ALLOW_COMMENTS, true);

    private static final Map<String, Message> CACHE = new HashMap<>();

    /** Loads {@code resourcePath} (e.g. "common/message/VoteRequest.json") from the classpath. */
    static synchronized Message load(String resourcePath) {
        return CACHE.computeIfAbsent(resourcePath, Schema::doLoad);
    }

    private static Message doLoad(String resourcePath) {
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(resourcePath)) {
            if (in == null) {
                throw new IllegalArgumentException("schema resource not found on classpath: " + resourcePath);
            }
            JsonNode root = MAPPER.readTree(in);
            Message m = new Message();
            m.name = root.get("name").asText();
            m.type = root.get("type").asText();
            m.apiKey = root.has("apiKey") ? root.get("apiKey").asInt() : null;
            m.validVersions = Versions.parse(root.get("validVersions").asText());
            m.flexibleVersions = Versions.parse(root.get("flexibleVersions").asText());
            Map<String, JsonNode> common = new HashMap<>();
            if (root.has("commonStructs")) {
                for (JsonNode cs : root.get("commonStructs")) {
                    common.put(cs.get("name").asText(), cs);
                }
            }
            m.root = parseStruct(m.name, root.get("fields"), common);
            return m;
        } catch (IOException e) {
            throw new RuntimeException("cannot read schema " + resourcePath, e);
        }
    }

    private static Struct parseStruct(String name, JsonNode fields, Map<String, JsonNode> common) {
        Struct s = new Struct(name);
        for (JsonNode f : fields) {
            Field field = new Field();
            field.name = f.get("name").asText();
            field.type = f.get("type").asText();
            field.taggedVersions = f.has("taggedVersions") ? Versions.parse(f.get("taggedVersions").asText()) : Versions.NONE;
            field.versions = f.has("versions") ? Versions.parse(f.get("versions").asText()) : field.taggedVersions;
            field.nullableVersions = f.has("nullableVersions") ? Versions.parse(f.get("nullableVersions").asText()) : Versions.NONE;
            field.tag = f.has("tag") ? f.get("tag").asInt() : null;
            field.defaultString = f.has("default") ? f.get("default").asText() : null;
            field.ignorable = f.has("ignorable") && f.get("ignorable").asBoolean();
            field.mapKey = f.has("mapKey") && f.get("mapKey").asBoolean();
            String elem = field.elementType();
            if (!PRIMITIVES.contains(elem)) {
                if (f.has("fields")) {
                    field.struct = parseStruct(elem, f.get("fields"), common);
                } else if (common.containsKey(elem)) {
                    field.struct = parseStruct(elem, common.get(elem).get("fields"), common);
                } else {
                    throw new IllegalStateException("unknown struct type " + elem + " in " + name);
                }
            }
            s.fields.add(field);
        }
        return s;
    }
}
