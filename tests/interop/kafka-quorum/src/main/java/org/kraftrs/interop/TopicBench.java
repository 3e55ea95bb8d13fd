package org.kraftrs.interop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Admin-client timings for tests/interop/bench-brokers.sh, against Java
 * brokers whose controllers are kraft-rs or Java. Every line printed is one
 * fact, "KIND key=value ...".
 *
 * <pre>
 * TopicBench single BOOTSTRAP PREFIX WARMUP N [PAUSE_MS]
 *     WARMUP untimed, then N timed sequential createTopics of one topic
 *     (1 partition, RF 3), each createTopics(...).all().get():
 *     "create_single n=N p50_ms= p99_ms= max_ms= mean_ms=". With PAUSE_MS,
 *     a pause of that long (untimed) before each call, so the brokers have
 *     finished creating the previous replicas (a back-to-back loop measures
 *     how fast three brokers create replicas on a shared machine, not the
 *     latency of one call): "create_paced n= pause_ms= p50_ms= ...".
 * TopicBench batch BOOTSTRAP PREFIX TOPICS PARTITIONS BATCH RSS_CMD
 *     TOPICS topics of PARTITIONS partitions (RF 3) in createTopics calls of
 *     BATCH topics, sequential: "create_batch topics= partitions= batch=
 *     calls= total_s=". Then prints "created" and waits for a line on stdin
 *     (the script samples the controllers then), deletes them in calls of
 *     BATCH: "delete_batch topics= total_s=".
 * TopicBench isr BOOTSTRAP PREFIX COUNT
 *     waits (at most 120 s) until every partition of PREFIX0..PREFIX(COUNT-1)
 *     has a leader and all its replicas in its ISR: "isr_full polls= s=".
 * TopicBench failover BOOTSTRAP PREFIX COUNT ID=PID,...
 *     describes PREFIX0..PREFIX(COUNT-1), picks the broker leading most of
 *     them, SIGKILLs its PID (ProcessHandle.destroyForcibly) and polls
 *     describeTopics with no pause until every partition it led has another
 *     leader:
 *     "failover victim= led= polls= kill_to_all_s= kill_to_first_s=".
 * </pre>
 */
public final class TopicBench {
    private TopicBench() {}

