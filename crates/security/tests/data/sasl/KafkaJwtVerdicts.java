import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.security.auth.login.AppConfigurationEntry;

import org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;

/**
 * Judges each token of a cases file with Kafka's own BrokerJwtValidator
 * against a JWKS file, with the settings tests/sasl_jwt_kafka.rs uses.
 * Prints "<name> ok <principal> <lifetimeMs>" or "<name> refused" (the
 * reason goes to stderr).
 *
 * Usage: KafkaJwtVerdicts <jwks.json> <cases.txt>
 */
public class KafkaJwtVerdicts {
    public static void main(String[] args) throws Exception {
        Path jwks = Paths.get(args[0]).toAbsolutePath();
        String url = jwks.toUri().toString();
        System.setProperty("org.apache.kafka.sasl.oauthbearer.allowed.urls", url);
        Map<String, Object> configs = new HashMap<>();
        configs.put("sasl.oauthbearer.jwks.endpoint.url", url);
        configs.put("sasl.oauthbearer.expected.audience", List.of("kraft-rs-test"));
        configs.put("sasl.oauthbearer.expected.issuer", "https://issuer.example");
        configs.put("sasl.oauthbearer.clock.skew.seconds", 30);
        configs.put("sasl.oauthbearer.scope.claim.name", "scope");
        configs.put("sasl.oauthbearer.sub.claim.name", "sub");
        AppConfigurationEntry entry = new AppConfigurationEntry(
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
            AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
            Map.of());
        BrokerJwtValidator validator = new BrokerJwtValidator();
        validator.configure(configs, "OAUTHBEARER", List.of(entry));
        for (String line : Files.readAllLines(Paths.get(args[1]))) {
            if (line.isBlank() || line.startsWith("#"))
                continue;
            String[] parts = line.split(" ", 2);
            String token = parts.length > 1 ? parts[1] : "";
            try {
                OAuthBearerToken t = validator.validate(token);
                System.out.println(parts[0] + " ok " + t.principalName() + " " + t.lifetimeMs());
            } catch (Exception e) {
                System.out.println(parts[0] + " refused");
                System.err.println(parts[0] + ": " + e.getMessage());
            }
        }
    }
}
