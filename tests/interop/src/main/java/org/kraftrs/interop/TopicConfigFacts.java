package org.kraftrs.interop;

import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.controller.ConfigurationControlManager;
import org.apache.kafka.controller.ConfigurationValidator;
import org.apache.kafka.metadata.KafkaConfigSchema;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Writes the facts kraft-rs' topic-config module is checked against, all
 * obtained from the real Kafka 4.4 classes:
 *
 * <ul>
 *   <li>every key of the topic {@code ConfigDef} (in its definition order) with
 *       its type, rendered default, validator text, internal and sensitive
 *       flags, and its broker synonyms in priority order with their unit
 *       conversion;</li>
 *   <li>the outcome (error code and message) of a list of topic config changes,
 *       each run through the controller's {@code ConfigurationControlManager}
 *       with the {@code ControllerConfigurationValidator} of a controller
 *       {@code KafkaConfig};</li>
 *   <li>the CreateTopics null-value check of {@code ReplicationControlManager};</li>
 *   <li>the effective configs a CreateTopics response lists for a set of
 *       creation configs, cluster defaults, node configs and static configs.</li>
 * </ul>
 *
 * Needs Kafka's server classes (kafka_2.13) on the classpath next to this
 * module's: run it through {@code tests/interop/topic-configs.sh}. Usage:
 * {@code TopicConfigFacts OUTPUT.json}.
 */
public final class TopicConfigFacts {

    private static final int CONTROLLER_ID = 3000;

    private TopicConfigFacts() { }

    /** One config change scenario. */
    private static final class Change {
        final String id;
        String topic = "t";
        final Map<String, String> server = new LinkedHashMap<>();
        final Map<String, String> existing = new LinkedHashMap<>();
        final List<Map.Entry<String, String>> changes = new ArrayList<>();

        Change(String id) {
            this.id = id;
        }

        Change topic(String name) {
            topic = name;
            return this;
        }

        Change server(String k, String v) {
            server.put(k, v);
            return this;
        }

        Change existing(String k, String v) {
            existing.put(k, v);
            return this;
        }

        Change set(String k, String v) {
            changes.add(new SimpleImmutableEntry<>(k, v));
            return this;
        }

        Change delete(String k) {
            changes.add(new SimpleImmutableEntry<>(k, null));
            return this;
        }
    }

    /** One effective-config scenario. */
    private static final class Effective {
        final String id;
        final List<Map.Entry<String, String>> creation = new ArrayList<>();
        final Map<String, String> cluster = new LinkedHashMap<>();
        final Map<String, String> node = new LinkedHashMap<>();
        final Map<String, String> staticConfig = new LinkedHashMap<>();

        Effective(String id) {
            this.id = id;
        }

        Effective creation(String k, String v) {
            creation.add(new SimpleImmutableEntry<>(k, v));
            return this;
        }

        Effective cluster(String k, String v) {
            cluster.put(k, v);
            return this;
        }

        Effective node(String k, String v) {
            node.put(k, v);
            return this;
        }

        Effective staticConfig(String k, String v) {
            staticConfig.put(k, v);
            return this;
        }
    }

