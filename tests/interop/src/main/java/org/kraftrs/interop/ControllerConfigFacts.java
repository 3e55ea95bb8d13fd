package org.kraftrs.interop;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.internals.AppInfoParser;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Writes the config definitions kraft-rs' DescribeConfigs answers from, all
 * taken from the real Kafka 4.4 classes:
 *
 * <ul>
 *   <li>{@code broker}: every key of the broker {@code ConfigDef}
 *       ({@code AbstractKafkaConfig.CONFIG_DEF}, definition order) with its
 *       type, rendered default, internal flag, whether it is dynamic
 *       ({@code DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS}), its update mode
 *       (per-broker or cluster-wide), whether it is dynamic only under a
 *       listener prefix ({@code DYNAMIC_SECURITY_CONFIGS}), its synonyms
 *       ({@code DynamicBrokerConfig.brokerConfigSynonyms(name, true)}) and its
 *       documentation; then the dynamic-only broker configs
 *       ({@code DynamicConfig.Broker}, the quotas), marked
 *       {@code dynamicOnly};</li>
 *   <li>{@code topic}: the documentation of every topic config;</li>
 *   <li>{@code group}: every group config ({@code GroupConfig.CONFIG_DEF})
 *       with its type, default, internal flag, broker synonym and
 *       documentation, and {@code groupDefaults}: the values a controller
 *       with no group settings gives them
 *       ({@code extractGroupConfigMap});</li>
 *   <li>{@code clientMetrics}: every client-metrics config.</li>
 * </ul>
 *
 * Needs Kafka's server classes (kafka_2.13) on the classpath: run it through
 * {@code tests/interop/controller-configs.sh}. Usage:
 * {@code ControllerConfigFacts OUTPUT.json}.
 */
public final class ControllerConfigFacts {

    private ControllerConfigFacts() {
    }

    // The server classes are on the run-time classpath only (kafka-quorum/).
    private static Class<?> cls(String name) throws Exception {
        return Class.forName(name);
    }

    private static Object field(String cls, String name) throws Exception {
        return cls(cls).getField(name).get(null);
    }

    private static Object call(String cls, String name, Class<?>[] types, Object... args) throws Exception {
        return cls(cls).getMethod(name, types).invoke(null, args);
    }

