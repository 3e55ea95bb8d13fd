package org.kraftrs.interop;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka 4.4's own {@link StandardAuthorizer} on the ACLs and checks that
 * kraft-rs's {@code authorize} bench ({@code crates/controller/benches/authorize.rs})
 * writes to {@code acls.txt} and {@code checks.txt} (tab-separated, Kafka's
 * names), measured the way that bench measures kraft-rs: one action per
 * {@code authorize} call, from a PLAINTEXT client at 127.0.0.1, the median
 * of {@code RUNS} loops of {@code ITERATIONS} calls per check after a JIT
 * warm-up.
 *
 * <p>The authorizer is set up as a controller sets it up:
 * {@code configure} ({@code super.users=User:admin}), plugin metrics
 * ({@code role=controller}), the ACLs loaded as a snapshot, then
 * {@code completeInitialLoad}. Actions ask for no audit log line
 * ({@code logIfAllowed} and {@code logIfDenied} false; kraft-rs writes
 * none), so the figure is the decision alone.
 *
 * <p>Prints {@code kafka acls=N checks=C ns_per_check=.. ns_0=.. ...
 * iterations=.. runs=..}; exits non-zero when an answer differs from the
 * expected one.
 */
public final class AuthzBench {
    private static final int ITERATIONS = 200_000;
    private static final int RUNS = 7;
    private static final long WARMUP_NANOS = 3_000_000_000L;

    private AuthzBench() {}

    private static final class Context implements AuthorizableRequestContext {
        private final KafkaPrincipal principal;
        private final InetAddress address;

        Context(KafkaPrincipal principal, InetAddress address) {
            this.principal = principal;
            this.address = address;
        }

        @Override public String listenerName() { return "CONTROLLER"; }
        @Override public SecurityProtocol securityProtocol() { return SecurityProtocol.PLAINTEXT; }
        @Override public KafkaPrincipal principal() { return principal; }
        @Override public InetAddress clientAddress() { return address; }
        @Override public int requestType() { return 19; }
        @Override public int requestVersion() { return 7; }
        @Override public String clientId() { return "bench-writer"; }
        @Override public int correlationId() { return 1; }
    }

    private static KafkaPrincipal principal(String text) {
        int colon = text.indexOf(':');
        return new KafkaPrincipal(text.substring(0, colon), text.substring(colon + 1));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: AuthzBench DIR (with acls.txt and checks.txt)");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        Map<Uuid, StandardAcl> acls = new HashMap<>();
        long id = 1;
        for (String line : Files.readAllLines(dir.resolve("acls.txt"))) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t", -1);
            acls.put(new Uuid(7, id++), new StandardAcl(
                ResourceType.fromString(f[0]), f[2], PatternType.fromString(f[1]),
                f[3], f[4], AclOperation.fromString(f[5]), AclPermissionType.fromString(f[6])));
        }
        StandardAuthorizer authorizer = new StandardAuthorizer();
        Map<String, Object> config = new HashMap<>();
        config.put(StandardAuthorizer.SUPER_USERS_CONFIG, "User:admin");
        authorizer.configure(config);
        Metrics metrics = new Metrics();
        authorizer.withPluginMetrics(new PluginMetricsImpl(metrics, Map.of("role", "controller")));
        authorizer.loadSnapshot(acls);
        authorizer.completeInitialLoad();

        InetAddress client = InetAddress.getByName("127.0.0.1");
        List<Context> contexts = new ArrayList<>();
        List<List<Action>> actions = new ArrayList<>();
        List<AuthorizationResult> expected = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("checks.txt"))) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t", -1);
            contexts.add(new Context(principal(f[0]), client));
            actions.add(List.of(new Action(AclOperation.fromString(f[1]),
                new ResourcePattern(ResourceType.fromString(f[2]), f[3], PatternType.LITERAL),
                1, false, false)));
            expected.add(AuthorizationResult.valueOf(f[4]));
        }
        int n = actions.size();
        for (int c = 0; c < n; c++) {
            AuthorizationResult got = authorizer.authorize(contexts.get(c), actions.get(c)).get(0);
            if (got != expected.get(c)) {
                System.err.println("check " + c + ": " + got + ", expected " + expected.get(c));
                System.exit(1);
            }
        }
        // JIT warm-up over every check.
        long sink = 0;
        long until = System.nanoTime() + WARMUP_NANOS;
        while (System.nanoTime() < until) {
            for (int c = 0; c < n; c++) {
                for (int i = 0; i < 10_000; i++) {
                    sink += authorizer.authorize(contexts.get(c), actions.get(c)).get(0).ordinal();
                }
            }
        }
        double[] each = new double[n];
        for (int c = 0; c < n; c++) {
            Context ctx = contexts.get(c);
            List<Action> action = actions.get(c);
            double[] runs = new double[RUNS];
            for (int r = 0; r < RUNS; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < ITERATIONS; i++) {
                    sink += authorizer.authorize(ctx, action).get(0).ordinal();
                }
                runs[r] = (double) (System.nanoTime() - t0) / ITERATIONS;
            }
            Arrays.sort(runs);
            each[c] = runs[RUNS / 2];
        }
        double mean = Arrays.stream(each).sum() / n;
        StringBuilder out = new StringBuilder(String.format(
            "kafka acls=%d checks=%d ns_per_check=%.1f", authorizer.aclCount(), n, mean));
        for (int c = 0; c < n; c++) {
            out.append(String.format(" ns_%d=%.1f", c, each[c]));
        }
        out.append(String.format(" iterations=%d runs=%d java=%s sink=%d",
            ITERATIONS, RUNS, System.getProperty("java.version"), sink & 1));
        System.out.println(out);
        metrics.close();
    }
}