    private static List<Change> changeCases() {
        List<Change> cases = new ArrayList<>();
        cases.add(new Change("valid-retention").set("retention.ms", "1000"));
        cases.add(new Change("valid-many").set("retention.ms", " 1000 ").set("cleanup.policy", "compact, delete")
            .set("compression.type", "zstd").set("compression.zstd.level", "-5").set("min.insync.replicas", "2")
            .set("unclean.leader.election.enable", "TRUE").set("flush.ms", "+5").set("preallocate", " false ")
            .set("leader.replication.throttled.replicas", "0:1, 1:2").set("follower.replication.throttled.replicas", "*")
            .set("message.timestamp.type", "LogAppendTime").set("min.cleanable.dirty.ratio", "1e-5"));
        cases.add(new Change("unknown-name").set("foo", "bar"));
        cases.add(new Change("unknown-names-order").set("zzz.unknown", "1").set("retention.ms", "5")
            .set("aaa.unknown", "2").set("bogus", "3").set("x", "4").set("segment.bytes", "oops"));
        cases.add(new Change("unknown-names-order-grown")
            .existing("retention.ms", "1").existing("retention.bytes", "1").existing("segment.ms", "10")
            .existing("segment.bytes", "2000000").existing("flush.ms", "1").existing("flush.messages", "1")
            .existing("delete.retention.ms", "1").existing("min.compaction.lag.ms", "1")
            .existing("max.compaction.lag.ms", "10").existing("file.delete.delay.ms", "1")
            .existing("index.interval.bytes", "1").existing("segment.index.bytes", "100")
            .set("q", "1").set("a", "2").set("b", "3").set("unknown.one", "4").set("unknown.two", "5"));
        cases.add(new Change("unknown-beats-bad-value").set("segment.bytes", "abc").set("foo", "1"));
        cases.add(new Change("int-not-a-number").set("segment.bytes", "abc"));
        cases.add(new Change("int-blank").set("segment.bytes", "  "));
        cases.add(new Change("int-overflow").set("max.message.bytes", "2147483648"));
        cases.add(new Change("long-fraction").set("retention.ms", "1.5"));
        cases.add(new Change("long-overflow").set("retention.ms", "9223372036854775808"));
        cases.add(new Change("long-untrimmed-bad").set("retention.ms", " 12x "));
        cases.add(new Change("int-below-min").set("segment.bytes", "1000"));
        cases.add(new Change("retention-below-min").set("retention.ms", "-2"));
        cases.add(new Change("retention-unlimited").set("retention.ms", "-1"));
        cases.add(new Change("min-insync-zero").set("min.insync.replicas", "0"));
        cases.add(new Change("min-insync-negative").set("min.insync.replicas", "-3"));
        cases.add(new Change("segment-ms-zero").set("segment.ms", "0"));
        cases.add(new Change("max-compaction-zero").set("max.compaction.lag.ms", "0"));
        cases.add(new Change("local-retention-below-min").set("local.retention.ms", "-3"));
        cases.add(new Change("remote-copy-lag-below-min").set("remote.copy.lag.ms", "-5"));
        cases.add(new Change("max-decompressed-zero").set("max.decompressed.message.bytes", "0"));
        cases.add(new Change("max-decompressed-above").set("max.decompressed.message.bytes", "2147483640"));
        cases.add(new Change("max-decompressed-ok").set("max.decompressed.message.bytes", "1000"));
        cases.add(new Change("double-above-max").set("min.cleanable.dirty.ratio", "1.5"));
        cases.add(new Change("double-above-max-exp").set("min.cleanable.dirty.ratio", "2E10"));
        cases.add(new Change("double-below-min").set("min.cleanable.dirty.ratio", "-0.25"));
        cases.add(new Change("double-tiny-negative").set("min.cleanable.dirty.ratio", "-0.0001"));
        cases.add(new Change("double-suffix-ok").set("min.cleanable.dirty.ratio", "0.5d"));
        cases.add(new Change("double-nan-ok").set("min.cleanable.dirty.ratio", "NaN"));
        cases.add(new Change("double-infinity").set("min.cleanable.dirty.ratio", "Infinity"));
        cases.add(new Change("double-not-a-number").set("min.cleanable.dirty.ratio", "abc"));
        cases.add(new Change("double-rust-only-syntax").set("min.cleanable.dirty.ratio", "inf"));
        cases.add(new Change("boolean-bad").set("unclean.leader.election.enable", "yes"));
        cases.add(new Change("boolean-long-s").set("preallocate", "fal\u017fe"));
        cases.add(new Change("cleanup-policy-bad").set("cleanup.policy", "foo"));
        cases.add(new Change("cleanup-policy-case").set("cleanup.policy", "Compact"));
        cases.add(new Change("cleanup-policy-empty-element").set("cleanup.policy", "delete,"));
        cases.add(new Change("cleanup-policy-duplicates-ok").set("cleanup.policy", "delete,delete"));
        cases.add(new Change("cleanup-policy-empty-ok").set("cleanup.policy", ""));
        cases.add(new Change("compression-type-case").set("compression.type", "GZIP"));
        cases.add(new Change("compression-type-none").set("compression.type", "none"));
        cases.add(new Change("gzip-level-zero").set("compression.gzip.level", "0"));
        cases.add(new Change("gzip-level-default-ok").set("compression.gzip.level", "-1"));
        cases.add(new Change("gzip-level-ten").set("compression.gzip.level", "10"));
        cases.add(new Change("lz4-level-zero").set("compression.lz4.level", "0"));
        cases.add(new Change("zstd-level-high").set("compression.zstd.level", "23"));
        cases.add(new Change("timestamp-type-case").set("message.timestamp.type", "createtime"));
        cases.add(new Change("throttled-bad").set("leader.replication.throttled.replicas", "1:2, x"));
        cases.add(new Change("throttled-star-mixed").set("follower.replication.throttled.replicas", "*,1:2"));
        cases.add(new Change("throttled-trailing-comma-ok").set("leader.replication.throttled.replicas", "1:2,"));
        cases.add(new Change("internal-segment-bytes-ok").set("internal.segment.bytes", "100"));
        cases.add(new Change("internal-segment-bytes-bad").set("internal.segment.bytes", "abc"));
        cases.add(new Change("first-bad-in-definition-order").set("remote.copy.lag.ms", "x")
            .set("retention.ms", "y").set("segment.bytes", "z"));
        cases.add(new Change("compaction-lag-conflict").set("min.compaction.lag.ms", "10")
            .set("max.compaction.lag.ms", "5"));
        cases.add(new Change("compaction-lag-conflict-existing").existing("max.compaction.lag.ms", "100")
            .set("min.compaction.lag.ms", "1000"));
        cases.add(new Change("compaction-lag-conflict-resolved-by-delete").existing("max.compaction.lag.ms", "100")
            .existing("min.compaction.lag.ms", "1000").delete("max.compaction.lag.ms"));
        cases.add(new Change("existing-bad-value-reported").existing("segment.bytes", "12")
            .set("retention.ms", "1000"));
        cases.add(new Change("delete-unknown-name").delete("foo"));
        cases.add(new Change("existing-unknown-name").existing("foo", "1").set("retention.ms", "5"));
        cases.add(new Change("delete-only").existing("retention.ms", "1000").delete("retention.ms"));
        cases.add(new Change("remote-storage-system-disabled").set("remote.storage.enable", "true"));
        cases.add(new Change("remote-storage-false-ok").set("remote.storage.enable", "false"));
        cases.add(new Change("remote-storage-turn-off").existing("remote.storage.enable", "true")
            .set("remote.storage.enable", "false"));
        cases.add(new Change("remote-storage-turn-off-delete").existing("remote.storage.enable", "true")
            .set("remote.storage.enable", "false").set("remote.log.delete.on.disable", "true"));
        cases.add(new Change("remote-storage-delete-existing").existing("remote.storage.enable", "TRUE")
            .delete("remote.storage.enable"));
        cases.add(new Change("remote-storage-untrimmed-existing").existing("remote.storage.enable", " true")
            .set("remote.storage.enable", "false"));
        cases.add(new Change("value-too-long").set("foo", "x".repeat(32768)));
        cases.add(new Change("value-at-limit").set("compression.type", " ".repeat(32767)));
        cases.add(new Change("topic-default-resource").topic("").set("retention.ms", "1"));
        cases.add(new Change("topic-illegal-chars").topic("a b").set("retention.ms", "1"));
        cases.add(new Change("topic-dot").topic(".").set("retention.ms", "1"));
        cases.add(new Change("topic-too-long").topic("t".repeat(250)).set("retention.ms", "1"));
        cases.add(new Change("server-max-compaction").server("log.cleaner.max.compaction.lag.ms", "100")
            .set("min.compaction.lag.ms", "1000"));
        cases.add(new Change("server-min-compaction").server("log.cleaner.min.compaction.lag.ms", "5000")
            .set("max.compaction.lag.ms", "1000"));
        cases.add(new Change("tiered-local-bytes-unlimited").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("retention.bytes", "100").set("local.retention.bytes", "-1"));
        cases.add(new Change("tiered-local-bytes-too-big").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("retention.bytes", "100").set("local.retention.bytes", "200"));
        cases.add(new Change("tiered-local-ms-too-big").server("remote.log.storage.system.enable", "true")
            .server("log.retention.hours", "1")
            .set("remote.storage.enable", "true").set("local.retention.ms", "7200000"));
        cases.add(new Change("tiered-local-ms-unlimited").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("local.retention.ms", "-1"));
        cases.add(new Change("tiered-compact").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("cleanup.policy", "compact"));
        cases.add(new Change("tiered-empty-policy-ok").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("cleanup.policy", ""));
        cases.add(new Change("tiered-copy-lag-ms").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("local.retention.ms", "1000").set("remote.copy.lag.ms", "2000"));
        cases.add(new Change("tiered-copy-lag-bytes").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("retention.bytes", "1000").set("remote.copy.lag.bytes", "2000"));
        cases.add(new Change("tiered-copy-disabled-bytes").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("remote.log.copy.disable", "true")
            .set("retention.bytes", "1000").set("local.retention.bytes", "500"));
        cases.add(new Change("tiered-copy-disabled-ms").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("remote.log.copy.disable", "true")
            .set("retention.ms", "1000").set("local.retention.ms", "500"));
        cases.add(new Change("tiered-ok").server("remote.log.storage.system.enable", "true")
            .set("remote.storage.enable", "true").set("retention.ms", "1000").set("local.retention.ms", "500"));
        return cases;
    }