    static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "120000");
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "10");
        return Admin.create(p);
    }

    static double pct(double[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: TopicBench single|batch|failover BOOTSTRAP ...");
            System.exit(2);
        }
        String mode = args[0];
        try (Admin admin = admin(args[1])) {
            switch (mode) {
                case "single": single(admin, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        args.length > 5 ? Integer.parseInt(args[5]) : 0); break;
                case "batch": batch(admin, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        Integer.parseInt(args[5])); break;
                case "failover": failover(admin, args[2], Integer.parseInt(args[3]), args[4]); break;
                case "isr": isrFull(admin, args[2], Integer.parseInt(args[3])); break;
                default: System.err.println("unknown mode " + mode); System.exit(2);
            }
        }
    }

    static void single(Admin admin, String prefix, int warmup, int n, int pauseMs) throws Exception {
        for (int i = 0; i < warmup; i++) {
            admin.createTopics(List.of(new NewTopic(prefix + "warm" + i, 1, (short) 3))).all().get();
        }
        double[] ms = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (pauseMs > 0) Thread.sleep(pauseMs);
            long t0 = System.nanoTime();
            admin.createTopics(List.of(new NewTopic(prefix + i, 1, (short) 3))).all().get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
            sum += ms[i];
        }
        Arrays.sort(ms);
        String kind = pauseMs > 0 ? "create_paced n=" + n + " pause_ms=" + pauseMs : "create_single n=" + n;
        System.out.printf("%s p50_ms=%.2f p99_ms=%.2f max_ms=%.2f mean_ms=%.2f%n",
                kind, pct(ms, 0.5), pct(ms, 0.99), ms[n - 1], sum / n);
    }

    static void batch(Admin admin, String prefix, int topics, int partitions, int batch) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < topics; i++) names.add(prefix + i);
        long t0 = System.nanoTime();
        int calls = 0;
        for (int i = 0; i < topics; i += batch) {
            List<NewTopic> b = new ArrayList<>();
            for (String n : names.subList(i, Math.min(topics, i + batch))) b.add(new NewTopic(n, partitions, (short) 3));
            admin.createTopics(b).all().get();
            calls++;
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("create_batch topics=%d partitions=%d rf=3 batch=%d calls=%d total_s=%.3f%n",
                topics, partitions, batch, calls, s);
        System.out.println("created");
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        t0 = System.nanoTime();
        for (int i = 0; i < topics; i += batch) {
            admin.deleteTopics(names.subList(i, Math.min(topics, i + batch))).all().get();
        }
        s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("delete_batch topics=%d batch=%d total_s=%.3f%n", topics, batch, s);
    }

    static void isrFull(Admin admin, String prefix, int count) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) names.add(prefix + i);
        long t0 = System.nanoTime();
        long polls = 0;
        while (true) {
            polls++;
            boolean full = true;
            try {
                for (TopicDescription t : admin.describeTopics(names).allTopicNames().get().values()) {
                    for (TopicPartitionInfo p : t.partitions()) {
                        Node l = p.leader();
                        if (l == null || l.isEmpty() || p.isr().size() != p.replicas().size()) full = false;
                    }
                }
            } catch (Exception e) {
                full = false;
            }
            if (full) break;
            if ((System.nanoTime() - t0) > 120_000_000_000L) {
                System.err.println("partitions without a full ISR after 120 s");
                System.exit(1);
            }
            Thread.sleep(100);
        }
        System.out.printf("isr_full polls=%d s=%.3f%n", polls, (System.nanoTime() - t0) / 1e9);
    }

    static void failover(Admin admin, String prefix, int count, String pidMap) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) names.add(prefix + i);
        Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames().get();
        Map<Integer, Long> pids = new java.util.HashMap<>();
        for (String kv : pidMap.split(",")) {
            String[] a = kv.split("=");
            pids.put(Integer.parseInt(a[0]), Long.parseLong(a[1]));
        }
        Map<Integer, Integer> leads = new java.util.HashMap<>();
        for (TopicDescription t : d.values()) {
            for (TopicPartitionInfo p : t.partitions()) {
                if (p.leader() != null && pids.containsKey(p.leader().id())) leads.merge(p.leader().id(), 1, Integer::sum);
            }
        }
        int victim = leads.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElseThrow(() -> new IllegalStateException("no partition has a leader"));
        long pid = pids.get(victim);
        Set<String> led = new HashSet<>();
        for (TopicDescription t : d.values()) {
            for (TopicPartitionInfo p : t.partitions()) {
                if (p.leader() != null && p.leader().id() == victim) led.add(t.name() + "-" + p.partition());
            }
        }
        if (led.isEmpty()) {
            System.err.println("broker " + victim + " leads none of the partitions");
            System.exit(1);
        }
        ProcessHandle h = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
        long t0 = System.nanoTime();
        h.destroyForcibly();
        long first = -1;
        long polls = 0;
        Set<String> left = new HashSet<>(led);
        while (!left.isEmpty()) {
            polls++;
            Map<String, TopicDescription> now;
            try {
                now = admin.describeTopics(names).allTopicNames().get();
            } catch (Exception e) {
                continue;
            }
            for (TopicDescription t : now.values()) {
                for (TopicPartitionInfo p : t.partitions()) {
                    Node l = p.leader();
                    String k = t.name() + "-" + p.partition();
                    if (left.contains(k) && l != null && !l.isEmpty() && l.id() != victim) {
                        left.remove(k);
                        if (first < 0) first = System.nanoTime();
                    }
                }
            }
            if ((System.nanoTime() - t0) > 120_000_000_000L) {
                System.err.println("partitions without a new leader after 120 s: " + left);
                System.exit(1);
            }
        }
        long t1 = System.nanoTime();
        System.out.printf("failover victim=%d led=%d polls=%d kill_to_first_s=%.3f kill_to_all_s=%.3f%n",
                victim, led.size(), polls, (first - t0) / 1e9, (t1 - t0) / 1e9);
    }
}
