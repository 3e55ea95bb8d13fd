package org.kraftrs.interop;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.utils.internals.AppInfoParser;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * One Kafka message type (request, response, header, control record or metadata
 * record), bound to its generated class, its generated JsonConverter and its schema.
 * All (de)serialization goes through Kafka's generated code.
 */
final class KafkaMessage {
    final String name;
    final Class<? extends Message> cls;
    final Schema.Message schema;
    final short lowest;
    final short highest;
    final String source;
    private final Method jsonWrite;
    private final Constructor<? extends Message> readCtor;
    private final Constructor<? extends Message> newCtor;

    private KafkaMessage(String name, Class<? extends Message> cls, String schemaPath) throws ReflectiveOperationException {
        this.name = name;
        this.cls = cls;
        this.schema = Schema.load(schemaPath);
        this.newCtor = cls.getConstructor();
        this.readCtor = cls.getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class);
        Class<?> conv = Class.forName(cls.getName() + "JsonConverter");
        this.jsonWrite = conv.getMethod("write", cls, short.class, boolean.class);
        Message m = newCtor.newInstance();
        this.lowest = m.lowestSupportedVersion();
        this.highest = m.highestSupportedVersion();
        if (schema.validVersions.lo != lowest || schema.validVersions.hi != highest) {
            throw new IllegalStateException(name + ": schema validVersions " + schema.validVersions
                + " disagree with class " + lowest + "-" + highest);
        }
        this.source = "Apache Kafka " + AppInfoParser.getVersion() + " " + artifactOf(cls);
    }

    /** "kafka-clients" for a class loaded from kafka-clients-4.4.0.jar. */
    private static String artifactOf(Class<?> cls) {
        try {
            String file = new File(cls.getProtectionDomain().getCodeSource().getLocation().toURI()).getName();
            return file.replaceAll("-\\d[^-]*\\.jar$", "").replaceAll("\\.jar$", "");
        } catch (Exception e) {
            return "unknown-artifact";
        }
    }

    /** Schemas whose file is not named after the message (Kafka's file name without ".json"). */
    private static final Map<String, String> SCHEMA_FILES = Map.of("ZkMigrationStateRecord", "ZkMigrationRecord");

    /**
     * Resolves a message name as used in the golden files ("VoteRequest",
     * "RequestHeader", "VotersRecord", "RegisterControllerRecord", ...).
     * Returns null if Kafka 4.4 has no such message.
     */
    @SuppressWarnings("unchecked")
    static KafkaMessage resolve(String name) {
        String file = SCHEMA_FILES.getOrDefault(name, name);
        String[][] candidates = {
            {"org.apache.kafka.common.message." + name + "Data", "common/message/" + file + ".json"},
            {"org.apache.kafka.common.message." + name, "common/message/" + file + ".json"},
            {"org.apache.kafka.common.metadata." + name, "common/metadata/" + file + ".json"},
            {"org.apache.kafka.common.metadata." + name + "Data", "common/metadata/" + file + ".json"},
        };
        for (String[] c : candidates) {
            Class<?> k;
            try {
                k = Class.forName(c[0]);
            } catch (ClassNotFoundException e) {
                continue;
            }
            if (!Message.class.isAssignableFrom(k)) {
                continue;
            }
            try {
                return new KafkaMessage(name, (Class<? extends Message>) k, c[1]);
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException("cannot bind " + c[0], e);
            }
        }
        return null;
    }

    boolean supports(int v) {
        return v >= lowest && v <= highest;
    }

    boolean flexible(int v) {
        return schema.flexible(v);
    }

    Message newInstance() {
        try {
            return newCtor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** Serializes the body (no size prefix, no header) with Kafka's generated writer. */
    static byte[] serialize(Message m, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = m.size(cache, v);
        ByteBuffer buf = ByteBuffer.allocate(size);
        m.write(new ByteBufferAccessor(buf), cache, v);
        if (buf.hasRemaining()) {
            throw new IllegalStateException("Kafka wrote " + buf.position() + " bytes but announced " + size);
        }
        return buf.array();
    }

    /** Result of decoding: the message and the number of bytes left unread. */
    record Decoded(Message message, int remaining) {
    }

    /** Decodes with {@code new XData(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), version)}. */
    Decoded deserialize(byte[] bytes, short v) {
        ByteBufferAccessor acc = new ByteBufferAccessor(ByteBuffer.wrap(bytes));
        try {
            Message m = readCtor.newInstance(acc, v);
            return new Decoded(m, acc.remaining());
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof RuntimeException re) {
                throw re;
            }
            throw new RuntimeException(t);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** {@code XJsonConverter.write(m, v, true)} (the variant with records serialized "as bytes"). */
    JsonNode toJson(Message m, short v) {
        try {
            return (JsonNode) jsonWrite.invoke(null, m, v, true);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof RuntimeException re) {
                throw re;
            }
            throw new RuntimeException(t);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    // ---------------------------------------------------------------------------------
    // Reflection helpers over generated classes: field "FooBar" has setter setFooBar(x)
    // and getter fooBar(); structs are static nested classes of the top-level class.
    // ---------------------------------------------------------------------------------

    static String setterName(String field) {
        return "set" + Character.toUpperCase(field.charAt(0)) + field.substring(1);
    }

    static String getterName(String field) {
        return Character.toLowerCase(field.charAt(0)) + field.substring(1);
    }

    static Method setter(Class<?> c, String field) {
        String n = setterName(field);
        for (Method m : c.getMethods()) {
            if (m.getName().equals(n) && m.getParameterCount() == 1) {
                return m;
            }
        }
        throw new IllegalStateException("no setter " + n + " on " + c.getName());
    }

    static Object get(Object o, String field) {
        try {
            return o.getClass().getMethod(getterName(field)).invoke(o);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("cannot get " + field + " of " + o.getClass().getName(), e);
        }
    }

    static void set(Object o, String field, Object value) {
        try {
            setter(o.getClass(), field).invoke(o, value);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("cannot set " + field + " of " + o.getClass().getName() + " to " + value, e);
        }
    }

    /** The generated class of struct {@code structName} inside top-level message class {@code top}. */
    static Class<?> structClass(Class<?> top, String structName) {
        try {
            return Class.forName(top.getName() + "$" + structName);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("no nested class " + structName + " in " + top.getName(), e);
        }
    }

    static Object newStruct(Class<?> top, String structName) {
        try {
            return structClass(top, structName).getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** A new empty container suitable for the setter of an array field (List or generated collection). */
    @SuppressWarnings("unchecked")
    static Collection<Object> newArray(Object owner, String field) {
        Class<?> p = setter(owner.getClass(), field).getParameterTypes()[0];
        if (p.isAssignableFrom(ArrayList.class)) {
            return new ArrayList<>();
        }
        try {
            return (Collection<Object>) p.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("cannot create collection " + p.getName(), e);
        }
    }

    static Class<?> setterType(Object owner, String field) {
        return setter(owner.getClass(), field).getParameterTypes()[0];
    }

    static List<Object> elements(Object array) {
        List<Object> out = new ArrayList<>();
        if (array != null) {
            out.addAll((Collection<?>) array);
        }
        return out;
    }
}