    private static List<List<Map.Entry<String, String>>> creationNullCases() {
        List<List<Map.Entry<String, String>>> cases = new ArrayList<>();
        cases.add(List.of(new SimpleImmutableEntry<>("retention.ms", "1")));
        cases.add(List.of(new SimpleImmutableEntry<>("zeta", null), new SimpleImmutableEntry<>("retention.ms", "1"),
            new SimpleImmutableEntry<>("alpha", null)));
        cases.add(List.of(new SimpleImmutableEntry<>("retention.ms", null)));
        return cases;
    }

    private static List<Effective> effectiveCases() {
        List<Effective> cases = new ArrayList<>();
        cases.add(new Effective("defaults"));
        cases.add(new Effective("creation").creation("retention.ms", " 1000 ").creation("cleanup.policy", "compact")
            .creation("internal.segment.bytes", "2000000").creation("retention.ms", "2000"));
        cases.add(new Effective("cluster-defaults").cluster("log.retention.hours", "1").cluster("log.roll.ms", "5000")
            .cluster("log.segment.bytes", "2000000").cluster("min.insync.replicas", "2")
            .cluster("log.cleaner.min.cleanable.ratio", "0.3").cluster("log.roll.jitter.hours", " 2 ")
            .cluster("message.max.bytes", "12345").cluster("num.partitions", "7"));
        cases.add(new Effective("static").staticConfig("log.retention.minutes", "5").staticConfig("log.retention.hours", "2")
            .staticConfig("compression.type", "gzip").staticConfig("log.roll.jitter.hours", "abc")
            .staticConfig("log.roll.hours", "").staticConfig("log.flush.scheduler.interval.ms", "9")
            .staticConfig("log.cleanup.policy", "compact,delete"));
        cases.add(new Effective("layers").creation("segment.bytes", "1048576")
            .node("log.segment.bytes", "2097152").node("log.retention.ms", "7")
            .cluster("log.segment.bytes", "3145728").cluster("log.retention.ms", "8").cluster("log.index.interval.bytes", "99")
            .staticConfig("log.segment.bytes", "4194304").staticConfig("log.retention.ms", "9")
            .staticConfig("log.index.interval.bytes", "98").staticConfig("log.preallocate", "true"));
        cases.add(new Effective("layer-beats-synonym-priority").cluster("log.retention.hours", "3")
            .staticConfig("log.retention.ms", "1234").staticConfig("log.flush.interval.ms", "77")
            .cluster("log.flush.scheduler.interval.ms", "66"));
        return cases;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: TopicConfigFacts OUTPUT.json");
            System.exit(2);
        }
        Json out = new Json();
        out.beginObject();
        out.key("kafkaVersion").string(AppInfoParser.getVersion());
        out.key("configSources").beginObject();
        for (DescribeConfigsResponse.ConfigSource s : DescribeConfigsResponse.ConfigSource.values()) {
            out.key(s.name()).number(s.id());
        }
        out.endObject();
        writeConfigKeys(out);
        out.key("changes").beginArray();
        for (Change c : changeCases()) {
            writeChange(out, c);
        }
        out.endArray();
        out.key("creationNulls").beginArray();
        for (List<Map.Entry<String, String>> c : creationNullCases()) {
            writeCreationNulls(out, c);
        }
        out.endArray();
        out.key("effective").beginArray();
        for (Effective e : effectiveCases()) {
            writeEffective(out, e);
        }
        out.endArray();
        out.endObject();
        Files.write(Path.of(args[0]), (out.toString() + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void writeConfigKeys(Json out) throws Exception {
        out.key("configs").beginArray();
        for (ConfigDef.ConfigKey key : topicConfigDef().configKeys().values()) {
            out.beginObject();
            out.key("name").string(key.name);
            out.key("type").string(key.type.name());
            out.key("default");
            if (key.hasDefault()) {
                out.nullableString(ConfigDef.convertToString(key.defaultValue, key.type));
            } else {
                out.string("<no default>");
            }
            out.key("validator").nullableString(key.validator == null ? null : key.validator.toString());
            out.key("internal").bool(key.internalConfig);
            out.key("sensitive").bool(key.type.isSensitive());
            out.key("synonyms").beginArray();
            for (ConfigSynonym s : ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.getOrDefault(key.name, List.of())) {
                out.beginInlineObject();
                out.key("name").string(s.name());
                out.key("unit").string(unit(s));
                out.endObject();
            }
            out.endArray();
            out.endObject();
        }
        out.endArray();
    }

    /** The unit a synonym is denominated in, told by its converter's output. */
    private static String unit(ConfigSynonym s) {
        String two = s.converter().apply("2");
        switch (two) {
            case "2":
                return "same";
            case "7200000":
                return "hours";
            case "120000":
                return "minutes";
            default:
                throw new IllegalStateException("unexpected converter for " + s.name() + ": 2 -> " + two);
        }
    }

    private static void writeChange(Json out, Change c) throws Exception {
        Properties props = new Properties();
        props.put("process.roles", "controller");
        props.put("node.id", Integer.toString(CONTROLLER_ID));
        props.put("controller.quorum.voters", CONTROLLER_ID + "@localhost:9093");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "CONTROLLER://localhost:9093");
        props.putAll(c.server);
        Object kafkaConfig = Class.forName("kafka.server.KafkaConfig")
            .getMethod("fromProps", Properties.class).invoke(null, props);
        ConfigurationValidator validator = (ConfigurationValidator) Class
            .forName("kafka.server.ControllerConfigurationValidator")
            .getConstructor(Class.forName("kafka.server.KafkaConfig")).newInstance(kafkaConfig);
        Map<String, Object> staticConfig = new HashMap<>();
        props.forEach((k, v) -> staticConfig.put((String) k, v));
        ConfigurationControlManager manager = manager(validator, staticConfig);
        for (Map.Entry<String, String> e : c.existing.entrySet()) {
            manager.replay(new ConfigRecord().setResourceType(ConfigResource.Type.TOPIC.id())
                .setResourceName(c.topic).setName(e.getKey()).setValue(e.getValue()));
        }
        // As ReplicationControlManager.computeConfigChanges builds them for a CreateTopics request.
        Map<String, Map.Entry<OpType, String>> ops = new HashMap<>();
        for (Map.Entry<String, String> e : c.changes) {
            ops.put(e.getKey(), new SimpleImmutableEntry<>(e.getValue() == null ? OpType.DELETE : OpType.SET, e.getValue()));
        }
        Method alter = ConfigurationControlManager.class.getDeclaredMethod("incrementalAlterConfig",
            ConfigResource.class, Map.class, boolean.class, boolean.class);
        alter.setAccessible(true);
        Object result = alter.invoke(manager, new ConfigResource(ConfigResource.Type.TOPIC, c.topic), ops, true, false);
        Method response = result.getClass().getDeclaredMethod("response");
        response.setAccessible(true);
        ApiError error = (ApiError) response.invoke(result);

        out.beginObject();
        out.key("id").string(c.id);
        out.key("topic").string(c.topic);
        out.key("server").beginObject();
        for (Map.Entry<String, String> e : c.server.entrySet()) {
            out.key(e.getKey()).string(e.getValue());
        }
        out.endObject();
        out.key("existing").beginObject();
        for (Map.Entry<String, String> e : c.existing.entrySet()) {
            out.key(e.getKey()).string(e.getValue());
        }
        out.endObject();
        out.key("changes").beginArray();
        for (Map.Entry<String, String> e : c.changes) {
            out.beginInlineArray().string(e.getKey()).nullableString(e.getValue()).endArray();
        }
        out.endArray();
        out.key("errorCode").number(error.error().code());
        out.key("errorName").string(error.error().name());
        out.key("message").nullableString(error.message());
        out.endObject();
    }

    private static ConfigurationControlManager manager(ConfigurationValidator validator,
                                                       Map<String, Object> staticConfig) throws Exception {
        Class<?> builderClass = Class.forName("org.apache.kafka.controller.ConfigurationControlManager$Builder");
        Constructor<?> ctor = builderClass.getDeclaredConstructor();
        ctor.setAccessible(true);
        Object builder = ctor.newInstance();
        call(builder, "setKafkaConfigSchema", KafkaConfigSchema.class, schema());
        call(builder, "setValidator", ConfigurationValidator.class, validator);
        call(builder, "setStaticConfig", Map.class, staticConfig);
        call(builder, "setNodeId", int.class, CONTROLLER_ID);
        Method build = builderClass.getDeclaredMethod("build");
        build.setAccessible(true);
        return (ConfigurationControlManager) build.invoke(builder);
    }

    private static void call(Object target, String name, Class<?> type, Object arg) throws Exception {
        Method m = target.getClass().getDeclaredMethod(name, type);
        m.setAccessible(true);
        m.invoke(target, arg);
    }

    /**
     * LogConfig.configDefCopy(): kafka-storage is only on the runtime classpath
     * of this module, so it is reached by reflection.
     */
    private static ConfigDef topicConfigDef() throws Exception {
        return (ConfigDef) Class.forName("org.apache.kafka.storage.internals.log.LogConfig")
            .getMethod("configDefCopy").invoke(null);
    }

    /** The schema a Kafka controller runs with (KafkaRaftServer.configSchema). */
    private static KafkaConfigSchema schema() throws Exception {
        ConfigDef brokerDef = (ConfigDef) Class.forName("kafka.server.KafkaConfig").getMethod("configDef").invoke(null);
        return new KafkaConfigSchema(Map.of(
            ConfigResource.Type.BROKER, new ConfigDef(brokerDef),
            ConfigResource.Type.TOPIC, topicConfigDef()),
            ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS);
    }

    private static void writeCreationNulls(Json out, List<Map.Entry<String, String>> configs) throws Exception {
        CreatableTopicConfigCollection collection = new CreatableTopicConfigCollection();
        for (Map.Entry<String, String> e : configs) {
            collection.mustAdd(new CreatableTopicConfig().setName(e.getKey()).setValue(e.getValue()));
        }
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName("t").setNumPartitions(1).setReplicationFactor((short) 1)
            .setConfigs(collection));
        Map<String, ApiError> errors = new HashMap<>();
        Method compute = Class.forName("org.apache.kafka.controller.ReplicationControlManager")
            .getDeclaredMethod("computeConfigChanges", Map.class, CreatableTopicCollection.class);
        compute.setAccessible(true);
        compute.invoke(null, errors, topics);
        ApiError error = errors.getOrDefault("t", ApiError.NONE);
        out.beginObject();
        out.key("configs").beginArray();
        for (Map.Entry<String, String> e : configs) {
            out.beginInlineArray().string(e.getKey()).nullableString(e.getValue()).endArray();
        }
        out.endArray();
        out.key("errorCode").number(error.error().code());
        out.key("message").nullableString(error.message());
        out.endObject();
    }

