package org.kraftrs.interop;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.metadata.AbortTransactionRecord;
import org.apache.kafka.common.metadata.AccessControlEntryRecord;
import org.apache.kafka.common.metadata.BeginTransactionRecord;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.ClearElrRecord;
import org.apache.kafka.common.metadata.ClientQuotaRecord;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.DelegationTokenRecord;
import org.apache.kafka.common.metadata.EndTransactionRecord;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.FenceBrokerRecord;
import org.apache.kafka.common.metadata.NoOpRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.ProducerIdsRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RegisterControllerRecord;
import org.apache.kafka.common.metadata.RemoveAccessControlEntryRecord;
import org.apache.kafka.common.metadata.RemoveDelegationTokenRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.RemoveUserScramCredentialRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnfenceBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterControllerRecord;
import org.apache.kafka.common.metadata.UserScramCredentialRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.image.loader.MetadataBatchLoader;
import org.apache.kafka.image.writer.ImageWriterOptions;
import org.apache.kafka.image.writer.RaftSnapshotWriter;
import org.apache.kafka.image.writer.RecordListWriter;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.metadata.SupportedConfigChecker;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.raft.internals.RecordsIterator;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.FileRawSnapshotReader;
import org.apache.kafka.snapshot.FileRawSnapshotWriter;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Proof against Kafka 4.4's own classes that kraft-rs's metadata image loses
 * nothing (issue 13 item 3).
 *
 * <ul>
 *   <li>{@code generate DIR}: writes a metadata log with a rich history
 *   ({@code kafka-log.log}: record batches from offset 0, a committed and an
 *   aborted metadata transaction), loads it with Kafka's
 *   {@link MetadataBatchLoader} and writes the resulting image with
 *   {@link MetadataImage#write} through Kafka's {@link RecordsSnapshotWriter}
 *   ({@code kafka-snapshot.checkpoint}); {@code image-info.properties} holds
 *   the snapshot id and the last log offset.</li>
 *   <li>{@code compare DIR}: loads {@code kafka-snapshot.checkpoint},
 *   {@code ours-from-snapshot.checkpoint} and {@code ours-from-log.checkpoint}
 *   with Kafka's snapshot reader into {@link MetadataImage}s and checks they
 *   are equal, and that the multisets of (type, version, record) are.</li>
 * </ul>
 */
public final class ImageInterop {
    static final String SNAPSHOT = "kafka-snapshot.checkpoint";
    static final String LOG = "kafka-log.log";
    static final String INFO = "image-info.properties";
    static final String[] OURS = {"ours-from-snapshot.checkpoint", "ours-from-log.checkpoint"};

    static final MetadataVersion MV = MetadataVersion.IBP_4_4_IV2;
    static final long BASE_TIME = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    static final int MAX_BATCH_BYTES = 8 * 1024 * 1024;
    /** Kafka's snapshot writer batch: small, so the snapshot has several batches. */
    static final int SNAPSHOT_BATCH_BYTES = 4096;
    static final int SNAPSHOT_BATCH_RECORDS = 16;

    private ImageInterop() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !List.of("generate", "compare", "dump").contains(args[0])) {
            System.err.println("usage: ImageInterop generate|compare|dump DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[1]);
        if (args[0].equals("generate")) {
            generate(dir);
        } else if (args[0].equals("dump")) {
            for (ApiMessageAndVersion amv : loadSnapshot(dir.resolve(SNAPSHOT), readId(dir)).records()) {
                System.out.println(key(amv));
            }
        } else {
            System.exit(compare(dir) ? 0 : 1);
        }
    }

    /** A fixed clock: batch timestamps are reproducible. */
    static final class FixedTime implements Time {
        private final long ms;

        FixedTime(long ms) {
            this.ms = ms;
        }

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000L;
        }

        @Override
        public void sleep(long ms) {
        }
    }

    // ---------------------------------------------------------------- history

    static Uuid uuid(long lo) {
        return new Uuid(0x4b52_4146_5452_5300L, lo); // "KRAFTRS\0"
    }

    static ApiMessageAndVersion r(ApiMessage m) {
        short version;
        if (m instanceof RegisterBrokerRecord) {
            version = MV.registerBrokerRecordVersion();
        } else if (m instanceof PartitionRecord) {
            version = MV.partitionRecordVersion();
        } else if (m instanceof PartitionChangeRecord) {
            version = MV.partitionChangeRecordVersion();
        } else if (m instanceof BrokerRegistrationChangeRecord) {
            version = (short) 3;
        } else {
            version = (short) 0;
        }
        return new ApiMessageAndVersion(m, version);
    }

    static FeatureLevelRecord feature(String name, int level) {
        return new FeatureLevelRecord().setName(name).setFeatureLevel((short) level);
    }

    static RegisterControllerRecord controller(int id, long incarnation, int port) {
        RegisterControllerRecord.ControllerEndpointCollection eps =
            new RegisterControllerRecord.ControllerEndpointCollection();
        eps.add(new RegisterControllerRecord.ControllerEndpoint()
            .setName("CONTROLLER").setHost("controller-" + id + ".example").setPort(port)
            .setSecurityProtocol((short) 0));
        eps.add(new RegisterControllerRecord.ControllerEndpoint()
            .setName("CONTROLLER_SSL").setHost("controller-" + id + ".example").setPort(port + 1)
            .setSecurityProtocol((short) 1));
        RegisterControllerRecord.ControllerFeatureCollection fs =
            new RegisterControllerRecord.ControllerFeatureCollection();
        fs.add(new RegisterControllerRecord.ControllerFeature()
            .setName("kraft.version").setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1));
        fs.add(new RegisterControllerRecord.ControllerFeature()
            .setName("metadata.version").setMinSupportedVersion((short) 7).setMaxSupportedVersion((short) 33));
        return new RegisterControllerRecord().setControllerId(id).setIncarnationId(uuid(incarnation))
            .setZkMigrationReady(false).setEndPoints(eps).setFeatures(fs);
    }

    static RegisterBrokerRecord broker(int id, long epoch, String rack, List<Uuid> logDirs, List<Uuid> cordoned) {
        RegisterBrokerRecord.BrokerEndpointCollection eps = new RegisterBrokerRecord.BrokerEndpointCollection();
        eps.add(new RegisterBrokerRecord.BrokerEndpoint()
            .setName("PLAINTEXT").setHost("broker-" + id + ".example").setPort(9092).setSecurityProtocol((short) 0));
        eps.add(new RegisterBrokerRecord.BrokerEndpoint()
            .setName("SASL_SSL").setHost("broker-" + id + ".example").setPort(9094).setSecurityProtocol((short) 3));
        RegisterBrokerRecord.BrokerFeatureCollection fs = new RegisterBrokerRecord.BrokerFeatureCollection();
        fs.add(new RegisterBrokerRecord.BrokerFeature()
            .setName("metadata.version").setMinSupportedVersion((short) 7).setMaxSupportedVersion((short) 33));
        fs.add(new RegisterBrokerRecord.BrokerFeature()
            .setName("group.version").setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1));
        fs.add(new RegisterBrokerRecord.BrokerFeature()
            .setName("transaction.version").setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 2));
        RegisterBrokerRecord rec = new RegisterBrokerRecord().setBrokerId(id).setIsMigratingZkBroker(false)
            .setIncarnationId(uuid(1000 + id * 10 + epoch % 10)).setBrokerEpoch(epoch).setEndPoints(eps)
            .setFeatures(fs).setRack(rack).setFenced(true).setInControlledShutdown(false).setLogDirs(logDirs);
        if (cordoned != null) {
            rec.setCordonedLogDirs(cordoned);
        }
        return rec;
    }

    static Uuid dir(int broker, int n) {
        return uuid(100L * broker + n);
    }

    static PartitionRecord partition(Uuid topic, int id, int[] replicas, int[] isr, int leader) {
        List<Uuid> dirs = new ArrayList<>();
        for (int b : replicas) {
            dirs.add(dir(b, 1));
        }
        return new PartitionRecord().setPartitionId(id).setTopicId(topic).setReplicas(ints(replicas))
            .setIsr(ints(isr)).setRemovingReplicas(List.of()).setAddingReplicas(List.of()).setLeader(leader)
            .setLeaderEpoch(0).setPartitionEpoch(0).setDirectories(dirs);
    }

    static List<Integer> ints(int... xs) {
        List<Integer> out = new ArrayList<>();
        for (int x : xs) {
            out.add(x);
        }
        return out;
    }

    static ConfigRecord config(ConfigResource.Type type, String name, String key, String value) {
        return new ConfigRecord().setResourceType(type.id()).setResourceName(name).setName(key).setValue(value);
    }

    static ClientQuotaRecord quota(String[][] entity, String key, double value, boolean remove) {
        List<ClientQuotaRecord.EntityData> es = new ArrayList<>();
        for (String[] e : entity) {
            es.add(new ClientQuotaRecord.EntityData().setEntityType(e[0]).setEntityName(e[1]));
        }
        return new ClientQuotaRecord().setEntity(es).setKey(key).setValue(value).setRemove(remove);
    }

    static AccessControlEntryRecord acl(long id, ResourceType rt, String name, PatternType pt, String principal,
                                        String host, AclOperation op, AclPermissionType perm) {
        return new AccessControlEntryRecord().setId(uuid(id)).setResourceType(rt.code()).setResourceName(name)
            .setPatternType(pt.code()).setPrincipal(principal).setHost(host).setOperation(op.code())
            .setPermissionType(perm.code());
    }

    static UserScramCredentialRecord scram(String name, int mechanism, int seed, int iterations) {
        return new UserScramCredentialRecord().setName(name).setMechanism((byte) mechanism)
            .setSalt(bytes(seed, 16)).setStoredKey(bytes(seed + 1, mechanism == 1 ? 32 : 64))
            .setServerKey(bytes(seed + 2, mechanism == 1 ? 32 : 64)).setIterations(iterations);
    }

    static byte[] bytes(int seed, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    static DelegationTokenRecord token(String id, String owner, List<String> renewers, long expiration) {
        return new DelegationTokenRecord().setOwner(owner).setRequester(owner).setRenewers(renewers)
            .setIssueTimestamp(BASE_TIME).setMaxTimestamp(BASE_TIME + 7 * 86_400_000L)
            .setExpirationTimestamp(expiration).setTokenId(id);
    }

    /** One entry of the log: a data batch of metadata records, or a control batch. */
    record Entry(int epoch, List<ApiMessageAndVersion> records, ApiMessage control) {
    }

    /** The metadata log: a rich history, as the controller would write it. */
    static List<Entry> history() {
        List<Entry> log = new ArrayList<>();
        Function<ApiMessage[], List<ApiMessageAndVersion>> l = ms -> {
            List<ApiMessageAndVersion> out = new ArrayList<>();
            for (ApiMessage m : ms) {
                out.add(r(m));
            }
            return out;
        };
        final int e1 = 1;
        final int e2 = 2;
        log.add(new Entry(e1, null, new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1)));
        log.add(new Entry(e1, null, new LeaderChangeMessage().setVersion((short) 0).setLeaderId(3000)
            .setVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(3000)))
            .setGrantingVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(3000)))));
        // Features (metadata.version first, as bootstrap writes it).
        log.add(new Entry(e1, l.apply(new ApiMessage[] {
            feature("metadata.version", MV.featureLevel()),
            feature("eligible.leader.replicas.version", 1),
            feature("group.version", 1),
            feature("transaction.version", 2),
            feature("streams.version", 1),
        }), null));
        // Controllers; one re-registers with a new incarnation, one unregisters.
        log.add(new Entry(e1, l.apply(new ApiMessage[] {
            controller(3000, 1, 9093), controller(3001, 2, 9093), controller(3002, 3, 9093),
        }), null));
        log.add(new Entry(e1, l.apply(new ApiMessage[] {
            controller(3001, 4, 19093), new UnregisterControllerRecord().setControllerId(3002),
            new NoOpRecord(),
        }), null));
        // Brokers.
        log.add(new Entry(e1, l.apply(new ApiMessage[] {
            broker(1, 100, "rack-a", List.of(dir(1, 1), dir(1, 2)), null),
            broker(2, 101, "rack-b", List.of(dir(2, 1), dir(2, 2)), List.of(dir(2, 2))),
            broker(3, 102, null, List.of(dir(3, 1)), null),
            broker(4, 103, "rack-a", List.of(dir(4, 1), dir(4, 2), dir(4, 3)), null),
            broker(5, 104, "rack-c", List.of(dir(5, 1)), null),
        }), null));
        log.add(new Entry(e1, l.apply(new ApiMessage[] {
            new UnfenceBrokerRecord().setId(1).setEpoch(100),
            new BrokerRegistrationChangeRecord().setBrokerId(2).setBrokerEpoch(101).setFenced((byte) -1),
            new UnfenceBrokerRecord().setId(3).setEpoch(102),
            new BrokerRegistrationChangeRecord().setBrokerId(4).setBrokerEpoch(103).setFenced((byte) -1),
            new UnfenceBrokerRecord().setId(5).setEpoch(104),
        }), null));
        // A new leader (epoch 2).
        log.add(new Entry(e2, null, new LeaderChangeMessage().setVersion((short) 0).setLeaderId(3001)
            .setVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(3000),
                new LeaderChangeMessage.Voter().setVoterId(3001)))
            .setGrantingVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(3001)))));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new FenceBrokerRecord().setId(3).setEpoch(102),
            new BrokerRegistrationChangeRecord().setBrokerId(4).setBrokerEpoch(103)
                .setInControlledShutdown((byte) 1),
            new BrokerRegistrationChangeRecord().setBrokerId(2).setBrokerEpoch(101)
                .setLogDirs(List.of(dir(2, 1), dir(2, 2), dir(2, 3))).setCordonedLogDirs(List.of(dir(2, 3))),
            new UnregisterBrokerRecord().setBrokerId(5).setBrokerEpoch(104),
            // broker 1 restarts: a new registration (fenced), then unfenced
            broker(1, 110, "rack-a", List.of(dir(1, 1), dir(1, 2)), List.of()),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new UnfenceBrokerRecord().setId(1).setEpoch(110),
            new ProducerIdsRecord().setBrokerId(1).setBrokerEpoch(100).setNextProducerId(1000),
        }), null));
        // Committed transaction creating topics foo and bar over three batches.
        Uuid foo = uuid(7001);
        Uuid bar = uuid(7002);
        Uuid baz = uuid(7003);
        PartitionRecord foo1 = partition(foo, 1, new int[] {2, 3, 4}, new int[] {2}, 2)
            .setEligibleLeaderReplicas(ints(3)).setLastKnownElr(ints(4));
        PartitionRecord foo2 = partition(foo, 2, new int[] {1, 2, 3, 4}, new int[] {2, 3, 4}, 3)
            .setRemovingReplicas(ints(4)).setAddingReplicas(ints(1));
        foo2.directories().set(0, new Uuid(0L, 0L)); // DirectoryId.UNASSIGNED
        foo2.directories().set(3, new Uuid(0L, 1L)); // DirectoryId.LOST
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new BeginTransactionRecord().setName("create foo and bar"),
            new TopicRecord().setName("foo").setTopicId(foo),
            partition(foo, 0, new int[] {1, 2, 3}, new int[] {1, 2, 3}, 1),
            foo1,
            foo2,
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new TopicRecord().setName("bar").setTopicId(bar),
            partition(bar, 0, new int[] {1, 2}, new int[] {1}, 1).setLeaderRecoveryState((byte) 1)
                .setLeaderEpoch(5).setPartitionEpoch(7),
            partition(bar, 1, new int[] {2, 3, 4}, new int[] {}, -1)
                .setEligibleLeaderReplicas(ints(2, 3)).setLastKnownElr(ints(4)),
            config(ConfigResource.Type.TOPIC, "bar", "cleanup.policy", "compact"),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            config(ConfigResource.Type.TOPIC, "bar", "min.insync.replicas", "2"),
            new EndTransactionRecord(),
        }), null));
        // Partition changes.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new PartitionChangeRecord().setTopicId(foo).setPartitionId(0).setIsr(ints(1, 2)).setLeader(2),
            new PartitionChangeRecord().setTopicId(foo).setPartitionId(1).setEligibleLeaderReplicas(ints())
                .setLastKnownElr(ints(3, 4)),
            new PartitionChangeRecord().setTopicId(foo).setPartitionId(2).setReplicas(ints(1, 2, 3))
                .setRemovingReplicas(ints()).setAddingReplicas(ints()).setIsr(ints(1, 2, 3))
                .setDirectories(List.of(dir(1, 2), dir(2, 1), dir(3, 1))),
            new PartitionChangeRecord().setTopicId(bar).setPartitionId(0).setLeaderRecoveryState((byte) 0)
                .setIsr(ints(1, 2)),
            new PartitionChangeRecord().setTopicId(bar).setPartitionId(1)
                .setDirectories(List.of(dir(2, 2), dir(3, 1), dir(4, 3))),
            new PartitionChangeRecord().setTopicId(foo).setPartitionId(0).setLeader(-1).setIsr(ints(1))
                .setEligibleLeaderReplicas(ints(2)),
        }), null));
        // A topic whose ELR is cleared.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new TopicRecord().setName("baz").setTopicId(baz),
            partition(baz, 0, new int[] {1, 2, 4}, new int[] {1}, 1).setEligibleLeaderReplicas(ints(2))
                .setLastKnownElr(ints(4)),
            partition(baz, 1, new int[] {2, 4}, new int[] {2, 4}, 4),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {new ClearElrRecord().setTopicName("baz")}), null));
        // A topic left mid-recovery and mid-reassignment, with unassigned and
        // lost directories.
        Uuid qux = uuid(7006);
        PartitionRecord qux1 = partition(qux, 1, new int[] {1, 2, 3, 4}, new int[] {1, 2, 4}, 4)
            .setRemovingReplicas(ints(1)).setAddingReplicas(ints(3)).setLeaderEpoch(3).setPartitionEpoch(4);
        qux1.directories().set(2, new Uuid(0L, 0L)); // DirectoryId.UNASSIGNED
        qux1.directories().set(3, new Uuid(0L, 1L)); // DirectoryId.LOST
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new TopicRecord().setName("qux").setTopicId(qux),
            partition(qux, 0, new int[] {4}, new int[] {4}, 4).setLeaderRecoveryState((byte) 1),
            qux1,
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new PartitionChangeRecord().setTopicId(qux).setPartitionId(1).setIsr(ints(1, 2, 3, 4))
                .setLastKnownElr(ints(2)),
        }), null));
        // A topic created, configured and removed; then its name reused.
        Uuid gone = uuid(7004);
        Uuid gone2 = uuid(7005);
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new TopicRecord().setName("gone").setTopicId(gone),
            partition(gone, 0, new int[] {1}, new int[] {1}, 1),
            config(ConfigResource.Type.TOPIC, "gone", "retention.ms", "1000"),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {new RemoveTopicRecord().setTopicId(gone)}), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new TopicRecord().setName("gone").setTopicId(gone2),
            partition(gone2, 0, new int[] {2, 4}, new int[] {2, 4}, 2),
        }), null));
        // Configs: cluster default, per broker (one deleted), topic, client metrics, group.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            config(ConfigResource.Type.BROKER, "", "min.insync.replicas", "2"),
            config(ConfigResource.Type.BROKER, "", "log.retention.ms", "604800000"),
            config(ConfigResource.Type.BROKER, "1", "log.cleaner.threads", "2"),
            config(ConfigResource.Type.BROKER, "1", "num.io.threads", "16"),
            config(ConfigResource.Type.TOPIC, "foo", "retention.ms", "86400000"),
            config(ConfigResource.Type.TOPIC, "foo", "segment.bytes", "1048576"),
            config(ConfigResource.Type.CLIENT_METRICS, "metrics1", "metrics", "org.apache.kafka.producer."),
            config(ConfigResource.Type.CLIENT_METRICS, "metrics1", "interval.ms", "60000"),
            config(ConfigResource.Type.GROUP, "grp1", "consumer.session.timeout.ms", "50000"),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            config(ConfigResource.Type.BROKER, "1", "num.io.threads", null),
            config(ConfigResource.Type.TOPIC, "foo", "segment.bytes", null),
            config(ConfigResource.Type.BROKER, "", "log.retention.ms", "259200000"),
        }), null));
        // Client quotas.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            quota(new String[][] {{"user", "alice"}}, "producer_byte_rate", 1024.0, false),
            quota(new String[][] {{"user", "alice"}}, "consumer_byte_rate", 4096.0, false),
            quota(new String[][] {{"user", "alice"}, {"client-id", "app-1"}}, "consumer_byte_rate", 2048.5, false),
            quota(new String[][] {{"user", null}}, "request_percentage", 50.0, false),
            quota(new String[][] {{"client-id", null}}, "producer_byte_rate", 100.0, false),
            quota(new String[][] {{"ip", "10.0.0.1"}}, "connection_creation_rate", 10.0, false),
            quota(new String[][] {{"ip", null}}, "connection_creation_rate", 5.0, false),
            quota(new String[][] {{"user", "carol"}}, "producer_byte_rate", 1.0, false),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            quota(new String[][] {{"user", "alice"}}, "producer_byte_rate", 0.0, true),
            quota(new String[][] {{"user", "carol"}}, "producer_byte_rate", 0.0, true),
        }), null));
        // The aborted transaction: nothing of it may reach the image.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new BeginTransactionRecord().setName("aborted"),
            new TopicRecord().setName("aborted-topic").setTopicId(uuid(7999)),
            partition(uuid(7999), 0, new int[] {1}, new int[] {1}, 1),
            config(ConfigResource.Type.BROKER, "", "min.insync.replicas", "3"),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new ProducerIdsRecord().setBrokerId(2).setBrokerEpoch(101).setNextProducerId(999_000),
            quota(new String[][] {{"user", "mallory"}}, "producer_byte_rate", 1.0, false),
            new RemoveTopicRecord().setTopicId(foo),
            new AbortTransactionRecord().setReason("test abort"),
        }), null));
        // ACLs (one removed), SCRAM (one updated, one removed), producer ids.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            acl(9001, ResourceType.TOPIC, "foo", PatternType.LITERAL, "User:alice", "*",
                AclOperation.READ, AclPermissionType.ALLOW),
            acl(9002, ResourceType.GROUP, "grp", PatternType.PREFIXED, "User:bob", "10.0.0.0/8",
                AclOperation.ALL, AclPermissionType.DENY),
            acl(9003, ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:admin", "192.168.1.5",
                AclOperation.ALTER_CONFIGS, AclPermissionType.ALLOW),
            acl(9004, ResourceType.TRANSACTIONAL_ID, "tx-", PatternType.PREFIXED, "User:carol", "*",
                AclOperation.WRITE, AclPermissionType.ALLOW),
            acl(9005, ResourceType.TOPIC, "*", PatternType.LITERAL, "User:dave", "*",
                AclOperation.DESCRIBE, AclPermissionType.ALLOW),
            scram("alice", 1, 1, 4096),
            scram("alice", 2, 2, 8192),
            scram("bob", 1, 3, 4096),
            scram("carol", 2, 4, 10000),
            new ProducerIdsRecord().setBrokerId(2).setBrokerEpoch(101).setNextProducerId(2000),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            new RemoveAccessControlEntryRecord().setId(uuid(9004)),
            scram("alice", 1, 5, 4096),
            new RemoveUserScramCredentialRecord().setName("bob").setMechanism((byte) 1),
        }), null));
        // Delegation tokens (one renewed, one removed); a feature switched off.
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            token("token-1", "User:alice", List.of("User:bob", "User:carol"), BASE_TIME + 86_400_000L),
            token("token-2", "User:bob", List.of(), BASE_TIME + 3_600_000L),
            token("token-3", "User:carol", List.of("User:alice"), BASE_TIME + 7_200_000L),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {
            token("token-1", "User:alice", List.of("User:bob", "User:carol"), BASE_TIME + 2 * 86_400_000L),
            new RemoveDelegationTokenRecord().setTokenId("token-2"),
            feature("streams.version", 0),
            new NoOpRecord(),
        }), null));
        log.add(new Entry(e2, l.apply(new ApiMessage[] {new NoOpRecord()}), null));
        return log;
    }

    // --------------------------------------------------------------- generate

    static byte[] frame(ApiMessageAndVersion amv) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = MetadataRecordSerde.INSTANCE.recordSize(amv, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        MetadataRecordSerde.INSTANCE.write(amv, cache, new ByteBufferAccessor(buf));
        return buf.array();
    }

    static MemoryRecords batch(long baseOffset, Entry e, long timestamp) {
        if (e.control() instanceof KRaftVersionRecord k) {
            return MemoryRecords.withKRaftVersionRecord(baseOffset, timestamp, e.epoch(), ByteBuffer.allocate(256), k);
        }
        if (e.control() instanceof LeaderChangeMessage m) {
            return MemoryRecords.withLeaderChangeMessage(baseOffset, timestamp, e.epoch(), ByteBuffer.allocate(256), m);
        }
        SimpleRecord[] rs = new SimpleRecord[e.records().size()];
        for (int i = 0; i < rs.length; i++) {
            rs[i] = new SimpleRecord(timestamp, null, frame(e.records().get(i)));
        }
        return MemoryRecords.withRecords(RecordBatch.CURRENT_MAGIC_VALUE, baseOffset, Compression.NONE,
            TimestampType.CREATE_TIME, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
            RecordBatch.NO_SEQUENCE, e.epoch(), false, rs);
    }

    static final class Fail implements org.apache.kafka.server.fault.FaultHandler {
        @Override
        public RuntimeException handleFault(String message, Throwable cause) {
            throw new IllegalStateException(message, cause);
        }
    }

    /** Reads a metadata log with Kafka's RecordsIterator into Kafka's MetadataBatchLoader. */
    static MetadataImage loadLog(Path log) throws IOException {
        MetadataImage[] image = {MetadataImage.EMPTY};
        MetadataBatchLoader loader = new MetadataBatchLoader(new LogContext(), Time.SYSTEM, new Fail(),
            (delta, newImage, manifest) -> image[0] = newImage, SupportedConfigChecker.TRUE);
        try (FileRecords records = FileRecords.open(log.toFile(), false);
             RecordsIterator<ApiMessageAndVersion> it = new RecordsIterator<>(records, MetadataRecordSerde.INSTANCE,
                 BufferSupplier.create(), MAX_BATCH_BYTES, true, new LogContext())) {
            while (it.hasNext()) {
                Batch<ApiMessageAndVersion> b = it.next();
                LeaderAndEpoch leader = new LeaderAndEpoch(OptionalInt.empty(), b.epoch());
                loader.loadBatch(b, leader);
                loader.maybeFlushBatches(leader, true);
            }
        }
        return image[0];
    }

    static void generate(Path dir) throws Exception {
        Files.createDirectories(dir);
        List<Entry> history = history();
        // (b) the log.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long offset = 0;
        int epoch = 0;
        long timestamp = BASE_TIME;
        long lastOffset = -1;
        for (Entry e : history) {
            MemoryRecords mr = batch(offset, e, timestamp);
            ByteBuffer buf = mr.buffer();
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            out.write(bytes);
            int n = e.records() == null ? 1 : e.records().size();
            offset += n;
            lastOffset = offset - 1;
            epoch = e.epoch();
            timestamp += 1000;
        }
        long lastTimestamp = timestamp - 1000;
        Path logPath = dir.resolve(LOG);
        Files.write(logPath, out.toByteArray());

        // Kafka reads the log back: the image the controller would have.
        MetadataImage image = loadLog(logPath);
        if (image.provenance().lastContainedOffset() != lastOffset) {
            throw new IllegalStateException("the loaded image ends at " + image.provenance() + ", not " + lastOffset);
        }
        // Cross-check: the same history without the transaction markers and
        // the aborted records, one MetadataDelta per batch.
        MetadataImage directImage = MetadataImage.EMPTY;
        boolean inAborted = false;
        for (Entry e : history) {
            if (e.records() == null) {
                continue;
            }
            MetadataDelta direct = new MetadataDelta.Builder().setImage(directImage).build();
            for (ApiMessageAndVersion amv : e.records()) {
                ApiMessage m = amv.message();
                if (m instanceof BeginTransactionRecord b) {
                    inAborted = "aborted".equals(b.name());
                } else if (m instanceof EndTransactionRecord || m instanceof AbortTransactionRecord) {
                    inAborted = false;
                } else if (!inAborted) {
                    direct.replay(m);
                }
            }
            directImage = direct.apply(image.provenance());
        }
        requireEqual("Kafka's batch loader vs a direct replay", directImage, image);
        if (image.topics().getTopic("aborted-topic") != null || image.topics().getTopic("foo") == null) {
            throw new IllegalStateException("the aborted transaction leaked into the image");
        }

        // (a) the snapshot, written by Kafka's snapshot writer.
        OffsetAndEpoch id = new OffsetAndEpoch(lastOffset + 1, epoch);
        Path tmp = Files.createTempDirectory("image-interop");
        FileRawSnapshotWriter raw = FileRawSnapshotWriter.create(tmp, id);
        RecordsSnapshotWriter<ApiMessageAndVersion> writer = new RecordsSnapshotWriter.Builder()
            .setLastContainedLogTimestamp(lastTimestamp)
            .setTime(new FixedTime(lastTimestamp + 500))
            .setMaxBatchSizeBytes(SNAPSHOT_BATCH_BYTES)
            .setRawSnapshotWriter(raw)
            .setKraftVersion(KRaftVersion.KRAFT_VERSION_1)
            .build(MetadataRecordSerde.INSTANCE);
        image.write(new RaftSnapshotWriter(writer, SNAPSHOT_BATCH_RECORDS), new ImageWriterOptions.Builder(image).build());
        Path written = org.apache.kafka.snapshot.Snapshots.snapshotPath(tmp, id);
        Files.move(written, dir.resolve(SNAPSHOT), StandardCopyOption.REPLACE_EXISTING);
        // Kafka makes snapshots read-only; the copy here is test data.
        Files.setPosixFilePermissions(dir.resolve(SNAPSHOT), PosixFilePermissions.fromString("rw-r--r--"));
        Files.deleteIfExists(tmp);

        // Kafka reads its own snapshot back.
        MetadataImage reloaded = loadSnapshot(dir.resolve(SNAPSHOT), id).image;
        requireEqual("Kafka's snapshot re-loaded vs the image", image, reloaded);

        // (c) the snapshot id and the log's end.
        Properties info = new Properties();
        info.setProperty("snapshot.end.offset", Long.toString(id.offset()));
        info.setProperty("snapshot.epoch", Integer.toString(id.epoch()));
        info.setProperty("last.contained.log.timestamp", Long.toString(lastTimestamp));
        info.setProperty("log.last.offset", Long.toString(lastOffset));
        info.setProperty("metadata.version", MV.version());
        StringBuilder sb = new StringBuilder("# written by tests/interop/image-interop.sh generate (Kafka 4.4.0)\n");
        for (String k : new TreeMap<>(Map.copyOf(toMap(info))).keySet()) {
            sb.append(k).append('=').append(info.getProperty(k)).append('\n');
        }
        Files.writeString(dir.resolve(INFO), sb.toString(), StandardCharsets.UTF_8);

        RecordListWriter list = new RecordListWriter();
        image.write(list, new ImageWriterOptions.Builder(image).build());
        System.out.printf("image-interop: wrote %s (%d records in %d batches, offsets 0..%d) and %s (%d records, id %s)%n",
            LOG, countLogRecords(history), history.size(), lastOffset, SNAPSHOT, list.records().size(), id);
    }

    static Map<String, String> toMap(Properties p) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : p.stringPropertyNames()) {
            m.put(k, p.getProperty(k));
        }
        return m;
    }

    static int countLogRecords(List<Entry> history) {
        int n = 0;
        for (Entry e : history) {
            n += e.records() == null ? 1 : e.records().size();
        }
        return n;
    }

    // ---------------------------------------------------------------- compare

    record Loaded(MetadataImage image, List<ApiMessageAndVersion> records) {
    }

    static OffsetAndEpoch readId(Path dir) throws IOException {
        Properties info = new Properties();
        try (var in = Files.newInputStream(dir.resolve(INFO))) {
            info.load(in);
        }
        return new OffsetAndEpoch(Long.parseLong(info.getProperty("snapshot.end.offset")),
            Integer.parseInt(info.getProperty("snapshot.epoch")));
    }

    /** Loads a snapshot file with Kafka's snapshot reader, as MetadataLoader does. */
    static Loaded loadSnapshot(Path file, OffsetAndEpoch id) throws IOException {
        Path tmp = Files.createTempDirectory("image-interop-read");
        Path named = org.apache.kafka.snapshot.Snapshots.snapshotPath(tmp, id);
        Files.copy(file, named);
        List<ApiMessageAndVersion> records = new ArrayList<>();
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        long timestamp;
        try (FileRawSnapshotReader raw = FileRawSnapshotReader.open(tmp, id);
             RecordsSnapshotReader<ApiMessageAndVersion> reader = RecordsSnapshotReader.of(raw,
                 MetadataRecordSerde.INSTANCE, BufferSupplier.create(), MAX_BATCH_BYTES, true, new LogContext())) {
            timestamp = reader.lastContainedLogTimestamp();
            while (reader.hasNext()) {
                Batch<ApiMessageAndVersion> b = reader.next();
                for (ApiMessageAndVersion amv : b.records()) {
                    records.add(amv);
                    delta.replay(amv.message());
                }
            }
        } finally {
            Files.deleteIfExists(named);
            Files.deleteIfExists(tmp);
        }
        delta.finishSnapshot();
        MetadataImage image = delta.apply(new MetadataProvenance(id.offset() - 1, id.epoch(), timestamp, true));
        return new Loaded(image, records);
    }

    static void requireEqual(String what, MetadataImage expected, MetadataImage actual) {
        List<String> diffs = diff(expected, actual);
        if (!diffs.isEmpty()) {
            throw new IllegalStateException(what + " differ:\n" + String.join("\n", diffs));
        }
    }

    /** Differences between two images, sub-image by sub-image (provenance ignored). */
    static List<String> diff(MetadataImage k, MetadataImage o) {
        List<String> out = new ArrayList<>();
        sub(out, "features", k.features(), o.features());
        if (!Objects.equals(k.cluster(), o.cluster())) {
            keyed(out, "cluster.brokers", k.cluster().brokers(), o.cluster().brokers());
            keyed(out, "cluster.controllers", k.cluster().controllers(), o.cluster().controllers());
            if (out.isEmpty()) {
                sub(out, "cluster", k.cluster(), o.cluster());
            }
        }
        if (!Objects.equals(k.topics(), o.topics())) {
            int before = out.size();
            // Topic by topic, partition by partition.
            for (var e : k.topics().topicsById().entrySet()) {
                var ot = o.topics().topicsById().get(e.getKey());
                var kt = e.getValue();
                if (ot == null) {
                    out.add("  topics[" + kt.name() + " " + e.getKey() + "] missing from ours; Kafka's: " + kt);
                } else if (!kt.equals(ot)) {
                    if (!kt.name().equals(ot.name())) {
                        out.add("  topics[" + e.getKey() + "] name: Kafka's " + kt.name() + ", ours " + ot.name());
                    }
                    keyed(out, "topics[" + kt.name() + "].partitions", kt.partitions(), ot.partitions());
                }
            }
            for (var e : o.topics().topicsById().entrySet()) {
                if (!k.topics().topicsById().containsKey(e.getKey())) {
                    out.add("  topics[" + e.getValue().name() + " " + e.getKey() + "] only in ours: " + e.getValue());
                }
            }
            if (out.size() == before) {
                keyed(out, "topics.byName", k.topics().topicsByName(), o.topics().topicsByName());
            }
            if (out.size() == before) {
                sub(out, "topics", k.topics(), o.topics());
            }
        }
        if (!Objects.equals(k.configs(), o.configs())) {
            int before = out.size();
            keyed(out, "configs", k.configs().resourceData(), o.configs().resourceData());
            if (out.size() == before) {
                sub(out, "configs", k.configs(), o.configs());
            }
        }
        if (!Objects.equals(k.clientQuotas(), o.clientQuotas())) {
            int before = out.size();
            keyed(out, "clientQuotas", k.clientQuotas().entities(), o.clientQuotas().entities());
            if (out.size() == before) {
                sub(out, "clientQuotas", k.clientQuotas(), o.clientQuotas());
            }
        }
        sub(out, "producerIds", k.producerIds(), o.producerIds());
        if (!Objects.equals(k.acls(), o.acls())) {
            int before = out.size();
            keyed(out, "acls", k.acls().acls(), o.acls().acls());
            if (out.size() == before) {
                sub(out, "acls", k.acls(), o.acls());
            }
        }
        if (!Objects.equals(k.scram(), o.scram())) {
            int before = out.size();
            keyed(out, "scram", k.scram().mechanisms(), o.scram().mechanisms());
            if (out.size() == before) {
                sub(out, "scram", k.scram(), o.scram());
            }
        }
        if (!Objects.equals(k.delegationTokens(), o.delegationTokens())) {
            int before = out.size();
            keyed(out, "delegationTokens", k.delegationTokens().tokens(), o.delegationTokens().tokens());
            if (out.size() == before) {
                sub(out, "delegationTokens", k.delegationTokens(), o.delegationTokens());
            }
        }
        return out;
    }

    static void sub(List<String> out, String name, Object k, Object o) {
        if (!Objects.equals(k, o)) {
            out.add("  " + name + " differs:\n    Kafka's: " + k + "\n    ours:    " + o);
        }
    }

    static <K, V> void keyed(List<String> out, String name, Map<K, V> k, Map<K, V> o) {
        for (Map.Entry<K, V> e : k.entrySet()) {
            V ov = o.get(e.getKey());
            if (ov == null) {
                out.add("  " + name + "[" + e.getKey() + "] missing from ours; Kafka's: " + e.getValue());
            } else if (!Objects.equals(e.getValue(), ov)) {
                out.add("  " + name + "[" + e.getKey() + "] differs:\n    Kafka's: " + e.getValue()
                    + "\n    ours:    " + ov);
            }
        }
        for (Map.Entry<K, V> e : o.entrySet()) {
            if (!k.containsKey(e.getKey())) {
                out.add("  " + name + "[" + e.getKey() + "] only in ours: " + e.getValue());
            }
        }
    }

    /**
     * The record with its map-like repeated fields (listeners and supported
     * features of broker and controller registrations, which Kafka keeps in
     * maps and writes in Java {@code HashMap} order) sorted by name. Two
     * records with equal canonical forms describe the same registration.
     */
    static ApiMessageAndVersion canonical(ApiMessageAndVersion amv) {
        if (amv.message() instanceof RegisterBrokerRecord r) {
            RegisterBrokerRecord c = r.duplicate();
            List<RegisterBrokerRecord.BrokerEndpoint> eps = new ArrayList<>();
            r.endPoints().forEach(e -> eps.add(e.duplicate()));
            eps.sort(Comparator.comparing(RegisterBrokerRecord.BrokerEndpoint::name));
            RegisterBrokerRecord.BrokerEndpointCollection epc = new RegisterBrokerRecord.BrokerEndpointCollection();
            eps.forEach(epc::add);
            List<RegisterBrokerRecord.BrokerFeature> fs = new ArrayList<>();
            r.features().forEach(f -> fs.add(f.duplicate()));
            fs.sort(Comparator.comparing(RegisterBrokerRecord.BrokerFeature::name));
            RegisterBrokerRecord.BrokerFeatureCollection fc = new RegisterBrokerRecord.BrokerFeatureCollection();
            fs.forEach(fc::add);
            return new ApiMessageAndVersion(c.setEndPoints(epc).setFeatures(fc), amv.version());
        }
        if (amv.message() instanceof RegisterControllerRecord r) {
            RegisterControllerRecord c = r.duplicate();
            List<RegisterControllerRecord.ControllerEndpoint> eps = new ArrayList<>();
            r.endPoints().forEach(e -> eps.add(e.duplicate()));
            eps.sort(Comparator.comparing(RegisterControllerRecord.ControllerEndpoint::name));
            RegisterControllerRecord.ControllerEndpointCollection epc =
                new RegisterControllerRecord.ControllerEndpointCollection();
            eps.forEach(epc::add);
            List<RegisterControllerRecord.ControllerFeature> fs = new ArrayList<>();
            r.features().forEach(f -> fs.add(f.duplicate()));
            fs.sort(Comparator.comparing(RegisterControllerRecord.ControllerFeature::name));
            RegisterControllerRecord.ControllerFeatureCollection fc =
                new RegisterControllerRecord.ControllerFeatureCollection();
            fs.forEach(fc::add);
            return new ApiMessageAndVersion(c.setEndPoints(epc).setFeatures(fc), amv.version());
        }
        return amv;
    }

    static String key(ApiMessageAndVersion amv) {
        return String.format("type %2d v%d %s", amv.message().apiKey(), amv.version(), amv.message());
    }

    /** The multiset of records, as (type, version, record) strings with counts. */
    static Map<String, Integer> multiset(List<ApiMessageAndVersion> records) {
        Map<String, Integer> out = new TreeMap<>();
        for (ApiMessageAndVersion amv : records) {
            out.merge(key(amv), 1, Integer::sum);
        }
        return out;
    }

    static boolean compare(Path dir) throws Exception {
        OffsetAndEpoch id = readId(dir);
        Loaded kafka = loadSnapshot(dir.resolve(SNAPSHOT), id);
        List<ApiMessageAndVersion> kafkaCanonical = kafka.records().stream().map(ImageInterop::canonical).toList();
        Map<String, Integer> kafkaSet = multiset(kafkaCanonical);
        // The records must also be equal as messages (not only as strings).
        Map<ApiMessageAndVersion, Integer> kafkaMessages = new java.util.HashMap<>();
        kafkaCanonical.forEach(r -> kafkaMessages.merge(r, 1, Integer::sum));
        Map<ApiMessageAndVersion, Integer> kafkaExact = new java.util.HashMap<>();
        kafka.records().forEach(r -> kafkaExact.merge(r, 1, Integer::sum));
        boolean ok = true;
        for (String name : OURS) {
            Path file = dir.resolve(name);
            if (!Files.exists(file)) {
                System.out.println("image-interop: MISSING " + file);
                ok = false;
                continue;
            }
            Loaded ours;
            try {
                ours = loadSnapshot(file, id);
            } catch (Exception e) {
                System.out.println("image-interop: FAIL " + name + ": Kafka cannot load it: " + e);
                e.printStackTrace(System.out);
                ok = false;
                continue;
            }
            List<String> problems = new ArrayList<>(diff(kafka.image(), ours.image()));
            if (problems.isEmpty() && !kafka.image().equals(ours.image())) {
                problems.add("  MetadataImage.equals is false:\n    Kafka's: " + kafka.image() + "\n    ours:    "
                    + ours.image());
            }
            List<ApiMessageAndVersion> oursCanonical = ours.records().stream().map(ImageInterop::canonical).toList();
            Map<ApiMessageAndVersion, Integer> ourMessages = new java.util.HashMap<>();
            oursCanonical.forEach(r -> ourMessages.merge(r, 1, Integer::sum));
            if (!ourMessages.equals(kafkaMessages)) {
                Map<String, Integer> oursSet = multiset(oursCanonical);
                for (Map.Entry<String, Integer> e : kafkaSet.entrySet()) {
                    int n = oursSet.getOrDefault(e.getKey(), 0);
                    if (n != e.getValue()) {
                        problems.add("  record x" + e.getValue() + " in Kafka's snapshot, x" + n + " in ours: "
                            + e.getKey());
                    }
                }
                for (Map.Entry<String, Integer> e : oursSet.entrySet()) {
                    if (!kafkaSet.containsKey(e.getKey())) {
                        problems.add("  record x" + e.getValue() + " only in ours: " + e.getKey());
                    }
                }
                if (oursSet.equals(kafkaSet)) {
                    problems.add("  the records differ as messages but not as strings (tagged fields?)");
                }
            }
            // Records equal only once listeners/features are sorted by name.
            int reordered = 0;
            Map<ApiMessageAndVersion, Integer> exactLeft = new java.util.HashMap<>(kafkaExact);
            for (ApiMessageAndVersion r : ours.records()) {
                Integer n = exactLeft.get(r);
                if (n == null || n == 0) {
                    reordered++;
                } else {
                    exactLeft.put(r, n - 1);
                }
            }
            if (ours.records().isEmpty()
                || !(ours.records().get(0).message() instanceof FeatureLevelRecord f
                    && f.name().equals(MetadataVersion.FEATURE_NAME))) {
                problems.add("  the first record is not the metadata.version FeatureLevelRecord");
            }
            List<String> kafkaOrder = kafka.records().stream().map(ImageInterop::key).toList();
            List<String> ourOrder = ours.records().stream().map(ImageInterop::key).toList();
            String order = kafkaOrder.equals(ourOrder) ? "same order as Kafka's" : "order differs from Kafka's";
            if (problems.isEmpty()) {
                System.out.printf("image-interop: OK   %s: %d records (%s), Kafka's image of it equals Kafka's "
                    + "original; %d record(s) list listeners/features in another order than Kafka's HashMap order%n",
                    name, ours.records().size(), order, reordered);
            } else {
                ok = false;
                System.out.printf("image-interop: FAIL %s: %d records (Kafka's %d):%n%s%n", name,
                    ours.records().size(), kafka.records().size(), String.join("\n", problems));
            }
        }
        // Per-type counts, for the record.
        Map<String, Integer> perType = new TreeMap<>(Comparator.naturalOrder());
        kafka.records().forEach(r -> perType.merge(r.message().getClass().getSimpleName() + " v" + r.version(), 1,
            Integer::sum));
        System.out.println("image-interop: Kafka's snapshot: " + perType);
        return ok;
    }
}
