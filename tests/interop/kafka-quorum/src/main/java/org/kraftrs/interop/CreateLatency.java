package org.kraftrs.interop;

import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * One-topic CreateTopics calls through a broker, timed one by one, for
 * tests/interop/forward-latency.sh.
 *
 * <pre>
 * CreateLatency BOOTSTRAP PREFIX WARMUP N RF [PAUSE_MS [validate]]
 *     WARMUP untimed calls, then N sequential createTopics(...).all().get()
 *     of one topic (1 partition, replication factor RF), PAUSE_MS (default
 *     0) apart; "validate" sends them with validateOnly (nothing is
 *     created: the forwarding path without the brokers' replica work). Prints
 *     "call i=I start_ms=EPOCH_MS ms=LATENCY" per timed call and
 *     "create_single n= p50_ms= p90_ms= max_ms= mean_ms=".
 * </pre>
 */
public final class CreateLatency {
    private CreateLatency() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 5 || args.length > 7) {
            System.err.println("usage: CreateLatency BOOTSTRAP PREFIX WARMUP N RF [PAUSE_MS [validate]]");
            System.exit(2);
        }
        String prefix = args[1];
        int warmup = Integer.parseInt(args[2]);
        int n = Integer.parseInt(args[3]);
        short rf = Short.parseShort(args[4]);
        long pauseMs = args.length > 5 ? Long.parseLong(args[5]) : 0;
        CreateTopicsOptions options = new CreateTopicsOptions()
                .validateOnly(args.length > 6 && args[6].equals("validate"));
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        try (Admin admin = Admin.create(p)) {
            for (int i = 0; i < warmup; i++) {
                admin.createTopics(List.of(new NewTopic(prefix + "warm" + i, 1, rf)), options).all().get();
            }
            double[] ms = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                if (pauseMs > 0) Thread.sleep(pauseMs);
                long wall = System.currentTimeMillis();
                long t0 = System.nanoTime();
                admin.createTopics(List.of(new NewTopic(prefix + i, 1, rf)), options).all().get();
                ms[i] = (System.nanoTime() - t0) / 1e6;
                sum += ms[i];
                System.out.printf("call i=%d start_ms=%d ms=%.2f%n", i, wall, ms[i]);
            }
            Arrays.sort(ms);
            System.out.printf("create_single n=%d p50_ms=%.2f p90_ms=%.2f max_ms=%.2f mean_ms=%.2f%n",
                    n, ms[(n - 1) / 2], ms[Math.max(0, (int) Math.ceil(0.9 * n) - 1)], ms[n - 1], sum / n);
        }
    }
}