    @SuppressWarnings("unchecked")
    private static void writeEffective(Json out, Effective e) throws Exception {
        ConfigurationControlManager manager = manager(ConfigurationValidator.NO_OP, new HashMap<>(e.staticConfig));
        for (Map.Entry<String, String> c : e.cluster.entrySet()) {
            manager.replay(new ConfigRecord().setResourceType(ConfigResource.Type.BROKER.id())
                .setResourceName("").setName(c.getKey()).setValue(c.getValue()));
        }
        for (Map.Entry<String, String> c : e.node.entrySet()) {
            manager.replay(new ConfigRecord().setResourceType(ConfigResource.Type.BROKER.id())
                .setResourceName(Integer.toString(CONTROLLER_ID)).setName(c.getKey()).setValue(c.getValue()));
        }
        // ReplicationControlManager.translateCreationConfigs: a later duplicate wins.
        Map<String, String> creation = new HashMap<>();
        for (Map.Entry<String, String> c : e.creation) {
            creation.put(c.getKey(), c.getValue());
        }
        Method compute = ConfigurationControlManager.class.getDeclaredMethod("computeEffectiveTopicConfigs", Map.class);
        compute.setAccessible(true);
        Map<String, ConfigEntry> effective = (Map<String, ConfigEntry>) compute.invoke(manager, creation);

        out.beginObject();
        out.key("id").string(e.id);
        out.key("creation").beginArray();
        for (Map.Entry<String, String> c : e.creation) {
            out.beginInlineArray().string(c.getKey()).string(c.getValue()).endArray();
        }
        out.endArray();
        writeMap(out, "cluster", e.cluster);
        writeMap(out, "node", e.node);
        writeMap(out, "static", e.staticConfig);
        out.key("entries").beginArray();
        // CreateTopics lists them sorted by name (String.compareTo).
        for (ConfigEntry entry : new TreeMap<>(effective).values()) {
            out.beginInlineObject();
            out.key("name").string(entry.name());
            out.key("value").nullableString(entry.isSensitive() ? null : entry.value());
            out.key("readOnly").bool(entry.isReadOnly());
            out.key("source").number(KafkaConfigSchema.translateConfigSource(entry.source()).id());
            out.key("sensitive").bool(entry.isSensitive());
            out.endObject();
        }
        out.endArray();
        out.endObject();
    }

