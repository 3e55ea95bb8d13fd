package org.kraftrs.interop;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IntSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The client side of tests/interop/topics.sh: an idempotent producer and a
 * consumer in a consumer group, with the plain Kafka 4.4 clients
 * (kafka-clients), against Java brokers whose controllers are kraft-rs or
 * Java.
 *
 * <pre>
 * TopicWorkload produce BOOTSTRAP TOPIC RECORDS KEYS RATE ACKED_FILE FINISH_FILE
 *     sends RECORDS records, keys k0..k(KEYS-1) in turn, value "KEY:SEQ:padding"
 *     (SEQ: the key's own sequence number from 0), at most RATE records/s until
 *     FINISH_FILE exists, then as fast as the producer takes them.
 *     enable.idempotence=true, acks=all, default retries, delivery.timeout.ms
 *     120000. Every acknowledged record is written to ACKED_FILE as
 *     "PARTITION OFFSET KEY SEQ". Prints "FIRST_ACK ...", a progress line every
 *     5 s and "PRODUCED sent=.. acked=.. failed=.. ..."; exits 1 when a send
 *     failed (the first distinct errors are printed).
 * TopicWorkload consume BOOTSTRAP TOPIC GROUP ACKED_FILE TIMEOUT_SECONDS
 *     subscribes to TOPIC in consumer group GROUP (auto.offset.reset=earliest,
 *     default isolation, no auto commit) and reads until every partition is
 *     read to its end offset (taken before the first poll) and at least as
 *     many records arrived as ACKED_FILE lists, TIMEOUT_SECONDS at most; then
 *     commits and reads the committed offsets back. Checks: every acknowledged
 *     record arrives exactly once at its partition and offset, offsets
 *     increase per partition, each key stays in one partition and its
 *     sequence numbers follow 0, 1, 2, ... in offset order, nothing arrives
 *     that was not acknowledged, the counts are equal, the committed offsets
 *     are the end offsets. Prints "CONSUMED ..." and per-partition counts;
 *     exits 1 on the first violations (up to 20 listed).
 * </pre>
 */
public final class TopicWorkload {
    private static final int PADDING = 100;

    public static void main(String[] args) throws Exception {
        if (args.length == 8 && args[0].equals("produce")) {
            System.exit(produce(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Double.parseDouble(args[5]), Path.of(args[6]), Path.of(args[7])));
        } else if (args.length == 6 && args[0].equals("consume")) {
            System.exit(consume(args[1], args[2], args[3], Path.of(args[4]), Integer.parseInt(args[5])));
        }
        System.err.println("usage: TopicWorkload produce BOOTSTRAP TOPIC RECORDS KEYS RATE ACKED_FILE FINISH_FILE\n"
                + "       TopicWorkload consume BOOTSTRAP TOPIC GROUP ACKED_FILE TIMEOUT_SECONDS");
        System.exit(2);
    }

    private static double since(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    // ------------------------------------------------------------ produce

    private static int produce(String bootstrap, String topic, int records, int keys, double rate,
            Path ackedFile, Path finishFile) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "topics-sh-producer");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        String padding = "x".repeat(PADDING);
        AtomicLong sent = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong maxLatency = new AtomicLong(); // ms, whole run
        AtomicLong windowMaxLatency = new AtomicLong(); // ms, since the last progress line
        Map<String, Integer> errors = Collections.synchronizedMap(new LinkedHashMap<>());
        long start = System.nanoTime();
        long finishSeenAt = -1; // records sent when FINISH_FILE appeared
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "progress");
            t.setDaemon(true);
            return t;
        });
        progress.scheduleAtFixedRate(() -> System.out.printf(
                "progress %.0fs: sent %d, acknowledged %d, failed %d, max ack latency in the last 5s %d ms%n",
                since(start), sent.get(), acked.get(), failed.get(), windowMaxLatency.getAndSet(0)),
                5, 5, TimeUnit.SECONDS);

        int[] seqs = new int[keys];
        try (BufferedWriter out = Files.newBufferedWriter(ackedFile, StandardCharsets.UTF_8);
                KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                if (finishSeenAt < 0) {
                    if (Files.exists(finishFile)) {
                        finishSeenAt = i;
                        System.out.printf("finish file seen at %.1fs after %d records sent; the rest unpaced%n",
                                since(start), i);
                    } else {
                        long due = start + (long) (i * 1e9 / rate);
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                    }
                }
                String key = "k" + (i % keys);
                int seq = seqs[i % keys]++;
                long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, key, key + ":" + seq + ":" + padding), (md, e) -> {
                    if (e == null) {
                        long latency = (System.nanoTime() - sentAt) / 1_000_000;
                        maxLatency.accumulateAndGet(latency, Math::max);
                        windowMaxLatency.accumulateAndGet(latency, Math::max);
                        synchronized (out) {
                            try {
                                out.write(md.partition() + " " + md.offset() + " " + key + " " + seq + "\n");
                            } catch (IOException io) {
                                throw new RuntimeException(io);
                            }
                            if (acked.incrementAndGet() == 1) {
                                System.out.printf("FIRST_ACK at %.1fs: partition %d offset %d%n", since(start),
                                        md.partition(), md.offset());
                            }
                        }
                    } else {
                        failed.incrementAndGet();
                        errors.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                    }
                });
                sent.incrementAndGet();
            }
            producer.flush();
        }
        progress.shutdownNow();
        System.out.printf("PRODUCED sent=%d acked=%d failed=%d elapsed=%.1fs max_ack_latency_ms=%d finish_seen_at=%d%n",
                sent.get(), acked.get(), failed.get(), since(start), maxLatency.get(), finishSeenAt);
        if (failed.get() > 0) {
            System.out.println("send errors (distinct, count):");
            synchronized (errors) {
                errors.entrySet().stream().limit(10)
                        .forEach(en -> System.out.println("  " + en.getValue() + " x " + en.getKey()));
            }
            return 1;
        }
        return 0;
    }

    // ------------------------------------------------------------ consume

    /** An acknowledged record: its key and sequence number. */
    private record Acked(String key, int seq) {
    }

    private static int consume(String bootstrap, String topic, String group, Path ackedFile, int timeoutSeconds)
            throws Exception {
        // partition -> offset -> acknowledged record
        Map<Integer, Map<Long, Acked>> acked = new TreeMap<>();
        long ackedCount = 0;
        List<String> violations = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(ackedFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                Acked prev = acked.computeIfAbsent(Integer.parseInt(f[0]), k -> new HashMap<>())
                        .put(Long.parseLong(f[1]), new Acked(f[2], Integer.parseInt(f[3])));
                if (prev != null) {
                    violations.add("two acknowledgements for partition " + f[0] + " offset " + f[1]);
                }
                ackedCount++;
            }
        }

        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "topics-sh-consumer");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

        long start = System.nanoTime();
        long deadline = start + timeoutSeconds * 1_000_000_000L;
        long consumed = 0;
        double assignedAt = -1;
        double firstRecordAt = -1;
        Map<Integer, Long> perPartition = new TreeMap<>();
        Map<Integer, Long> nextOffset = new TreeMap<>(); // last consumed offset + 1
        Map<String, Integer> keyPartition = new HashMap<>();
        Map<String, Integer> keyLastSeq = new HashMap<>();
        Map<Integer, Set<Long>> seen = new HashMap<>();
        Map<TopicPartition, Long> end;
        Map<TopicPartition, OffsetAndMetadata> committed;
        int assignedPartitions;
        boolean complete = false;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            end = consumer.endOffsets(tps, Duration.ofSeconds(30));
            System.out.printf("end offsets at %.1fs: %s%n", since(start), byPartition(end));
            double[] assigned = {-1};
            int[] nAssigned = {0};
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    nAssigned[0] += partitions.size();
                    if (assigned[0] < 0 && !partitions.isEmpty()) {
                        assigned[0] = since(start);
                        System.out.printf("group %s: %d partitions assigned at %.1fs%n", group, partitions.size(),
                                assigned[0]);
                    }
                }
            });
            while (System.nanoTime() < deadline) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<String, String> r : batch) {
                    if (firstRecordAt < 0) {
                        firstRecordAt = since(start);
                    }
                    consumed++;
                    int part = r.partition();
                    long off = r.offset();
                    perPartition.merge(part, 1L, Long::sum);
                    Long next = nextOffset.get(part);
                    if (next != null && off < next) {
                        violations.add("partition " + part + ": offset " + off + " after offset " + (next - 1));
                    }
                    nextOffset.put(part, off + 1);
                    if (!seen.computeIfAbsent(part, k -> new HashSet<>()).add(off)) {
                        violations.add("partition " + part + " offset " + off + " consumed twice");
                        continue;
                    }
                    String[] v = r.value() == null ? new String[0] : r.value().split(":", 3);
                    if (v.length != 3 || !v[0].equals(r.key())) {
                        violations.add("partition " + part + " offset " + off + ": key " + r.key() + ", value "
                                + r.value() + " does not carry the key");
                        continue;
                    }
                    int seq = Integer.parseInt(v[1]);
                    Acked a = acked.getOrDefault(part, Map.of()).get(off);
                    if (a == null) {
                        violations.add("partition " + part + " offset " + off + " (" + r.key() + " seq " + seq
                                + ") was not acknowledged");
                    } else if (!a.key().equals(r.key()) || a.seq() != seq) {
                        violations.add("partition " + part + " offset " + off + ": consumed " + r.key() + " seq "
                                + seq + ", acknowledged " + a.key() + " seq " + a.seq());
                    }
                    Integer kp = keyPartition.putIfAbsent(r.key(), part);
                    if (kp != null && kp != part) {
                        violations.add("key " + r.key() + " in partitions " + kp + " and " + part);
                    }
                    int last = keyLastSeq.getOrDefault(r.key(), -1);
                    if (seq != last + 1) {
                        violations.add("key " + r.key() + ": seq " + seq + " (partition " + part + " offset " + off
                                + ") after seq " + last + (seq <= last ? " (out of order or duplicate)" : " (gap)"));
                    }
                    keyLastSeq.put(r.key(), Math.max(last, seq));
                }
                boolean atEnd = true;
                for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
                    if (nextOffset.getOrDefault(e.getKey().partition(), 0L) < e.getValue()) {
                        atEnd = false;
                    }
                }
                if (atEnd && consumed >= ackedCount) {
                    complete = true;
                    break;
                }
            }
            assignedAt = assigned[0];
            assignedPartitions = nAssigned[0];
            double doneAt = since(start);
            if (complete) {
                consumer.commitSync(Duration.ofSeconds(30));
                committed = consumer.committed(Set.copyOf(tps), Duration.ofSeconds(30));
            } else {
                committed = Map.of();
                violations.add(String.format("not every partition read to its end offset within %ds (%d of %d "
                        + "acknowledged records consumed; %d partitions assigned%s): nothing committed",
                        timeoutSeconds, consumed, ackedCount, nAssigned[0],
                        assigned[0] < 0 ? ", the group never assigned any: is there a group coordinator "
                                + "(__consumer_offsets)?" : ""));
            }
            System.out.printf("CONSUMED acknowledged=%d consumed=%d partitions_assigned=%d assigned_at=%.1fs "
                    + "first_record_at=%.1fs all_read_at=%.1fs committed_at=%.1fs%n", ackedCount, consumed,
                    assignedPartitions, assignedAt, firstRecordAt, doneAt, since(start));
        }

        // Every acknowledged record consumed.
        long missing = 0;
        for (Map.Entry<Integer, Map<Long, Acked>> e : acked.entrySet()) {
            Set<Long> s = seen.getOrDefault(e.getKey(), Set.of());
            for (Map.Entry<Long, Acked> a : new TreeMap<>(e.getValue()).entrySet()) {
                if (!s.contains(a.getKey())) {
                    if (missing++ < 10) {
                        violations.add("acknowledged partition " + e.getKey() + " offset " + a.getKey() + " ("
                                + a.getValue().key() + " seq " + a.getValue().seq() + ") not consumed");
                    }
                }
            }
        }
        if (missing > 10) {
            violations.add((missing - 10) + " more acknowledged records not consumed");
        }
        if (consumed != ackedCount) {
            violations.add("consumed " + consumed + " records, acknowledged " + ackedCount);
        }
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            long want = e.getValue();
            if (complete && want > 0 && (c == null || c.offset() != want)) {
                violations.add("committed offset of " + e.getKey() + ": " + (c == null ? "none" : c.offset())
                        + ", end offset " + want);
            }
        }

        StringBuilder parts = new StringBuilder();
        for (Map.Entry<TopicPartition, Long> e : byPartition(end).entrySet()) {
            int part = e.getKey().partition();
            parts.append(String.format("  partition %d: consumed %d, acknowledged %d, end offset %d, committed %s%n",
                    part, perPartition.getOrDefault(part, 0L), acked.getOrDefault(part, Map.of()).size(),
                    e.getValue(), committed.get(e.getKey()) == null ? "none" : committed.get(e.getKey()).offset()));
        }
        System.out.print(parts);
        IntSummaryStatistics perKey = keyLastSeq.values().stream().mapToInt(x -> x + 1)
                .summaryStatistics();
        System.out.printf("keys: %d, each in one partition, %d to %d records each%n", keyLastSeq.size(),
                perKey.getCount() == 0 ? 0 : perKey.getMin(), perKey.getCount() == 0 ? 0 : perKey.getMax());
        if (!violations.isEmpty()) {
            System.out.println("VIOLATIONS " + violations.size() + " (first 20):");
            violations.stream().limit(20).forEach(v -> System.out.println("  " + v));
            return 1;
        }
        System.out.println("CHECKS every acknowledged record consumed exactly once at its partition and offset; "
                + "offsets increase per partition; per-key sequence numbers 0.. without gaps in offset order; "
                + "counts equal; committed offsets = end offsets");
        return 0;
    }

    /** M in partition order. */
    private static TreeMap<TopicPartition, Long> byPartition(Map<TopicPartition, Long> m) {
        TreeMap<TopicPartition, Long> out = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
        out.putAll(m);
        return out;
    }
}
