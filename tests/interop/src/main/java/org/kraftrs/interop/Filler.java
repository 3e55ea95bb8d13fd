package org.kraftrs.interop;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.types.RawTaggedField;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Schema-driven manipulation of Kafka's generated message objects (via their setters):
 * <ul>
 *   <li>{@link #fill}: set every field that exists at a version to an "edge" value
 *       (EDGE: null wherever the version allows null, except tagged fields whose
 *       default is null; EXTREME: never null), with extreme numbers, non-ASCII
 *       strings and several array elements; tagged fields always get a non-default
 *       value so that they reach the wire;</li>
 *   <li>{@link #prune}: reset every field that does not exist at a version to its
 *       default (so a version-independent "typical" object can be written at any
 *       version without Kafka's "non-default field" exception);</li>
 *   <li>{@link #addUnknownTags}: attach RawTaggedFields with unused tag numbers.</li>
 * </ul>
 */
final class Filler {
    enum Mode { EDGE, EXTREME }

    private final Class<?> top;

    Filler(Class<?> top) {
        this.top = top;
    }

    // ----------------------------------------------------------------------------- fill

    void fill(Object obj, Schema.Struct spec, int v, Mode mode, int depth, int idx) {
        Object fresh = newLike(obj);
        for (Schema.Field f : spec.fields) {
            if (!f.presentIn(v)) {
                continue;
            }
            boolean tagged = f.taggedIn(v);
            Object def = KafkaMessage.get(fresh, f.name);
            if (mode == Mode.EDGE && f.nullableIn(v) && !(tagged && def == null)) {
                KafkaMessage.set(obj, f.name, null);
                continue;
            }
            KafkaMessage.set(obj, f.name, value(obj, f, v, mode, depth, idx, def));
        }
    }

    private Object value(Object owner, Schema.Field f, int v, Mode mode, int depth, int idx, Object def) {
        if (f.isArray()) {
            Collection<Object> c = KafkaMessage.newArray(owner, f.name);
            int n = depth == 0 ? 3 : 2;
            for (int i = 0; i < n; i++) {
                if (f.struct != null) {
                    Object e = KafkaMessage.newStruct(top, f.struct.name);
                    fill(e, f.struct, v, mode, depth + 1, idx + i);
                    c.add(e);
                } else {
                    c.add(scalar(f.elementType(), f.name, idx + i, null, null));
                }
            }
            return c;
        }
        if (f.struct != null) {
            Object s = KafkaMessage.newStruct(top, f.struct.name);
            fill(s, f.struct, v, mode, depth + 1, idx);
            return s;
        }
        return scalar(f.type, f.name, idx, def, KafkaMessage.setterType(owner, f.name));
    }

    static final String[] STRINGS = {
        "Ünïcödé-контроллер-日本語-🚀",
        "ßü-ε-中文-🦀",
        "ñΩ€-𝄞-ü",
        // > 127 UTF-8 bytes: needs a two-byte uvarint length in compact encodings
        "naïve-κόσμε-".repeat(12),
    };

    static final Uuid[] UUIDS = {
        new Uuid(0x0123456789abcdefL, 0xfedcba9876543210L),
        new Uuid(-1L, -1L),
        new Uuid(Long.MIN_VALUE, 1L),
        new Uuid(0x7fffffffffffffffL, 0x8000000000000000L),
    };

    static final byte[][] BYTES = {
        {0x00, (byte) 0xff, 0x7f, (byte) 0x80, 0x01},
        {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef},
        {0x00},
    };

    /** A value for a scalar field, chosen (starting at idx) to differ from {@code def}. */
    static Object scalar(String type, String fieldName, int idx, Object def, Class<?> setterType) {
        Object[] cands;
        switch (type) {
            case "bool":
                return def == null ? (idx % 2 == 0) : !((Boolean) def);
            case "int8":
                cands = new Object[]{(byte) -128, (byte) 127, (byte) -1, (byte) 1};
                break;
            case "int16":
                cands = new Object[]{Short.MIN_VALUE, Short.MAX_VALUE, (short) -1, (short) 1};
                break;
            case "uint16":
                cands = new Object[]{65535, 0, 32768, 1};
                break;
            case "int32":
                cands = new Object[]{Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 1};
                break;
            case "uint32":
                cands = new Object[]{4294967295L, 0L, 2147483648L, 1L};
                break;
            case "int64":
                cands = new Object[]{Long.MIN_VALUE, Long.MAX_VALUE, -1L, 1L};
                break;
            case "float64":
                cands = new Object[]{-1.5e300, Double.MAX_VALUE, -0.5, 1.0};
                break;
            case "uuid":
                cands = UUIDS;
                break;
            case "string":
                cands = STRINGS;
                break;
            case "bytes": {
                byte[] b = BYTES[idx % BYTES.length].clone();
                if (setterType != null && ByteBuffer.class.isAssignableFrom(setterType)) {
                    return ByteBuffer.wrap(b);
                }
                return b;
            }
            case "records":
                return fieldName.equals("UnalignedRecords") ? Samples.snapshotChunk() : Samples.fetchRecords();
            default:
                throw new IllegalArgumentException("unknown scalar type " + type);
        }
        for (int k = 0; k < cands.length; k++) {
            Object c = cands[(idx + k) % cands.length];
            if (!Objects.equals(c, def)) {
                return c;
            }
        }
        throw new IllegalStateException("no non-default candidate for " + type);
    }

    // ----------------------------------------------------------------------------- prune

    /** Resets every field absent at version v (recursively) to its default value. */
    static void prune(Object obj, Schema.Struct spec, int v) {
        Object fresh = newLike(obj);
        for (Schema.Field f : spec.fields) {
            if (!f.presentIn(v)) {
                KafkaMessage.set(obj, f.name, KafkaMessage.get(fresh, f.name));
            } else if (f.struct != null) {
                Object val = KafkaMessage.get(obj, f.name);
                if (f.isArray()) {
                    for (Object e : KafkaMessage.elements(val)) {
                        prune(e, f.struct, v);
                    }
                } else if (val != null) {
                    prune(val, f.struct, v);
                }
            }
        }
    }

    // ----------------------------------------------------------------------------- unknown tags

    /**
     * Adds unknown tagged fields: tags 7 (3 bytes) and 300 (empty, two-byte varint tag)
     * at the top level; tag 100 on the first nested struct; tag 42 on the deepest struct
     * of the first array path (Topics[0].Partitions[0]...) if that is a different struct.
     * A tag the struct itself uses (at any version: Kafka refuses a known tag even at a
     * version where its field is not tagged) is replaced by the next one it does not use.
     * Returns a human-readable description.
     */
    static String addUnknownTags(Message m, Schema.Struct spec, int v) {
        int low = unusedTag(spec, 7);
        int high = unusedTag(spec, 300);
        StringBuilder sb = new StringBuilder("top:" + low + "," + high);
        m.unknownTaggedFields().add(new RawTaggedField(low, new byte[]{0x01, 0x02, 0x03}));
        m.unknownTaggedFields().add(new RawTaggedField(high, new byte[0]));
        Object[] firstAndSpec = firstNested(m, spec, v, false);
        Message first = firstAndSpec == null ? null : (Message) firstAndSpec[0];
        if (first != null) {
            int tag = unusedTag((Schema.Struct) firstAndSpec[1], 100);
            first.unknownTaggedFields().add(new RawTaggedField(tag, new byte[]{(byte) 0xaa}));
            sb.append(" ").append(first.getClass().getSimpleName()).append(":").append(tag);
        }
        Message deep = m;
        Schema.Struct deepSpec = spec;
        while (true) {
            Object[] next = firstArrayElement(deep, deepSpec, v);
            if (next == null) {
                break;
            }
            deep = (Message) next[0];
            deepSpec = (Schema.Struct) next[1];
        }
        if (deep != m && deep != first) {
            int tag = unusedTag(deepSpec, 42);
            deep.unknownTaggedFields().add(new RawTaggedField(tag, "kraft".getBytes(StandardCharsets.UTF_8)));
            sb.append(" ").append(deep.getClass().getSimpleName()).append(":").append(tag);
        }
        return sb.toString();
    }

    /** {@code wanted}, or the next tag after it that no field of {@code spec} has. */
    static int unusedTag(Schema.Struct spec, int wanted) {
        int tag = wanted;
        while (true) {
            int t = tag;
            if (spec.fields.stream().noneMatch(f -> f.tag != null && f.tag == t)) {
                return tag;
            }
            tag++;
        }
    }

    /** The first nested struct (message and schema) of {@code obj}, or null. */
    private static Object[] firstNested(Object obj, Schema.Struct spec, int v, boolean arraysOnly) {
        for (Schema.Field f : spec.fields) {
            if (!f.presentIn(v) || f.struct == null) {
                continue;
            }
            Object val = KafkaMessage.get(obj, f.name);
            if (f.isArray()) {
                List<Object> els = KafkaMessage.elements(val);
                if (!els.isEmpty()) {
                    return new Object[]{els.get(0), f.struct};
                }
            } else if (!arraysOnly && val != null) {
                return new Object[]{val, f.struct};
            }
        }
        return null;
    }

    private static Object[] firstArrayElement(Object obj, Schema.Struct spec, int v) {
        for (Schema.Field f : spec.fields) {
            if (!f.presentIn(v) || f.struct == null || !f.isArray()) {
                continue;
            }
            List<Object> els = KafkaMessage.elements(KafkaMessage.get(obj, f.name));
            if (!els.isEmpty()) {
                return new Object[]{els.get(0), f.struct};
            }
        }
        return null;
    }

    // -----------------------------------------------------------------------------

    static Object newLike(Object o) {
        try {
            return o.getClass().getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }
}
