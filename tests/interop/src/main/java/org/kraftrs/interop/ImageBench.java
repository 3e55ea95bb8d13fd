package org.kraftrs.interop;

import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.UnalignedMemoryRecords;
import org.apache.kafka.common.record.internal.UnalignedRecords;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.writer.ImageWriterOptions;
import org.apache.kafka.image.writer.RaftSnapshotWriter;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.RawSnapshotReader;
import org.apache.kafka.snapshot.RawSnapshotWriter;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotWriter;

import java.io.ByteArrayOutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Kafka 4.4's own metadata image classes on the records kraft-rs's image
 * benchmark ({@code crates/controller/benches/image.rs}) writes to
 * {@code records.bin} (each framed record value as a big-endian int length
 * and the bytes, in log order), measured the way that benchmark measures
 * kraft-rs (issue 13):
 *
 * <ul>
 *   <li>replay: {@link MetadataRecordSerde} deserializes every value,
 *   {@link MetadataDelta#replay} on a delta of the empty image, then
 *   {@code delta.apply(provenance)};</li>
 *   <li>snapshot write: {@link MetadataImage#write} through Kafka's
 *   {@link RaftSnapshotWriter} (1,024 records per append, as
 *   {@code SnapshotEmitter}) and {@link RecordsSnapshotWriter} (8 MiB
 *   batches, as {@code KafkaRaftClient}) into an in-memory raw snapshot
 *   (every record serialized and framed; no file I/O, as on our side);</li>
 *   <li>snapshot load: {@link RecordsSnapshotReader} over those bytes (CRC
 *   checked), every record replayed into a fresh delta,
 *   {@code finishSnapshot}, {@code apply};</li>
 *   <li>heap: used heap after {@code System.gc()} (repeated until stable)
 *   with the image held, minus without it, per partition.</li>
 * </ul>
 *
 * Each operation runs {@code WARMUP} untimed rounds (JIT warm-up), then
 * {@code RUNS} timed ones (each after a {@code System.gc()}, outside the
 * timing, that collects the previous round's output); the median is
 * reported on one line:
 * {@code kafka records=... replay_records_per_s=... snapshot_write_ms=...
 * snapshot_load_ms=... heap_bytes_per_partition=...}.
 *
 * <p>Usage: {@code ImageBench RECORDS_BIN [WARMUP RUNS]}.
 */
public final class ImageBench {
    static final int MAX_BATCH_BYTES = 8 * 1024 * 1024;
    static final int SNAPSHOT_RECORDS_PER_APPEND = 1024;

    /** Keeps the measured image reachable. */
    static volatile Object sink;

    private ImageBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 && args.length != 3) {
            System.err.println("usage: ImageBench RECORDS_BIN [WARMUP RUNS]");
            System.exit(2);
        }
        int warmup = args.length == 3 ? Integer.parseInt(args[1]) : 10;
        int runs = args.length == 3 ? Integer.parseInt(args[2]) : 7;
        List<ByteBuffer> values = readValues(Path.of(args[0]));

        MetadataImage image = replay(values);
        long partitions = image.topics().topicsById().values().stream()
            .mapToLong(t -> t.partitions().size()).sum();
        long records = values.size();
        long partitionRecords = values.stream()
            .filter(v -> MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(v.duplicate()), v.remaining())
                .message() instanceof PartitionRecord)
            .count();
        if (partitionRecords != partitions) {
            throw new IllegalStateException(partitionRecords + " PartitionRecords but " + partitions
                + " partitions in the image");
        }
        byte[] snapshot = writeSnapshot(image);
        MetadataImage loaded = loadSnapshot(snapshot);
        if (!loaded.topics().equals(image.topics()) || !loaded.acls().equals(image.acls())
            || !loaded.configs().equals(image.configs()) || !loaded.cluster().equals(image.cluster())) {
            throw new IllegalStateException("the snapshot loads to another image");
        }

        // Heap first, before the timed rounds churn the heap.
        image = null;
        loaded = null;
        long without = usedAfterGc();
        sink = replay(values);
        long with = usedAfterGc();
        long heapPerPartition = (with - without) / partitions;
        sink = null;

        double replayMs = medianMs(warmup, runs, () -> replay(values));
        MetadataImage held = replay(values);
        double writeMs = medianMs(warmup, runs, () -> writeSnapshot(held));
        double loadMs = medianMs(warmup, runs, () -> loadSnapshot(snapshot));

        StringBuilder gcs = new StringBuilder();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.append(gcs.length() == 0 ? "" : ",").append(gc.getName().replace(' ', '_'));
        }
        System.out.printf("kafka records=%d partitions=%d replay_records_per_s=%.0f replay_ms=%.2f "
                + "snapshot_write_ms=%.2f snapshot_load_ms=%.2f heap_bytes_per_partition=%d snapshot_bytes=%d "
                + "runs=%d warmup=%d java=%s max_heap_mb=%d gc=%s jvm_args=%s%n",
            records, partitions, records / (replayMs / 1e3), replayMs, writeMs, loadMs, heapPerPartition,
            snapshot.length, runs, warmup, System.getProperty("java.version"),
            Runtime.getRuntime().maxMemory() >> 20, gcs,
            String.join(",", ManagementFactory.getRuntimeMXBean().getInputArguments()).replace(' ', '_'));
    }

    static List<ByteBuffer> readValues(Path file) throws Exception {
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
        List<ByteBuffer> out = new ArrayList<>();
        while (all.hasRemaining()) {
            int len = all.getInt();
            ByteBuffer v = all.slice();
            v.limit(len);
            out.add(v);
            all.position(all.position() + len);
        }
        return out;
    }

    static MetadataImage replay(List<ByteBuffer> values) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        for (ByteBuffer v : values) {
            ApiMessageAndVersion amv =
                MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(v.duplicate()), v.remaining());
            delta.replay(amv.message());
        }
        return delta.apply(new MetadataProvenance(values.size() - 1, 1, 0, false));
    }

    static byte[] writeSnapshot(MetadataImage image) {
        MemorySnapshotWriter raw = new MemorySnapshotWriter(new OffsetAndEpoch(
            image.provenance().lastContainedOffset() + 1, image.provenance().lastContainedEpoch()));
        RecordsSnapshotWriter<ApiMessageAndVersion> writer = new RecordsSnapshotWriter.Builder()
            .setLastContainedLogTimestamp(0)
            .setMaxBatchSizeBytes(MAX_BATCH_BYTES)
            .setRawSnapshotWriter(raw)
            .setKraftVersion(KRaftVersion.KRAFT_VERSION_1)
            .build(MetadataRecordSerde.INSTANCE);
        RaftSnapshotWriter imageWriter = new RaftSnapshotWriter(writer, SNAPSHOT_RECORDS_PER_APPEND);
        image.write(imageWriter, new ImageWriterOptions.Builder(image).build());
        imageWriter.close(true);
        return raw.bytes();
    }

    static MetadataImage loadSnapshot(byte[] snapshot) {
        OffsetAndEpoch id = new OffsetAndEpoch(1, 1);
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        long lastOffset = -1;
        try (RecordsSnapshotReader<ApiMessageAndVersion> reader = RecordsSnapshotReader.of(
            new MemorySnapshotReader(id, snapshot), MetadataRecordSerde.INSTANCE, BufferSupplier.create(),
            MAX_BATCH_BYTES, true, new LogContext())) {
            while (reader.hasNext()) {
                Batch<ApiMessageAndVersion> b = reader.next();
                for (ApiMessageAndVersion amv : b.records()) {
                    delta.replay(amv.message());
                }
                lastOffset = b.lastOffset();
            }
        }
        delta.finishSnapshot();
        return delta.apply(new MetadataProvenance(lastOffset, 1, 0, true));
    }

    /** Used heap bytes after full GCs, once two in a row agree within 1 MiB. */
    static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(100);
            long used = rt.totalMemory() - rt.freeMemory();
            if (i >= 2 && Math.abs(used - last) < (1 << 20)) {
                return used;
            }
            last = used;
        }
        return last;
    }

    static double medianMs(int warmup, int runs, Supplier<Object> op) {
        for (int i = 0; i < warmup; i++) {
            sink = op.get();
        }
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            // The previous round's output is collected outside the timing, as
            // the Rust side drops its output outside the timing.
            sink = null;
            System.gc();
            long start = System.nanoTime();
            sink = op.get();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        sink = null;
        Arrays.sort(ms);
        return ms[runs / 2];
    }

    /** A {@link RawSnapshotWriter} that keeps the snapshot's bytes in memory. */
    static final class MemorySnapshotWriter implements RawSnapshotWriter {
        private final OffsetAndEpoch id;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
        private boolean frozen;

        MemorySnapshotWriter(OffsetAndEpoch id) {
            this.id = id;
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        @Override
        public OffsetAndEpoch snapshotId() {
            return id;
        }

        @Override
        public long sizeInBytes() {
            return out.size();
        }

        private void append(ByteBuffer buffer) {
            if (frozen) {
                throw new IllegalStateException("frozen");
            }
            if (buffer.hasArray()) {
                out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            } else {
                byte[] b = new byte[buffer.remaining()];
                buffer.get(b);
                out.write(b, 0, b.length);
            }
        }

        @Override
        public void append(MemoryRecords records) {
            append(records.buffer());
        }

        @Override
        public void append(UnalignedMemoryRecords records) {
            append(records.buffer());
        }

        @Override
        public boolean isFrozen() {
            return frozen;
        }

        @Override
        public void freeze() {
            frozen = true;
        }

        @Override
        public void close() {
        }
    }

    /** A {@link RawSnapshotReader} over a snapshot's bytes in memory. */
    static final class MemorySnapshotReader implements RawSnapshotReader {
        private final OffsetAndEpoch id;
        private final byte[] bytes;

        MemorySnapshotReader(OffsetAndEpoch id, byte[] bytes) {
            this.id = id;
            this.bytes = bytes;
        }

        @Override
        public OffsetAndEpoch snapshotId() {
            return id;
        }

        @Override
        public long sizeInBytes() {
            return bytes.length;
        }

        @Override
        public UnalignedRecords slice(long position, int size) {
            return new UnalignedMemoryRecords(ByteBuffer.wrap(bytes, (int) position, size).slice());
        }

        @Override
        public Records records() {
            return MemoryRecords.readableRecords(ByteBuffer.wrap(bytes));
        }
    }
}