    private static void writeMap(Json out, String name, Map<String, String> map) {
        out.key(name).beginObject();
        for (Map.Entry<String, String> c : map.entrySet()) {
            out.key(c.getKey()).string(c.getValue());
        }
        out.endObject();
    }

    /**
     * A small JSON writer, pretty-printed except for containers opened
     * "inline" (written on one line): non-ASCII characters and control
     * characters are written as backslash-u escapes, and a string made of one
     * character repeated more than 64 times is written as
     * {"repeat": CHAR, "times": N} to keep the file small.
     */
    static final class Json {
        private final StringBuilder sb = new StringBuilder();
        private final List<boolean[]> open = new ArrayList<>(); // {first, inline}
        private boolean afterKey = false;

        private boolean inline() {
            return open.stream().anyMatch(o -> o[1]);
        }

        private void indent() {
            sb.append('\n');
            for (int i = 0; i < open.size(); i++) {
                sb.append("  ");
            }
        }

        private void beforeValue() {
            if (afterKey) {
                afterKey = false;
                return;
            }
            if (!open.isEmpty()) {
                boolean[] top = open.get(open.size() - 1);
                if (!top[0]) {
                    sb.append(',');
                    if (inline()) {
                        sb.append(' ');
                    }
                }
                top[0] = false;
                if (!inline()) {
                    indent();
                }
            }
        }

