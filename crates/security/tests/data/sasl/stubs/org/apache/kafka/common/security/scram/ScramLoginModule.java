package org.apache.kafka.common.security.scram;

/** Stand-in holding the one constant ScramExtensions reads. */
public class ScramLoginModule {
    public static final String TOKEN_AUTH_CONFIG = "tokenauth";
}