    private static final String ABSTRACT_KAFKA_CONFIG = "org.apache.kafka.server.config.AbstractKafkaConfig";
    private static final String DYNAMIC_BROKER_CONFIG = "org.apache.kafka.server.config.DynamicBrokerConfig";
    private static final String GROUP_CONFIG = "org.apache.kafka.coordinator.group.GroupConfig";

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ControllerConfigFacts OUTPUT.json");
            System.exit(2);
        }
        ConfigDef brokerDef = (ConfigDef) field(ABSTRACT_KAFKA_CONFIG, "CONFIG_DEF");
        @SuppressWarnings("unchecked")
        Set<String> allDynamic = (Set<String>) field(DYNAMIC_BROKER_CONFIG, "ALL_DYNAMIC_CONFIGS");
        @SuppressWarnings("unchecked")
        Set<String> dynamicSecurity = (Set<String>) field(DYNAMIC_BROKER_CONFIG, "DYNAMIC_SECURITY_CONFIGS");
        @SuppressWarnings("unchecked")
        Map<String, String> modes = (Map<String, String>) call(DYNAMIC_BROKER_CONFIG, "dynamicConfigUpdateModes", new Class<?>[0]);
        @SuppressWarnings("unchecked")
        Map<String, ConfigDef.ConfigKey> dynamicKeys = (Map<String, ConfigDef.ConfigKey>)
            call("org.apache.kafka.server.config.DynamicConfig$Broker", "configKeys", new Class<?>[0]);
        ConfigDef groupDef = (ConfigDef) field(GROUP_CONFIG, "CONFIG_DEF");
        ConfigDef clientMetricsDef = (ConfigDef) call("org.apache.kafka.server.metrics.ClientMetricsConfigs", "configDef", new Class<?>[0]);
        TopicConfigFacts.Json out = new TopicConfigFacts.Json();
        out.beginObject();
        out.key("kafkaVersion").string(AppInfoParser.getVersion());
        out.key("broker").beginArray();
        for (ConfigDef.ConfigKey key : brokerDef.configKeys().values()) {
            out.beginObject();
            common(out, key);
            out.key("dynamic").bool(allDynamic.contains(key.name));
            out.key("updateMode").nullableString(modes.get(key.name));
            out.key("listenerPrefixOnly").bool(dynamicSecurity.contains(key.name));
            out.key("synonyms").beginInlineArray();
            @SuppressWarnings("unchecked")
            List<String> synonyms = (List<String>) call(DYNAMIC_BROKER_CONFIG, "brokerConfigSynonyms",
                new Class<?>[] {String.class, boolean.class}, key.name, true);
            for (String s : synonyms) {
                out.string(s);
            }
            out.endArray();
            out.key("documentation").nullableString(key.documentation);
            out.endObject();
        }
        // Dynamic-only broker configs (the broker quotas): typed, never listed.
        for (ConfigDef.ConfigKey key : dynamicKeys.values()) {
            if (brokerDef.configKeys().containsKey(key.name)) {
                continue;
            }
            out.beginObject();
            common(out, key);
            out.key("dynamic").bool(allDynamic.contains(key.name));
            out.key("updateMode").nullableString(modes.get(key.name));
            out.key("dynamicOnly").bool(true);
            out.key("documentation").nullableString(key.documentation);
            out.endObject();
        }
        out.endArray();
        out.key("topic").beginArray();
        ConfigDef topic = (ConfigDef) Class.forName("org.apache.kafka.storage.internals.log.LogConfig")
            .getMethod("configDefCopy").invoke(null);
        for (ConfigDef.ConfigKey key : topic.configKeys().values()) {
            out.beginObject();
            out.key("name").string(key.name);
            out.key("documentation").nullableString(key.documentation);
            out.endObject();
        }
        out.endArray();
        out.key("group").beginArray();
        for (ConfigDef.ConfigKey key : groupDef.configKeys().values()) {
            out.beginObject();
            common(out, key);
            Optional<?> brokerSynonym = (Optional<?>) call(GROUP_CONFIG, "brokerSynonym", new Class<?>[] {String.class}, key.name);
            out.key("brokerSynonym").nullableString((String) brokerSynonym.orElse(null));
            out.key("documentation").nullableString(key.documentation);
            out.endObject();
        }
        out.endArray();
        out.key("groupDefaults").beginObject();
        Properties props = new Properties();
        props.put("process.roles", "controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@localhost:9093");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "CONTROLLER://localhost:9093");
        Object controller = call("kafka.server.KafkaConfig", "fromProps", new Class<?>[] {Properties.class, boolean.class}, props, false);
        Object coordinator = controller.getClass().getMethod("groupCoordinatorConfig").invoke(controller);
        @SuppressWarnings("unchecked")
        Map<String, Object> groupValues = (Map<String, Object>) controller.getClass()
            .getMethod("extractGroupConfigMap", cls("org.apache.kafka.coordinator.group.GroupCoordinatorConfig"))
            .invoke(controller, coordinator);
        Map<String, Object> defaults = new TreeMap<>(groupValues);
        for (Map.Entry<String, Object> e : defaults.entrySet()) {
            ConfigDef.ConfigKey groupKey = groupDef.configKeys().get(e.getKey());
            ConfigDef.Type type = groupKey == null ? null : groupKey.type;
            out.key(e.getKey()).nullableString(ConfigDef.convertToString(e.getValue(), type));
        }
        out.endObject();
        out.key("clientMetrics").beginArray();
        for (ConfigDef.ConfigKey key : clientMetricsDef.configKeys().values()) {
            out.beginObject();
            common(out, key);
            out.key("documentation").nullableString(key.documentation);
            out.endObject();
        }
        out.endArray();
        out.endObject();
        Files.write(Path.of(args[0]), (out.toString() + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Name, type, rendered default (absent when there is none) and internal flag. */
    private static void common(TopicConfigFacts.Json out, ConfigDef.ConfigKey key) {
        out.key("name").string(key.name);
        out.key("type").string(key.type.name());
        out.key("hasDefault").bool(key.hasDefault());
        out.key("default").nullableString(key.hasDefault() ? ConfigDef.convertToString(key.defaultValue, key.type) : null);
        out.key("internal").bool(key.internalConfig);
    }
}