        Json key(String k) {
            beforeValue();
            quote(k);
            sb.append(": ");
            afterKey = true;
            return this;
        }

        private Json begin(char c, boolean inline) {
            beforeValue();
            sb.append(c);
            open.add(new boolean[] {true, inline});
            return this;
        }

        private Json end(char c) {
            boolean[] top = open.remove(open.size() - 1);
            if (!top[0] && !top[1] && !inline()) {
                indent();
            }
            sb.append(c);
            return this;
        }

        Json beginObject() {
            return begin('{', false);
        }

        Json beginInlineObject() {
            return begin('{', true);
        }

        Json endObject() {
            return end('}');
        }

        Json beginArray() {
            return begin('[', false);
        }

        Json beginInlineArray() {
            return begin('[', true);
        }

        Json endArray() {
            return end(']');
        }

        Json string(String s) {
            beforeValue();
            if (s.length() > 64 && s.chars().allMatch(ch -> ch == s.charAt(0))) {
                sb.append("{\"repeat\": ");
                quote(s.substring(0, 1));
                sb.append(", \"times\": ").append(s.length()).append('}');
            } else {
                quote(s);
            }
            return this;
        }

        Json nullableString(String s) {
            if (s == null) {
                beforeValue();
                sb.append("null");
                return this;
            }
            return string(s);
        }

        Json number(long n) {
            beforeValue();
            sb.append(n);
            return this;
        }

        Json bool(boolean b) {
            beforeValue();
            sb.append(b);
            return this;
        }

        private void quote(String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                if (ch == '"' || ch == '\\') {
                    sb.append('\\').append(ch);
                } else if (ch < 0x20 || ch > 0x7e) {
                    sb.append(String.format("\\u%04x", (int) ch));
                } else {
                    sb.append(ch);
                }
            }
            sb.append('"');
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }
}
