package org.apache.kafka.common.config;

/** Stand-in for the constant JaasConfig imports (for its javadoc). */
public class SaslConfigs {
    public static final String SASL_JAAS_CONFIG = "sasl.jaas.config";
}
