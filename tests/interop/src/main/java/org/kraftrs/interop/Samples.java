package org.kraftrs.interop;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeDelegationTokenRequestData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.ExpireDelegationTokenRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AssignReplicasToDirsRequestData;
import org.apache.kafka.common.message.AssignReplicasToDirsResponseData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.BeginQuorumEpochRequestData;
import org.apache.kafka.common.message.BeginQuorumEpochResponseData;
import org.apache.kafka.common.message.ControllerRegistrationRequestData;
import org.apache.kafka.common.message.DefaultPrincipalData;
import org.apache.kafka.common.message.EnvelopeRequestData;
import org.apache.kafka.common.message.EnvelopeResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;
import org.apache.kafka.common.message.ControllerRegistrationResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.EndQuorumEpochRequestData;
import org.apache.kafka.common.message.EndQuorumEpochResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SnapshotFooterRecord;
import org.apache.kafka.common.message.SnapshotHeaderRecord;
import org.apache.kafka.common.message.UnregisterControllerRequestData;
import org.apache.kafka.common.message.UnregisterControllerResponseData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.message.UpdateRaftVoterRequestData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.message.VotersRecord;
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
import org.apache.kafka.common.metadata.ZkMigrationStateRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Realistic KRaft sample values ("typical" case) and a few hand-picked extra cases. */
final class Samples {
    private Samples() {
    }

    static final String CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg";
    static final String TOPIC = "__cluster_metadata";
    static final Uuid TOPIC_ID = Uuid.METADATA_TOPIC_ID; // AAAAAAAAAAAAAAAAAAAAAQ
    static final String LISTENER = "CONTROLLER";
    static final String HOST = "localhost";
    static final int PORT = 9093;
    static final Uuid DIR1 = Uuid.fromString("J8aAPcfLQt2bqs1JT_rMgQ");
    static final Uuid DIR2 = new Uuid(0x5b3a6f0c2e1d4a8bL, 0x9c7e2f1a0b3c4d5eL);
    static final Uuid DIR3 = new Uuid(0x3c4d5e6f708192a3L, 0xb4c5d6e7f8091a2bL);
    static final Uuid DIR4 = new Uuid(0x6d7e8f90a1b2c3d4L, 0xe5f60718293a4b5cL);
    static final Uuid INCARNATION = new Uuid(0x1a2b3c4d5e6f7081L, 0x92a3b4c5d6e7f809L);
    static final long TIMESTAMP = 1700000000000L;
    static final int EPOCH = 5;
    // metadata records: broker 4 hosting topic "orders" (replicas 4, 5, 6)
    static final String USER_TOPIC = "orders";
    static final Uuid USER_TOPIC_ID = new Uuid(0x4f1e2d3c4b5a6978L, 0x8796a5b4c3d2e1f0L);
    static final Uuid BROKER_INCARNATION = new Uuid(0x2b3c4d5e6f708192L, 0xa3b4c5d6e7f8091aL);
    static final Uuid ACL_ID = new Uuid(0x0a1b2c3d4e5f6071L, 0x8293a4b5c6d7e8f9L);
    static final long BROKER_EPOCH = 1234L;
    static final String TOKEN_ID = "dG9rZW4tYWxpY2UtMDAwMQ";
    /** A delegation token's HMAC: HmacSHA512, 64 bytes. */
    static final byte[] TOKEN_HMAC = pattern(64, 0x3d);
    // topic admin requests: "orders" (above), "payments" and "audit-log"
    static final String PAYMENTS = "payments";
    static final Uuid PAYMENTS_ID = new Uuid(0x7a6b5c4d3e2f1001L, 0x9e8d7c6b5a493827L);
    static final String AUDIT_LOG = "audit-log";
    static final Uuid AUDIT_LOG_ID = new Uuid(0x1029384756afbecdL, 0x5f4e3d2c1b0a9988L);

    // ------------------------------------------------------------------ record batches

    /** A KRaft metadata record value framed by Kafka's MetadataRecordSerde. */
    static byte[] framedMetadataRecord(org.apache.kafka.common.protocol.ApiMessage rec, short version) {
        ApiMessageAndVersion amv = new ApiMessageAndVersion(rec, version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = MetadataRecordSerde.INSTANCE.recordSize(amv, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        MetadataRecordSerde.INSTANCE.write(amv, cache, new ByteBufferAccessor(buf));
        return buf.array();
    }

    /**
     * Records for FetchResponse: a KRaft control batch (KRAFT_VERSION record, offset 0,
     * epoch 0, timestamp 1700000000000) followed by a v2 data
     * batch at offset 1, epoch 5 with two records: a metadata record (null key,
     * FeatureLevelRecord metadata.version=33, no headers) and a record with key, value
     * and two headers (one with a null value).
     */
    static MemoryRecords fetchRecords() {
        byte[] control = controlBatch();
        SimpleRecord r1 = new SimpleRecord(TIMESTAMP, (byte[]) null,
            framedMetadataRecord(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel((short) 33), (short) 0));
        SimpleRecord r2 = new SimpleRecord(TIMESTAMP + 1, "key-1".getBytes(StandardCharsets.UTF_8),
            "value-1".getBytes(StandardCharsets.UTF_8),
            new Header[]{new RecordHeader("h1", "x".getBytes(StandardCharsets.UTF_8)), new RecordHeader("h2", (byte[]) null)});
        MemoryRecords data = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 1L, Compression.NONE,
            TimestampType.CREATE_TIME, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
            RecordBatch.NO_SEQUENCE, EPOCH, false, r1, r2);
        ByteBuffer d = data.buffer().duplicate();
        byte[] db = new byte[d.remaining()];
        d.get(db);
        ByteBuffer all = ByteBuffer.allocate(control.length + db.length);
        all.put(control).put(db).flip();
        return MemoryRecords.readableRecords(all);
    }

    /** One control batch holding a KRaftVersionRecord (kraft.version 1). */
    static byte[] controlBatch() {
        MemoryRecords mr = MemoryRecords.withKRaftVersionRecord(0L, TIMESTAMP, 0, ByteBuffer.allocate(256),
            new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1));
        ByteBuffer b = mr.buffer().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * A FetchSnapshot chunk: bytes 20..79 of a snapshot's first batch (a SNAPSHOT_HEADER
     * control batch followed by a VotersRecord batch) -- deliberately not batch-aligned.
     */
    static MemoryRecords snapshotChunk() {
        MemoryRecords h = MemoryRecords.withSnapshotHeaderRecord(0L, TIMESTAMP, 4, ByteBuffer.allocate(256),
            new SnapshotHeaderRecord().setVersion((short) 0).setLastContainedLogTimestamp(TIMESTAMP));
        MemoryRecords vr = MemoryRecords.withVotersRecord(1L, TIMESTAMP, 4, ByteBuffer.allocate(512), votersRecord());
        ByteBuffer a = h.buffer().duplicate();
        ByteBuffer b = vr.buffer().duplicate();
        ByteBuffer all = ByteBuffer.allocate(a.remaining() + b.remaining());
        all.put(a).put(b).flip();
        byte[] bytes = new byte[all.remaining()];
        all.get(bytes);
        return MemoryRecords.readableRecords(ByteBuffer.wrap(Arrays.copyOfRange(bytes, 20, 80)));
    }

    // ------------------------------------------------------------------ typical messages

    static VotersRecord votersRecord() {
        VotersRecord r = new VotersRecord().setVersion((short) 0);
        List<VotersRecord.Voter> voters = new ArrayList<>();
        Uuid[] dirs = {DIR1, DIR2, DIR3};
        for (int i = 1; i <= 3; i++) {
            VotersRecord.EndpointCollection eps = new VotersRecord.EndpointCollection();
            eps.add(new VotersRecord.Endpoint().setName(LISTENER).setHost(HOST).setPort(PORT + i - 1));
            voters.add(new VotersRecord.Voter().setVoterId(i).setVoterDirectoryId(dirs[i - 1]).setEndpoints(eps)
                .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature()
                    .setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1)));
        }
        return r.setVoters(voters);
    }

    /** The typical (realistic KRaft) instance; fields absent at v are pruned by the caller. */
    static Message typical(String name, short v) {
        switch (name) {
            case "RequestHeader":
                // header v1: e.g. a Fetch v11 from a broker; header v2: a Vote v2 between controllers
                return v < 2
                    ? new RequestHeaderData().setRequestApiKey(ApiKeys.FETCH.id).setRequestApiVersion((short) 11)
                        .setCorrelationId(7).setClientId("broker-1-fetcher-0")
                    : new RequestHeaderData().setRequestApiKey(ApiKeys.VOTE.id).setRequestApiVersion((short) 2)
                        .setCorrelationId(7).setClientId("raft-client-1");
            case "ResponseHeader":
                return new ResponseHeaderData().setCorrelationId(7);
            case "ApiVersionsRequest":
                return new ApiVersionsRequestData().setClientSoftwareName("apache-kafka-java")
                    .setClientSoftwareVersion("4.4.0").setClusterId(CLUSTER_ID).setNodeId(1);
            case "ApiVersionsResponse": {
                ApiVersionsResponseData d = new ApiVersionsResponseData().setErrorCode((short) 0)
                    .setApiKeys(ApiVersionsResponse.filterApis(ApiMessageType.ListenerType.CONTROLLER, false, false))
                    .setThrottleTimeMs(0);
                ApiVersionsResponseData.SupportedFeatureKeyCollection sf = new ApiVersionsResponseData.SupportedFeatureKeyCollection();
                sf.add(new ApiVersionsResponseData.SupportedFeatureKey().setName("kraft.version")
                    .setMinVersion((short) 0).setMaxVersion((short) 1));
                sf.add(new ApiVersionsResponseData.SupportedFeatureKey().setName("metadata.version")
                    .setMinVersion((short) 7).setMaxVersion((short) 33));
                ApiVersionsResponseData.FinalizedFeatureKeyCollection ff = new ApiVersionsResponseData.FinalizedFeatureKeyCollection();
                ff.add(new ApiVersionsResponseData.FinalizedFeatureKey().setName("metadata.version")
                    .setMaxVersionLevel((short) 33).setMinVersionLevel((short) 33));
                return d.setSupportedFeatures(sf).setFinalizedFeaturesEpoch(1234L).setFinalizedFeatures(ff)
                    .setZkMigrationReady(false);
            }
            case "FetchRequest": {
                FetchRequestData.FetchPartition p = new FetchRequestData.FetchPartition().setPartition(0)
                    .setCurrentLeaderEpoch(EPOCH).setFetchOffset(1234L).setLastFetchedEpoch(EPOCH)
                    .setLogStartOffset(-1L).setPartitionMaxBytes(0).setReplicaDirectoryId(DIR2)
                    .setHighWatermark(1200L);
                FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic(TOPIC).setTopicId(TOPIC_ID)
                    .setPartitions(new ArrayList<>(List.of(p)));
                return new FetchRequestData().setClusterId(CLUSTER_ID).setReplicaId(2)
                    .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(2).setReplicaEpoch(-1L))
                    .setMaxWaitMs(500).setMinBytes(0).setMaxBytes(1048576).setIsolationLevel((byte) 0)
                    .setSessionId(0).setSessionEpoch(-1).setTopics(new ArrayList<>(List.of(t)))
                    .setForgottenTopicsData(new ArrayList<>()).setRackId("");
            }
            case "FetchResponse": {
                FetchResponseData.PartitionData p = new FetchResponseData.PartitionData().setPartitionIndex(0)
                    .setErrorCode((short) 0).setHighWatermark(1200L).setLastStableOffset(-1L).setLogStartOffset(0L)
                    .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(EPOCH))
                    .setAbortedTransactions(new ArrayList<>()).setPreferredReadReplica(-1)
                    .setRecords(fetchRecords());
                FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(TOPIC).setTopicId(TOPIC_ID).setPartitions(new ArrayList<>(List.of(p)));
                FetchResponseData.NodeEndpointCollection eps = new FetchResponseData.NodeEndpointCollection();
                eps.add(new FetchResponseData.NodeEndpoint().setNodeId(1).setHost(HOST).setPort(PORT).setRack(null));
                return new FetchResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setSessionId(0)
                    .setResponses(new ArrayList<>(List.of(t))).setNodeEndpoints(eps);
            }
            case "VoteRequest": {
                VoteRequestData.PartitionData p = new VoteRequestData.PartitionData().setPartitionIndex(0)
                    .setReplicaEpoch(EPOCH).setReplicaId(1).setReplicaDirectoryId(DIR1).setVoterDirectoryId(DIR2)
                    .setLastOffsetEpoch(EPOCH).setLastOffset(1234L).setPreVote(true);
                return new VoteRequestData().setClusterId(CLUSTER_ID).setVoterId(2).setTopics(new ArrayList<>(List.of(
                    new VoteRequestData.TopicData().setTopicName(TOPIC).setPartitions(new ArrayList<>(List.of(p))))));
            }
            case "VoteResponse": {
                VoteResponseData.PartitionData p = new VoteResponseData.PartitionData().setPartitionIndex(0)
                    .setErrorCode((short) 0).setLeaderId(1).setLeaderEpoch(EPOCH).setVoteGranted(false);
                VoteResponseData.NodeEndpointCollection eps = new VoteResponseData.NodeEndpointCollection();
                eps.add(new VoteResponseData.NodeEndpoint().setNodeId(1).setHost(HOST).setPort(PORT));
                return new VoteResponseData().setErrorCode((short) 0).setTopics(new ArrayList<>(List.of(
                    new VoteResponseData.TopicData().setTopicName(TOPIC).setPartitions(new ArrayList<>(List.of(p))))))
                    .setNodeEndpoints(eps);
            }
            case "BeginQuorumEpochRequest": {
                BeginQuorumEpochRequestData.PartitionData p = new BeginQuorumEpochRequestData.PartitionData()
                    .setPartitionIndex(0).setVoterDirectoryId(DIR2).setLeaderId(1).setLeaderEpoch(EPOCH);
                BeginQuorumEpochRequestData.LeaderEndpointCollection eps = new BeginQuorumEpochRequestData.LeaderEndpointCollection();
                eps.add(new BeginQuorumEpochRequestData.LeaderEndpoint().setName(LISTENER).setHost(HOST).setPort(PORT));
                return new BeginQuorumEpochRequestData().setClusterId(CLUSTER_ID).setVoterId(2)
                    .setTopics(new ArrayList<>(List.of(new BeginQuorumEpochRequestData.TopicData().setTopicName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setLeaderEndpoints(eps);
            }
            case "BeginQuorumEpochResponse": {
                BeginQuorumEpochResponseData.PartitionData p = new BeginQuorumEpochResponseData.PartitionData()
                    .setPartitionIndex(0).setErrorCode((short) 0).setLeaderId(1).setLeaderEpoch(EPOCH);
                BeginQuorumEpochResponseData.NodeEndpointCollection eps = new BeginQuorumEpochResponseData.NodeEndpointCollection();
                eps.add(new BeginQuorumEpochResponseData.NodeEndpoint().setNodeId(1).setHost(HOST).setPort(PORT));
                return new BeginQuorumEpochResponseData().setErrorCode((short) 0)
                    .setTopics(new ArrayList<>(List.of(new BeginQuorumEpochResponseData.TopicData().setTopicName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setNodeEndpoints(eps);
            }
            case "EndQuorumEpochRequest": {
                EndQuorumEpochRequestData.PartitionData p = new EndQuorumEpochRequestData.PartitionData()
                    .setPartitionIndex(0).setLeaderId(1).setLeaderEpoch(EPOCH)
                    .setPreferredSuccessors(new ArrayList<>(List.of(2, 3)))
                    .setPreferredCandidates(new ArrayList<>(List.of(
                        new EndQuorumEpochRequestData.ReplicaInfo().setCandidateId(2).setCandidateDirectoryId(DIR2),
                        new EndQuorumEpochRequestData.ReplicaInfo().setCandidateId(3).setCandidateDirectoryId(DIR3))));
                EndQuorumEpochRequestData.LeaderEndpointCollection eps = new EndQuorumEpochRequestData.LeaderEndpointCollection();
                eps.add(new EndQuorumEpochRequestData.LeaderEndpoint().setName(LISTENER).setHost(HOST).setPort(PORT));
                return new EndQuorumEpochRequestData().setClusterId(CLUSTER_ID)
                    .setTopics(new ArrayList<>(List.of(new EndQuorumEpochRequestData.TopicData().setTopicName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setLeaderEndpoints(eps);
            }
            case "EndQuorumEpochResponse": {
                EndQuorumEpochResponseData.PartitionData p = new EndQuorumEpochResponseData.PartitionData()
                    .setPartitionIndex(0).setErrorCode((short) 0).setLeaderId(2).setLeaderEpoch(EPOCH + 1);
                EndQuorumEpochResponseData.NodeEndpointCollection eps = new EndQuorumEpochResponseData.NodeEndpointCollection();
                eps.add(new EndQuorumEpochResponseData.NodeEndpoint().setNodeId(2).setHost(HOST).setPort(PORT + 1));
                return new EndQuorumEpochResponseData().setErrorCode((short) 0)
                    .setTopics(new ArrayList<>(List.of(new EndQuorumEpochResponseData.TopicData().setTopicName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setNodeEndpoints(eps);
            }
            case "DescribeQuorumRequest":
                return new DescribeQuorumRequestData().setTopics(new ArrayList<>(List.of(
                    new DescribeQuorumRequestData.TopicData().setTopicName(TOPIC).setPartitions(new ArrayList<>(List.of(
                        new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0)))))));
            case "DescribeQuorumResponse": {
                List<DescribeQuorumResponseData.ReplicaState> voters = new ArrayList<>(List.of(
                    new DescribeQuorumResponseData.ReplicaState().setReplicaId(1).setReplicaDirectoryId(DIR1)
                        .setLogEndOffset(1234L).setLastFetchTimestamp(TIMESTAMP).setLastCaughtUpTimestamp(TIMESTAMP),
                    new DescribeQuorumResponseData.ReplicaState().setReplicaId(2).setReplicaDirectoryId(DIR2)
                        .setLogEndOffset(1230L).setLastFetchTimestamp(TIMESTAMP - 100).setLastCaughtUpTimestamp(TIMESTAMP - 100),
                    new DescribeQuorumResponseData.ReplicaState().setReplicaId(3).setReplicaDirectoryId(DIR3)
                        .setLogEndOffset(1000L).setLastFetchTimestamp(TIMESTAMP - 5000).setLastCaughtUpTimestamp(TIMESTAMP - 20000)));
                List<DescribeQuorumResponseData.ReplicaState> observers = new ArrayList<>(List.of(
                    new DescribeQuorumResponseData.ReplicaState().setReplicaId(4).setReplicaDirectoryId(DIR4)
                        .setLogEndOffset(1234L).setLastFetchTimestamp(TIMESTAMP).setLastCaughtUpTimestamp(TIMESTAMP)));
                DescribeQuorumResponseData.PartitionData p = new DescribeQuorumResponseData.PartitionData()
                    .setPartitionIndex(0).setErrorCode((short) 0).setLeaderId(1).setLeaderEpoch(EPOCH)
                    .setHighWatermark(1200L).setCurrentVoters(voters).setObservers(observers);
                DescribeQuorumResponseData.NodeCollection nodes = new DescribeQuorumResponseData.NodeCollection();
                for (int i = 1; i <= 3; i++) {
                    DescribeQuorumResponseData.ListenerCollection ls = new DescribeQuorumResponseData.ListenerCollection();
                    ls.add(new DescribeQuorumResponseData.Listener().setName(LISTENER).setHost(HOST).setPort(PORT + i - 1));
                    nodes.add(new DescribeQuorumResponseData.Node().setNodeId(i).setListeners(ls));
                }
                return new DescribeQuorumResponseData().setErrorCode((short) 0)
                    .setTopics(new ArrayList<>(List.of(new DescribeQuorumResponseData.TopicData().setTopicName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setNodes(nodes);
            }
            case "FetchSnapshotRequest": {
                FetchSnapshotRequestData.PartitionSnapshot p = new FetchSnapshotRequestData.PartitionSnapshot()
                    .setPartition(0).setCurrentLeaderEpoch(EPOCH)
                    .setSnapshotId(new FetchSnapshotRequestData.SnapshotId().setEndOffset(1000L).setEpoch(4))
                    .setPosition(8192L).setReplicaDirectoryId(DIR2);
                return new FetchSnapshotRequestData().setClusterId(CLUSTER_ID).setReplicaId(2).setMaxBytes(1048576)
                    .setTopics(new ArrayList<>(List.of(new FetchSnapshotRequestData.TopicSnapshot().setName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))));
            }
            case "FetchSnapshotResponse": {
                FetchSnapshotResponseData.PartitionSnapshot p = new FetchSnapshotResponseData.PartitionSnapshot()
                    .setIndex(0).setErrorCode((short) 0)
                    .setSnapshotId(new FetchSnapshotResponseData.SnapshotId().setEndOffset(1000L).setEpoch(4))
                    .setCurrentLeader(new FetchSnapshotResponseData.LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(EPOCH))
                    .setSize(20480L).setPosition(8192L).setUnalignedRecords(snapshotChunk());
                FetchSnapshotResponseData.NodeEndpointCollection eps = new FetchSnapshotResponseData.NodeEndpointCollection();
                eps.add(new FetchSnapshotResponseData.NodeEndpoint().setNodeId(1).setHost(HOST).setPort(PORT));
                return new FetchSnapshotResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setTopics(new ArrayList<>(List.of(new FetchSnapshotResponseData.TopicSnapshot().setName(TOPIC)
                        .setPartitions(new ArrayList<>(List.of(p))))))
                    .setNodeEndpoints(eps);
            }
            case "DescribeClusterRequest":
                return new DescribeClusterRequestData().setIncludeClusterAuthorizedOperations(false)
                    .setEndpointType((byte) 2).setIncludeFencedBrokers(false);
            case "DescribeClusterResponse": {
                DescribeClusterResponseData.DescribeClusterBrokerCollection bs = new DescribeClusterResponseData.DescribeClusterBrokerCollection();
                for (int i = 1; i <= 3; i++) {
                    bs.add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(i).setHost(HOST)
                        .setPort(PORT + i - 1).setRack(null).setIsFenced(false));
                }
                return new DescribeClusterResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null)
                    .setEndpointType((byte) 2).setClusterId(CLUSTER_ID).setControllerId(1).setBrokers(bs)
                    .setClusterAuthorizedOperations(Integer.MIN_VALUE);
            }
            case "UpdateFeaturesRequest": {
                UpdateFeaturesRequestData.FeatureUpdateKeyCollection fu = new UpdateFeaturesRequestData.FeatureUpdateKeyCollection();
                fu.add(new UpdateFeaturesRequestData.FeatureUpdateKey().setFeature("metadata.version")
                    .setMaxVersionLevel((short) 33).setAllowDowngrade(false).setUpgradeType((byte) 1));
                fu.add(new UpdateFeaturesRequestData.FeatureUpdateKey().setFeature("kraft.version")
                    .setMaxVersionLevel((short) 1).setAllowDowngrade(false).setUpgradeType((byte) 1));
                return new UpdateFeaturesRequestData().setTimeoutMs(60000).setFeatureUpdates(fu).setValidateOnly(false);
            }
            case "UpdateFeaturesResponse": {
                UpdateFeaturesResponseData.UpdatableFeatureResultCollection rs = new UpdateFeaturesResponseData.UpdatableFeatureResultCollection();
                rs.add(new UpdateFeaturesResponseData.UpdatableFeatureResult().setFeature("metadata.version")
                    .setErrorCode((short) 0).setErrorMessage(null));
                rs.add(new UpdateFeaturesResponseData.UpdatableFeatureResult().setFeature("kraft.version")
                    .setErrorCode((short) 0).setErrorMessage(null));
                return new UpdateFeaturesResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null)
                    .setResults(rs);
            }
            case "ControllerRegistrationRequest": {
                ControllerRegistrationRequestData.ListenerCollection ls = new ControllerRegistrationRequestData.ListenerCollection();
                ls.add(new ControllerRegistrationRequestData.Listener().setName(LISTENER).setHost(HOST).setPort(PORT)
                    .setSecurityProtocol((short) 0));
                ControllerRegistrationRequestData.FeatureCollection fs = new ControllerRegistrationRequestData.FeatureCollection();
                for (Map.Entry<String, short[]> e : features().entrySet()) {
                    fs.add(new ControllerRegistrationRequestData.Feature().setName(e.getKey())
                        .setMinSupportedVersion(e.getValue()[0]).setMaxSupportedVersion(e.getValue()[1]));
                }
                return new ControllerRegistrationRequestData().setControllerId(1).setIncarnationId(INCARNATION)
                    .setZkMigrationReady(false).setListeners(ls).setFeatures(fs);
            }
            case "ControllerRegistrationResponse":
                return new ControllerRegistrationResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage("");
            case "AddRaftVoterRequest": {
                AddRaftVoterRequestData.ListenerCollection ls = new AddRaftVoterRequestData.ListenerCollection();
                ls.add(new AddRaftVoterRequestData.Listener().setName(LISTENER).setHost(HOST).setPort(PORT + 3));
                return new AddRaftVoterRequestData().setClusterId(CLUSTER_ID).setTimeoutMs(30000).setVoterId(4)
                    .setVoterDirectoryId(DIR4).setListeners(ls).setAckWhenCommitted(true);
            }
            case "AddRaftVoterResponse":
                return new AddRaftVoterResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null);
            case "RemoveRaftVoterRequest":
                return new RemoveRaftVoterRequestData().setClusterId(CLUSTER_ID).setVoterId(3).setVoterDirectoryId(DIR3);
            case "RemoveRaftVoterResponse":
                return new RemoveRaftVoterResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null);
            case "UpdateRaftVoterRequest": {
                UpdateRaftVoterRequestData.ListenerCollection ls = new UpdateRaftVoterRequestData.ListenerCollection();
                ls.add(new UpdateRaftVoterRequestData.Listener().setName(LISTENER).setHost(HOST).setPort(PORT + 1));
                return new UpdateRaftVoterRequestData().setClusterId(CLUSTER_ID).setCurrentLeaderEpoch(EPOCH).setVoterId(2)
                    .setVoterDirectoryId(DIR2).setListeners(ls).setKRaftVersionFeature(
                        new UpdateRaftVoterRequestData.KRaftVersionFeature().setMinSupportedVersion((short) 0)
                            .setMaxSupportedVersion((short) 1));
            }
            case "UpdateRaftVoterResponse":
                return new UpdateRaftVoterResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setCurrentLeader(new UpdateRaftVoterResponseData.CurrentLeader().setLeaderId(1).setLeaderEpoch(EPOCH)
                        .setHost(HOST).setPort(PORT));
            case "UnregisterControllerRequest":
                return new UnregisterControllerRequestData().setControllerId(5);
            case "UnregisterControllerResponse":
                return new UnregisterControllerResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage("");
            case "BrokerRegistrationRequest": { // broker 4 as a 4.4 broker registers: PLAINTEXT, two log dirs
                BrokerRegistrationRequestData.ListenerCollection ls = new BrokerRegistrationRequestData.ListenerCollection();
                ls.add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost(HOST).setPort(9092)
                    .setSecurityProtocol((short) 0));
                BrokerRegistrationRequestData.FeatureCollection fs = new BrokerRegistrationRequestData.FeatureCollection();
                for (Map.Entry<String, short[]> e : features().entrySet()) {
                    fs.add(new BrokerRegistrationRequestData.Feature().setName(e.getKey())
                        .setMinSupportedVersion(e.getValue()[0]).setMaxSupportedVersion(e.getValue()[1]));
                }
                return new BrokerRegistrationRequestData().setBrokerId(4).setClusterId(CLUSTER_ID)
                    .setIncarnationId(BROKER_INCARNATION).setListeners(ls).setFeatures(fs).setRack(null)
                    .setIsMigratingZkBroker(false).setLogDirs(new ArrayList<>(List.of(DIR1, DIR2)))
                    .setPreviousBrokerEpoch(41L);
            }
            case "BrokerRegistrationResponse":
                return new BrokerRegistrationResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setBrokerEpoch(57L);
            case "BrokerHeartbeatRequest":
                return new BrokerHeartbeatRequestData().setBrokerId(4).setBrokerEpoch(57L).setCurrentMetadataOffset(123L)
                    .setWantFence(false).setWantShutDown(false).setOfflineLogDirs(new ArrayList<>(List.of(DIR2)))
                    .setCordonedLogDirs(new ArrayList<>());
            case "BrokerHeartbeatResponse":
                return new BrokerHeartbeatResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setIsCaughtUp(true)
                    .setIsFenced(false).setShouldShutDown(false);
            case "UnregisterBrokerRequest":
                return new UnregisterBrokerRequestData().setBrokerId(4);
            case "UnregisterBrokerResponse":
                return new UnregisterBrokerResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null);
            case "EnvelopeRequest": // a forwarded request's bytes, User:alice from 10.0.0.7
                return new EnvelopeRequestData().setRequestData(java.nio.ByteBuffer.wrap(pattern(24, 3)))
                    .setRequestPrincipal(pattern(12, 5)).setClientHostAddress(new byte[] {10, 0, 0, 7});
            case "EnvelopeResponse":
                return new EnvelopeResponseData().setResponseData(java.nio.ByteBuffer.wrap(pattern(16, 9)))
                    .setErrorCode((short) 0);
            case "DefaultPrincipalData":
                return new DefaultPrincipalData().setType("User").setName("alice").setTokenAuthenticated(false);
            case "VotersRecord":
                return votersRecord();
            case "KRaftVersionRecord":
                return new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1);
            case "LeaderChangeMessage":
                return new LeaderChangeMessage().setVersion((short) 0).setLeaderId(1)
                    .setVoters(new ArrayList<>(List.of(
                        new LeaderChangeMessage.Voter().setVoterId(1).setVoterDirectoryId(DIR1),
                        new LeaderChangeMessage.Voter().setVoterId(2).setVoterDirectoryId(DIR2),
                        new LeaderChangeMessage.Voter().setVoterId(3).setVoterDirectoryId(DIR3))))
                    .setGrantingVoters(new ArrayList<>(List.of(
                        new LeaderChangeMessage.Voter().setVoterId(1).setVoterDirectoryId(DIR1),
                        new LeaderChangeMessage.Voter().setVoterId(2).setVoterDirectoryId(DIR2))));
            case "SnapshotHeaderRecord":
                return new SnapshotHeaderRecord().setVersion((short) 0).setLastContainedLogTimestamp(TIMESTAMP);
            case "SnapshotFooterRecord":
                return new SnapshotFooterRecord().setVersion((short) 0);
            case "RegisterControllerRecord": {
                RegisterControllerRecord.ControllerEndpointCollection eps = new RegisterControllerRecord.ControllerEndpointCollection();
                eps.add(new RegisterControllerRecord.ControllerEndpoint().setName(LISTENER).setHost(HOST).setPort(PORT)
                    .setSecurityProtocol((short) 0));
                RegisterControllerRecord.ControllerFeatureCollection fs = new RegisterControllerRecord.ControllerFeatureCollection();
                for (Map.Entry<String, short[]> e : features().entrySet()) {
                    fs.add(new RegisterControllerRecord.ControllerFeature().setName(e.getKey())
                        .setMinSupportedVersion(e.getValue()[0]).setMaxSupportedVersion(e.getValue()[1]));
                }
                return new RegisterControllerRecord().setControllerId(1).setIncarnationId(INCARNATION)
                    .setZkMigrationReady(false).setEndPoints(eps).setFeatures(fs);
            }
            case "UnregisterControllerRecord":
                return new UnregisterControllerRecord().setControllerId(5);
            case "FeatureLevelRecord":
                return new FeatureLevelRecord().setName("metadata.version").setFeatureLevel((short) 33);
            case "RegisterBrokerRecord": { // broker 4 with a PLAINTEXT and an SSL listener, two log dirs
                RegisterBrokerRecord.BrokerEndpointCollection eps = new RegisterBrokerRecord.BrokerEndpointCollection();
                eps.add(new RegisterBrokerRecord.BrokerEndpoint().setName("PLAINTEXT").setHost(HOST).setPort(9092)
                    .setSecurityProtocol((short) 0));
                eps.add(new RegisterBrokerRecord.BrokerEndpoint().setName("SSL").setHost(HOST).setPort(9192)
                    .setSecurityProtocol((short) 1));
                RegisterBrokerRecord.BrokerFeatureCollection fs = new RegisterBrokerRecord.BrokerFeatureCollection();
                for (Map.Entry<String, short[]> e : features().entrySet()) {
                    fs.add(new RegisterBrokerRecord.BrokerFeature().setName(e.getKey())
                        .setMinSupportedVersion(e.getValue()[0]).setMaxSupportedVersion(e.getValue()[1]));
                }
                return new RegisterBrokerRecord().setBrokerId(4).setIsMigratingZkBroker(false)
                    .setIncarnationId(BROKER_INCARNATION).setBrokerEpoch(BROKER_EPOCH).setEndPoints(eps).setFeatures(fs)
                    .setRack("rack-a").setFenced(true).setInControlledShutdown(false)
                    .setLogDirs(new ArrayList<>(List.of(DIR1, DIR2)));
            }
            case "UnregisterBrokerRecord":
                return new UnregisterBrokerRecord().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH);
            case "TopicRecord":
                return new TopicRecord().setName(USER_TOPIC).setTopicId(USER_TOPIC_ID);
            case "PartitionRecord": // replicas 4, 5, 6; 6 fell out of the ISR and is an eligible leader
                return new PartitionRecord().setPartitionId(0).setTopicId(USER_TOPIC_ID)
                    .setReplicas(new ArrayList<>(List.of(4, 5, 6))).setIsr(new ArrayList<>(List.of(4, 5)))
                    .setRemovingReplicas(new ArrayList<>()).setAddingReplicas(new ArrayList<>())
                    .setLeader(4).setLeaderRecoveryState((byte) 0).setLeaderEpoch(EPOCH).setPartitionEpoch(7)
                    .setDirectories(new ArrayList<>(List.of(DIR1, DIR2, DIR3)))
                    .setEligibleLeaderReplicas(new ArrayList<>(List.of(6))).setLastKnownElr(new ArrayList<>());
            case "ConfigRecord": // a topic config (resource type 2 = TOPIC)
                return new ConfigRecord().setResourceType((byte) 2).setResourceName(USER_TOPIC)
                    .setName("retention.ms").setValue("604800000");
            case "PartitionChangeRecord": // leader moves to 5, replica 6 rejoins the ISR and leaves the ELR
                return new PartitionChangeRecord().setPartitionId(0).setTopicId(USER_TOPIC_ID)
                    .setIsr(new ArrayList<>(List.of(5, 4, 6))).setLeader(5)
                    .setEligibleLeaderReplicas(new ArrayList<>()).setLastKnownElr(new ArrayList<>());
            case "FenceBrokerRecord":
                return new FenceBrokerRecord().setId(4).setEpoch(BROKER_EPOCH);
            case "UnfenceBrokerRecord":
                return new UnfenceBrokerRecord().setId(4).setEpoch(BROKER_EPOCH);
            case "RemoveTopicRecord":
                return new RemoveTopicRecord().setTopicId(USER_TOPIC_ID);
            case "DelegationTokenRecord": // issued now, renewable for 7 days, renewed daily
                return new DelegationTokenRecord().setOwner("User:alice").setRequester("User:alice")
                    .setRenewers(new ArrayList<>(List.of("User:bob", "User:admin"))).setIssueTimestamp(TIMESTAMP)
                    .setMaxTimestamp(TIMESTAMP + 604800000L).setExpirationTimestamp(TIMESTAMP + 86400000L)
                    .setTokenId(TOKEN_ID);
            case "UserScramCredentialRecord": // SCRAM-SHA-256 (1): 16-byte salt, 32-byte keys
                return new UserScramCredentialRecord().setName("alice").setMechanism((byte) 1)
                    .setSalt(pattern(16, 0x11)).setStoredKey(pattern(32, 0x5a)).setServerKey(pattern(32, 0xc3))
                    .setIterations(4096);
            case "ClientQuotaRecord": // producer byte rate of user alice with the default client id
                return new ClientQuotaRecord().setEntity(new ArrayList<>(List.of(
                        new ClientQuotaRecord.EntityData().setEntityType("user").setEntityName("alice"),
                        new ClientQuotaRecord.EntityData().setEntityType("client-id").setEntityName(null))))
                    .setKey("producer_byte_rate").setValue(1048576.0).setRemove(false);
            case "ProducerIdsRecord": // broker 4 got the block 1000..1999
                return new ProducerIdsRecord().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH).setNextProducerId(2000L);
            case "BrokerRegistrationChangeRecord": // broker 4 unfenced (-1) with its log dirs
                return new BrokerRegistrationChangeRecord().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH)
                    .setFenced((byte) -1).setInControlledShutdown((byte) 0)
                    .setLogDirs(new ArrayList<>(List.of(DIR1, DIR2)));
            case "AccessControlEntryRecord": // allow User:alice to read topic "orders" from any host
                return new AccessControlEntryRecord().setId(ACL_ID).setResourceType((byte) 2)
                    .setResourceName(USER_TOPIC).setPatternType((byte) 3).setPrincipal("User:alice").setHost("*")
                    .setOperation((byte) 3).setPermissionType((byte) 3);
            case "RemoveAccessControlEntryRecord":
                return new RemoveAccessControlEntryRecord().setId(ACL_ID);
            case "NoOpRecord":
                return new NoOpRecord();
            case "ZkMigrationStateRecord": // NONE
                return new ZkMigrationStateRecord().setZkMigrationState((byte) 0);
            case "RemoveUserScramCredentialRecord":
                return new RemoveUserScramCredentialRecord().setName("alice").setMechanism((byte) 1);
            case "BeginTransactionRecord":
                return new BeginTransactionRecord().setName("Bootstrap records");
            case "EndTransactionRecord":
                return new EndTransactionRecord();
            case "AbortTransactionRecord":
                return new AbortTransactionRecord().setReason("Controller failover");
            case "RemoveDelegationTokenRecord":
                return new RemoveDelegationTokenRecord().setTokenId(TOKEN_ID);
            case "ClearElrRecord":
                return new ClearElrRecord().setTopicName(USER_TOPIC);
            case "CreateTopicsRequest": { // orders (3x3, two overrides), payments (manual placement), audit-log
                CreateTopicsRequestData.CreatableTopicConfigCollection oc = new CreateTopicsRequestData.CreatableTopicConfigCollection();
                oc.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms").setValue("604800000"));
                oc.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("min.insync.replicas").setValue("2"));
                CreateTopicsRequestData.CreatableReplicaAssignmentCollection pa = new CreateTopicsRequestData.CreatableReplicaAssignmentCollection();
                pa.add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(0)
                    .setBrokerIds(new ArrayList<>(List.of(4, 5, 6))));
                pa.add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(1)
                    .setBrokerIds(new ArrayList<>(List.of(5, 6, 4))));
                CreateTopicsRequestData.CreatableTopicConfigCollection ac = new CreateTopicsRequestData.CreatableTopicConfigCollection();
                ac.add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy").setValue("compact"));
                CreateTopicsRequestData.CreatableTopicCollection ts = new CreateTopicsRequestData.CreatableTopicCollection();
                ts.add(new CreateTopicsRequestData.CreatableTopic().setName(USER_TOPIC).setNumPartitions(3)
                    .setReplicationFactor((short) 3).setConfigs(oc));
                ts.add(new CreateTopicsRequestData.CreatableTopic().setName(PAYMENTS).setNumPartitions(-1)
                    .setReplicationFactor((short) -1).setAssignments(pa));
                ts.add(new CreateTopicsRequestData.CreatableTopic().setName(AUDIT_LOG).setNumPartitions(1)
                    .setReplicationFactor((short) -1).setConfigs(ac));
                return new CreateTopicsRequestData().setTopics(ts).setTimeoutMs(30000).setValidateOnly(false);
            }
            case "CreateTopicsResponse": { // orders created; payments created, configs not visible; audit-log exists
                List<CreateTopicsResponseData.CreatableTopicConfigs> cs = new ArrayList<>(List.of(
                    new CreateTopicsResponseData.CreatableTopicConfigs().setName("cleanup.policy").setValue("delete")
                        .setReadOnly(false).setConfigSource((byte) 5).setIsSensitive(false),
                    new CreateTopicsResponseData.CreatableTopicConfigs().setName("min.insync.replicas").setValue("2")
                        .setReadOnly(false).setConfigSource((byte) 1).setIsSensitive(false),
                    new CreateTopicsResponseData.CreatableTopicConfigs().setName("retention.ms").setValue("604800000")
                        .setReadOnly(false).setConfigSource((byte) 1).setIsSensitive(false)));
                CreateTopicsResponseData.CreatableTopicResultCollection rs = new CreateTopicsResponseData.CreatableTopicResultCollection();
                rs.add(new CreateTopicsResponseData.CreatableTopicResult().setName(USER_TOPIC).setTopicId(USER_TOPIC_ID)
                    .setErrorCode((short) 0).setErrorMessage(null).setNumPartitions(3).setReplicationFactor((short) 3)
                    .setConfigs(cs));
                rs.add(new CreateTopicsResponseData.CreatableTopicResult().setName(PAYMENTS).setTopicId(PAYMENTS_ID)
                    .setErrorCode((short) 0).setErrorMessage(null)
                    .setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setNumPartitions(-1).setReplicationFactor((short) -1).setConfigs(null));
                rs.add(new CreateTopicsResponseData.CreatableTopicResult().setName(AUDIT_LOG)
                    .setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code()).setErrorMessage("Topic 'audit-log' already exists.")
                    .setNumPartitions(-1).setReplicationFactor((short) -1));
                return new CreateTopicsResponseData().setThrottleTimeMs(0).setTopics(rs);
            }
            case "DeleteTopicsRequest": // by name (v1-5: TopicNames; v6+: one by name, one by id)
                return new DeleteTopicsRequestData().setTopics(new ArrayList<>(List.of(
                        new DeleteTopicsRequestData.DeleteTopicState().setName(USER_TOPIC).setTopicId(Uuid.ZERO_UUID),
                        new DeleteTopicsRequestData.DeleteTopicState().setName(null).setTopicId(PAYMENTS_ID))))
                    .setTopicNames(new ArrayList<>(List.of(USER_TOPIC, PAYMENTS))).setTimeoutMs(30000);
            case "DeleteTopicsResponse": {
                DeleteTopicsResponseData.DeletableTopicResultCollection rs = new DeleteTopicsResponseData.DeletableTopicResultCollection();
                rs.add(new DeleteTopicsResponseData.DeletableTopicResult().setName(USER_TOPIC).setTopicId(USER_TOPIC_ID)
                    .setErrorCode((short) 0).setErrorMessage(null));
                rs.add(new DeleteTopicsResponseData.DeletableTopicResult().setName(PAYMENTS).setTopicId(PAYMENTS_ID)
                    .setErrorCode((short) 0).setErrorMessage(null));
                rs.add(new DeleteTopicsResponseData.DeletableTopicResult().setName(AUDIT_LOG).setTopicId(AUDIT_LOG_ID)
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
                return new DeleteTopicsResponseData().setThrottleTimeMs(0).setResponses(rs);
            }
            case "CreatePartitionsRequest": { // orders to 6 (placed by the controller), payments 2 -> 4 (placed by hand)
                CreatePartitionsRequestData.CreatePartitionsTopicCollection ts = new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
                ts.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(USER_TOPIC).setCount(6)
                    .setAssignments(null));
                ts.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(PAYMENTS).setCount(4)
                    .setAssignments(new ArrayList<>(List.of(
                        new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(new ArrayList<>(List.of(6, 4, 5))),
                        new CreatePartitionsRequestData.CreatePartitionsAssignment().setBrokerIds(new ArrayList<>(List.of(4, 6, 5)))))));
                return new CreatePartitionsRequestData().setTopics(ts).setTimeoutMs(30000).setValidateOnly(false);
            }
            case "CreatePartitionsResponse":
                return new CreatePartitionsResponseData().setThrottleTimeMs(0).setResults(new ArrayList<>(List.of(
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(USER_TOPIC)
                        .setErrorCode((short) 0).setErrorMessage(null),
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(PAYMENTS)
                        .setErrorCode((short) 0).setErrorMessage(null),
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(AUDIT_LOG)
                        .setErrorCode(Errors.INVALID_PARTITIONS.code())
                        .setErrorMessage("The topic audit-log currently has 8 partition(s); 6 would not be an increase."))));
            case "ElectLeadersRequest": { // preferred-leader election of three orders and one payments partition
                ElectLeadersRequestData.TopicPartitionsCollection tps = new ElectLeadersRequestData.TopicPartitionsCollection();
                tps.add(new ElectLeadersRequestData.TopicPartitions().setTopic(USER_TOPIC)
                    .setPartitions(new ArrayList<>(List.of(0, 1, 2))));
                tps.add(new ElectLeadersRequestData.TopicPartitions().setTopic(PAYMENTS)
                    .setPartitions(new ArrayList<>(List.of(1))));
                return new ElectLeadersRequestData().setElectionType((byte) 0).setTopicPartitions(tps).setTimeoutMs(60000);
            }
            case "ElectLeadersResponse":
                return new ElectLeadersResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setReplicaElectionResults(new ArrayList<>(List.of(
                        new ElectLeadersResponseData.ReplicaElectionResult().setTopic(USER_TOPIC)
                            .setPartitionResult(new ArrayList<>(List.of(
                                new ElectLeadersResponseData.PartitionResult().setPartitionId(0)
                                    .setErrorCode((short) 0).setErrorMessage(null),
                                new ElectLeadersResponseData.PartitionResult().setPartitionId(1)
                                    .setErrorCode(Errors.ELECTION_NOT_NEEDED.code())
                                    .setErrorMessage(Errors.ELECTION_NOT_NEEDED.message()),
                                new ElectLeadersResponseData.PartitionResult().setPartitionId(2)
                                    .setErrorCode(Errors.PREFERRED_LEADER_NOT_AVAILABLE.code())
                                    .setErrorMessage("Failed to elect leader for partition orders-2 under strategy PREFERRED")))),
                        new ElectLeadersResponseData.ReplicaElectionResult().setTopic(PAYMENTS)
                            .setPartitionResult(new ArrayList<>(List.of(
                                new ElectLeadersResponseData.PartitionResult().setPartitionId(1)
                                    .setErrorCode((short) 0).setErrorMessage(null)))))));
            case "DescribeConfigsRequest": // kafka-configs --describe of a controller (its id 1), its loggers and topic orders
                return new DescribeConfigsRequestData().setIncludeSynonyms(true).setIncludeDocumentation(false)
                    .setResources(new ArrayList<>(List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4)
                            .setResourceName("1").setConfigurationKeys(null),
                        new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 8)
                            .setResourceName("1").setConfigurationKeys(null),
                        new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                            .setResourceName(USER_TOPIC).setConfigurationKeys(new ArrayList<>(List.of("retention.ms", "cleanup.policy"))))));
            case "DescribeConfigsResponse": // the answer: two configs with synonyms, the root logger, an unknown topic
                return new DescribeConfigsResponseData().setThrottleTimeMs(0).setResults(new ArrayList<>(List.of(
                    new DescribeConfigsResponseData.DescribeConfigsResult().setErrorCode((short) 0).setErrorMessage(null)
                        .setResourceType((byte) 4).setResourceName("1")
                        .setConfigs(new ArrayList<>(List.of(
                            new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("log.retention.ms")
                                .setValue("259200000").setReadOnly(false).setConfigSource((byte) 3).setIsSensitive(false)
                                .setSynonyms(new ArrayList<>(List.of(
                                    new DescribeConfigsResponseData.DescribeConfigsSynonym().setName("log.retention.ms")
                                        .setValue("259200000").setSource((byte) 3),
                                    new DescribeConfigsResponseData.DescribeConfigsSynonym().setName("log.retention.hours")
                                        .setValue("168").setSource((byte) 5))))
                                .setConfigType((byte) 5).setDocumentation("How long a log segment is kept."),
                            new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("ssl.keystore.password")
                                .setValue(null).setReadOnly(false).setConfigSource((byte) 4).setIsSensitive(true)
                                .setSynonyms(new ArrayList<>(List.of(
                                    new DescribeConfigsResponseData.DescribeConfigsSynonym().setName("ssl.keystore.password")
                                        .setValue(null).setSource((byte) 4))))
                                .setConfigType((byte) 9).setDocumentation(null)))),
                    new DescribeConfigsResponseData.DescribeConfigsResult().setErrorCode((short) 0).setErrorMessage(null)
                        .setResourceType((byte) 8).setResourceName("1")
                        .setConfigs(new ArrayList<>(List.of(
                            new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("root")
                                .setValue("INFO").setReadOnly(false).setConfigSource((byte) 6).setIsSensitive(false)
                                .setSynonyms(new ArrayList<>()).setConfigType((byte) 0).setDocumentation(null)))),
                    new DescribeConfigsResponseData.DescribeConfigsResult()
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage(null)
                        .setResourceType((byte) 2).setResourceName(USER_TOPIC).setConfigs(new ArrayList<>()))));
            case "AlterConfigsRequest": { // librdkafka's legacy alter: topic orders's whole set, the cluster-wide broker default
                AlterConfigsRequestData.AlterableConfigCollection tc = new AlterConfigsRequestData.AlterableConfigCollection();
                tc.add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("86400000"));
                tc.add(new AlterConfigsRequestData.AlterableConfig().setName("cleanup.policy").setValue("compact,delete"));
                AlterConfigsRequestData.AlterableConfigCollection dc = new AlterConfigsRequestData.AlterableConfigCollection();
                dc.add(new AlterConfigsRequestData.AlterableConfig().setName("log.retention.ms").setValue("259200000"));
                AlterConfigsRequestData.AlterConfigsResourceCollection rs = new AlterConfigsRequestData.AlterConfigsResourceCollection();
                rs.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(USER_TOPIC).setConfigs(tc));
                rs.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                    .setResourceName("").setConfigs(dc));
                return new AlterConfigsRequestData().setResources(rs).setValidateOnly(false);
            }
            case "AlterConfigsResponse": // the topic's set replaced; a broker logger refused as Kafka's controller refuses it
                return new AlterConfigsResponseData().setThrottleTimeMs(0).setResponses(new ArrayList<>(List.of(
                    new AlterConfigsResponseData.AlterConfigsResourceResponse().setErrorCode((short) 0)
                        .setErrorMessage(null).setResourceType((byte) 2).setResourceName(USER_TOPIC),
                    new AlterConfigsResponseData.AlterConfigsResourceResponse()
                        .setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Unexpected resource type BROKER_LOGGER.")
                        .setResourceType((byte) 8).setResourceName("1"))));
            case "IncrementalAlterConfigsRequest": { // a topic, one broker and the cluster-wide broker default
                IncrementalAlterConfigsRequestData.AlterableConfigCollection tc = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
                tc.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                    .setConfigOperation((byte) 0).setValue("86400000"));
                tc.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("min.insync.replicas")
                    .setConfigOperation((byte) 1).setValue(null));
                tc.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("leader.replication.throttled.replicas")
                    .setConfigOperation((byte) 2).setValue("0:4,1:5"));
                IncrementalAlterConfigsRequestData.AlterableConfigCollection bc = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
                bc.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("log.cleaner.threads")
                    .setConfigOperation((byte) 0).setValue("2"));
                IncrementalAlterConfigsRequestData.AlterableConfigCollection dc = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
                dc.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("log.retention.ms")
                    .setConfigOperation((byte) 0).setValue("259200000"));
                IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection rs = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
                rs.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(USER_TOPIC).setConfigs(tc));
                rs.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                    .setResourceName("4").setConfigs(bc));
                rs.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                    .setResourceName("").setConfigs(dc));
                return new IncrementalAlterConfigsRequestData().setResources(rs).setValidateOnly(false);
            }
            case "IncrementalAlterConfigsResponse":
                return new IncrementalAlterConfigsResponseData().setThrottleTimeMs(0).setResponses(new ArrayList<>(List.of(
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setErrorCode((short) 0)
                        .setErrorMessage(null).setResourceType((byte) 2).setResourceName(USER_TOPIC),
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                        .setErrorCode(Errors.INVALID_CONFIG.code())
                        .setErrorMessage("Invalid value 0 for configuration log.cleaner.threads: Value must be at least 1")
                        .setResourceType((byte) 4).setResourceName("4"),
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setErrorCode((short) 0)
                        .setErrorMessage(null).setResourceType((byte) 4).setResourceName(""))));
            case "AlterPartitionRequest": // leader 4 shrinks orders-0 to {4, 5} and expands orders-1 and payments-0
                return new AlterPartitionRequestData().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH)
                    .setTopics(new ArrayList<>(List.of(
                        new AlterPartitionRequestData.TopicData().setTopicId(USER_TOPIC_ID).setPartitions(new ArrayList<>(List.of(
                            new AlterPartitionRequestData.PartitionData().setPartitionIndex(0).setLeaderEpoch(EPOCH)
                                .setNewIsr(new ArrayList<>(List.of(4, 5)))
                                .setNewIsrWithEpochs(new ArrayList<>(List.of(
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH),
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(5).setBrokerEpoch(1301L))))
                                .setLeaderRecoveryState((byte) 0).setPartitionEpoch(7),
                            new AlterPartitionRequestData.PartitionData().setPartitionIndex(1).setLeaderEpoch(3)
                                .setNewIsr(new ArrayList<>(List.of(4, 5, 6)))
                                .setNewIsrWithEpochs(new ArrayList<>(List.of(
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH),
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(5).setBrokerEpoch(1301L),
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(6).setBrokerEpoch(1322L))))
                                .setLeaderRecoveryState((byte) 0).setPartitionEpoch(12)))),
                        new AlterPartitionRequestData.TopicData().setTopicId(PAYMENTS_ID).setPartitions(new ArrayList<>(List.of(
                            new AlterPartitionRequestData.PartitionData().setPartitionIndex(0).setLeaderEpoch(2)
                                .setNewIsr(new ArrayList<>(List.of(4, 6)))
                                .setNewIsrWithEpochs(new ArrayList<>(List.of(
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH),
                                    new AlterPartitionRequestData.BrokerState().setBrokerId(6).setBrokerEpoch(1322L))))
                                .setLeaderRecoveryState((byte) 1).setPartitionEpoch(3)))))));
            case "AlterPartitionResponse":
                return new AlterPartitionResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setTopics(new ArrayList<>(List.of(
                        new AlterPartitionResponseData.TopicData().setTopicId(USER_TOPIC_ID).setPartitions(new ArrayList<>(List.of(
                            new AlterPartitionResponseData.PartitionData().setPartitionIndex(0).setErrorCode((short) 0)
                                .setLeaderId(4).setLeaderEpoch(EPOCH).setIsr(new ArrayList<>(List.of(4, 5)))
                                .setLeaderRecoveryState((byte) 0).setPartitionEpoch(8),
                            new AlterPartitionResponseData.PartitionData().setPartitionIndex(1)
                                .setErrorCode(Errors.INVALID_UPDATE_VERSION.code())))),
                        new AlterPartitionResponseData.TopicData().setTopicId(PAYMENTS_ID).setPartitions(new ArrayList<>(List.of(
                            new AlterPartitionResponseData.PartitionData().setPartitionIndex(0).setErrorCode((short) 0)
                                .setLeaderId(4).setLeaderEpoch(2).setIsr(new ArrayList<>(List.of(4, 6)))
                                .setLeaderRecoveryState((byte) 0).setPartitionEpoch(4)))))));
            case "AllocateProducerIdsRequest":
                return new AllocateProducerIdsRequestData().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH);
            case "AllocateProducerIdsResponse": // the block 1000..1999 (ProducerIdsRecord above)
                return new AllocateProducerIdsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setProducerIdStart(1000L).setProducerIdLen(1000);
            case "AlterPartitionReassignmentsRequest": // move orders-0 from 4, 5, 6 to 5, 6, 7; cancel orders-1; shrink payments-1
                return new AlterPartitionReassignmentsRequestData().setTimeoutMs(60000)
                    .setAllowReplicationFactorChange(false)
                    .setTopics(new ArrayList<>(List.of(
                        new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName(USER_TOPIC)
                            .setPartitions(new ArrayList<>(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(0)
                                    .setReplicas(new ArrayList<>(List.of(5, 6, 7))),
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(1)
                                    .setReplicas(null)))),
                        new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName(PAYMENTS)
                            .setPartitions(new ArrayList<>(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition().setPartitionIndex(1)
                                    .setReplicas(new ArrayList<>(List.of(6, 5)))))))));
            case "AlterPartitionReassignmentsResponse": // the answer to the request above (KIP-860 refusal of the shrink)
                return new AlterPartitionReassignmentsResponseData().setThrottleTimeMs(0)
                    .setAllowReplicationFactorChange(false).setErrorCode((short) 0).setErrorMessage(null)
                    .setResponses(new ArrayList<>(List.of(
                        new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(USER_TOPIC)
                            .setPartitions(new ArrayList<>(List.of(
                                new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse().setPartitionIndex(0)
                                    .setErrorCode((short) 0).setErrorMessage(null),
                                new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse().setPartitionIndex(1)
                                    .setErrorCode(Errors.NO_REASSIGNMENT_IN_PROGRESS.code()).setErrorMessage(null)))),
                        new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(PAYMENTS)
                            .setPartitions(new ArrayList<>(List.of(
                                new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse().setPartitionIndex(1)
                                    .setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code())
                                    .setErrorMessage("The replication factor is changed from 3 to 2")))))));
            case "ListPartitionReassignmentsRequest": // kafka-reassign-partitions --verify of three orders and one payments partition
                return new ListPartitionReassignmentsRequestData().setTimeoutMs(60000)
                    .setTopics(new ArrayList<>(List.of(
                        new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName(USER_TOPIC)
                            .setPartitionIndexes(new ArrayList<>(List.of(0, 1, 2))),
                        new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName(PAYMENTS)
                            .setPartitionIndexes(new ArrayList<>(List.of(1))))));
            case "ListPartitionReassignmentsResponse": // orders-0 moving from 4, 5, 6 to 5, 6, 7
                return new ListPartitionReassignmentsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setErrorMessage(null)
                    .setTopics(new ArrayList<>(List.of(
                        new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(USER_TOPIC)
                            .setPartitions(new ArrayList<>(List.of(
                                new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment().setPartitionIndex(0)
                                    .setReplicas(new ArrayList<>(List.of(5, 6, 7, 4)))
                                    .setAddingReplicas(new ArrayList<>(List.of(7)))
                                    .setRemovingReplicas(new ArrayList<>(List.of(4)))))))));
            case "AssignReplicasToDirsRequest": // broker 4 puts orders-0 and orders-1 in its first log dir, payments-0 and a deleted topic's partition in its second
                return new AssignReplicasToDirsRequestData().setBrokerId(4).setBrokerEpoch(BROKER_EPOCH)
                    .setDirectories(new ArrayList<>(List.of(
                        new AssignReplicasToDirsRequestData.DirectoryData().setId(DIR1)
                            .setTopics(new ArrayList<>(List.of(
                                new AssignReplicasToDirsRequestData.TopicData().setTopicId(USER_TOPIC_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsRequestData.PartitionData().setPartitionIndex(0),
                                        new AssignReplicasToDirsRequestData.PartitionData().setPartitionIndex(1))))))),
                        new AssignReplicasToDirsRequestData.DirectoryData().setId(DIR2)
                            .setTopics(new ArrayList<>(List.of(
                                new AssignReplicasToDirsRequestData.TopicData().setTopicId(PAYMENTS_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsRequestData.PartitionData().setPartitionIndex(0)))),
                                new AssignReplicasToDirsRequestData.TopicData().setTopicId(AUDIT_LOG_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsRequestData.PartitionData().setPartitionIndex(2))))))))));
            case "AssignReplicasToDirsResponse": // the answer to the request above: the deleted topic is UNKNOWN_TOPIC_ID
                return new AssignReplicasToDirsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setDirectories(new ArrayList<>(List.of(
                        new AssignReplicasToDirsResponseData.DirectoryData().setId(DIR1)
                            .setTopics(new ArrayList<>(List.of(
                                new AssignReplicasToDirsResponseData.TopicData().setTopicId(USER_TOPIC_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsResponseData.PartitionData().setPartitionIndex(0)
                                            .setErrorCode((short) 0),
                                        new AssignReplicasToDirsResponseData.PartitionData().setPartitionIndex(1)
                                            .setErrorCode((short) 0))))))),
                        new AssignReplicasToDirsResponseData.DirectoryData().setId(DIR2)
                            .setTopics(new ArrayList<>(List.of(
                                new AssignReplicasToDirsResponseData.TopicData().setTopicId(PAYMENTS_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsResponseData.PartitionData().setPartitionIndex(0)
                                            .setErrorCode((short) 0)))),
                                new AssignReplicasToDirsResponseData.TopicData().setTopicId(AUDIT_LOG_ID)
                                    .setPartitions(new ArrayList<>(List.of(
                                        new AssignReplicasToDirsResponseData.PartitionData().setPartitionIndex(2)
                                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()))))))))));
            // ---- access control (ACLs, delegation tokens, client quotas, SCRAM) and SASL
            case "DescribeAclsRequest": // kafka-acls --list --principal User:alice: every other part "any"
                return new DescribeAclsRequestData().setResourceTypeFilter((byte) 1).setResourceNameFilter(null)
                    .setPatternTypeFilter((byte) 1).setPrincipalFilter("User:alice").setHostFilter(null)
                    .setOperation((byte) 1).setPermissionType((byte) 1);
            case "DescribeAclsResponse": // alice reads topic orders (literal) and groups orders-* (prefixed)
                return new DescribeAclsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null)
                    .setResources(new ArrayList<>(List.of(
                        new DescribeAclsResponseData.DescribeAclsResource().setResourceType((byte) 2)
                            .setResourceName(USER_TOPIC).setPatternType((byte) 3).setAcls(new ArrayList<>(List.of(
                                new DescribeAclsResponseData.AclDescription().setPrincipal("User:alice").setHost("*")
                                    .setOperation((byte) 3).setPermissionType((byte) 3),
                                new DescribeAclsResponseData.AclDescription().setPrincipal("User:alice").setHost("*")
                                    .setOperation((byte) 8).setPermissionType((byte) 3)))),
                        new DescribeAclsResponseData.DescribeAclsResource().setResourceType((byte) 3)
                            .setResourceName("orders-").setPatternType((byte) 4).setAcls(new ArrayList<>(List.of(
                                new DescribeAclsResponseData.AclDescription().setPrincipal("User:alice")
                                    .setHost("10.0.0.7").setOperation((byte) 3).setPermissionType((byte) 3)))))));
            case "CreateAclsRequest": // allow alice to read topic orders (literal) and groups orders-* (prefixed)
                return new CreateAclsRequestData().setCreations(new ArrayList<>(List.of(
                    new CreateAclsRequestData.AclCreation().setResourceType((byte) 2).setResourceName(USER_TOPIC)
                        .setResourcePatternType((byte) 3).setPrincipal("User:alice").setHost("*")
                        .setOperation((byte) 3).setPermissionType((byte) 3),
                    new CreateAclsRequestData.AclCreation().setResourceType((byte) 3).setResourceName("orders-")
                        .setResourcePatternType((byte) 4).setPrincipal("User:alice").setHost("10.0.0.7")
                        .setOperation((byte) 3).setPermissionType((byte) 3))));
            case "CreateAclsResponse": // the first created, the second refused by AclControlManager
                return new CreateAclsResponseData().setThrottleTimeMs(0).setResults(new ArrayList<>(List.of(
                    new CreateAclsResponseData.AclCreationResult().setErrorCode((short) 0).setErrorMessage(null),
                    new CreateAclsResponseData.AclCreationResult().setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)"))));
            case "DeleteAclsRequest": // alice's ACLs on topic orders; every DENY ACL on any resource
                return new DeleteAclsRequestData().setFilters(new ArrayList<>(List.of(
                    new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter((byte) 2)
                        .setResourceNameFilter(USER_TOPIC).setPatternTypeFilter((byte) 3).setPrincipalFilter("User:alice")
                        .setHostFilter(null).setOperation((byte) 1).setPermissionType((byte) 1),
                    new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter((byte) 1)
                        .setResourceNameFilter(null).setPatternTypeFilter((byte) 1).setPrincipalFilter(null)
                        .setHostFilter(null).setOperation((byte) 1).setPermissionType((byte) 2))));
            case "DeleteAclsResponse":
                return new DeleteAclsResponseData().setThrottleTimeMs(0).setFilterResults(new ArrayList<>(List.of(
                    new DeleteAclsResponseData.DeleteAclsFilterResult().setErrorCode((short) 0).setErrorMessage(null)
                        .setMatchingAcls(new ArrayList<>(List.of(
                            new DeleteAclsResponseData.DeleteAclsMatchingAcl().setErrorCode((short) 0).setErrorMessage(null)
                                .setResourceType((byte) 2).setResourceName(USER_TOPIC).setPatternType((byte) 3)
                                .setPrincipal("User:alice").setHost("*").setOperation((byte) 3).setPermissionType((byte) 3),
                            new DeleteAclsResponseData.DeleteAclsMatchingAcl().setErrorCode((short) 0).setErrorMessage(null)
                                .setResourceType((byte) 2).setResourceName(USER_TOPIC).setPatternType((byte) 3)
                                .setPrincipal("User:alice").setHost("*").setOperation((byte) 8).setPermissionType((byte) 3)))),
                    new DeleteAclsResponseData.DeleteAclsFilterResult().setErrorCode((short) 0).setErrorMessage(null))));
            case "CreateDelegationTokenRequest": // a token for alice (v3: on her behalf), renewable by bob and admin
                return new CreateDelegationTokenRequestData().setOwnerPrincipalType("User").setOwnerPrincipalName("alice")
                    .setRenewers(new ArrayList<>(List.of(
                        new CreateDelegationTokenRequestData.CreatableRenewers().setPrincipalType("User").setPrincipalName("bob"),
                        new CreateDelegationTokenRequestData.CreatableRenewers().setPrincipalType("User").setPrincipalName("admin"))))
                    .setMaxLifetimeMs(604800000L);
            case "CreateDelegationTokenResponse": // the token of DelegationTokenRecord, requested by admin
                return new CreateDelegationTokenResponseData().setErrorCode((short) 0).setPrincipalType("User")
                    .setPrincipalName("alice").setTokenRequesterPrincipalType("User").setTokenRequesterPrincipalName("admin")
                    .setIssueTimestampMs(TIMESTAMP).setExpiryTimestampMs(TIMESTAMP + 86400000L)
                    .setMaxTimestampMs(TIMESTAMP + 604800000L).setTokenId(TOKEN_ID).setHmac(TOKEN_HMAC).setThrottleTimeMs(0);
            case "RenewDelegationTokenRequest": // one more day
                return new RenewDelegationTokenRequestData().setHmac(TOKEN_HMAC).setRenewPeriodMs(86400000L);
            case "RenewDelegationTokenResponse":
                return new RenewDelegationTokenResponseData().setErrorCode((short) 0)
                    .setExpiryTimestampMs(TIMESTAMP + 2 * 86400000L).setThrottleTimeMs(0);
            case "ExpireDelegationTokenRequest": // expire now
                return new ExpireDelegationTokenRequestData().setHmac(TOKEN_HMAC).setExpiryTimePeriodMs(-1L);
            case "ExpireDelegationTokenResponse":
                return new ExpireDelegationTokenResponseData().setErrorCode((short) 0).setExpiryTimestampMs(TIMESTAMP + 60000L)
                    .setThrottleTimeMs(0);
            case "DescribeDelegationTokenRequest": // alice's tokens
                return new DescribeDelegationTokenRequestData().setOwners(new ArrayList<>(List.of(
                    new DescribeDelegationTokenRequestData.DescribeDelegationTokenOwner().setPrincipalType("User")
                        .setPrincipalName("alice"))));
            case "DescribeDelegationTokenResponse":
                return new DescribeDelegationTokenResponseData().setErrorCode((short) 0).setTokens(new ArrayList<>(List.of(
                    new DescribeDelegationTokenResponseData.DescribedDelegationToken().setPrincipalType("User")
                        .setPrincipalName("alice").setTokenRequesterPrincipalType("User").setTokenRequesterPrincipalName("admin")
                        .setIssueTimestamp(TIMESTAMP).setExpiryTimestamp(TIMESTAMP + 86400000L)
                        .setMaxTimestamp(TIMESTAMP + 604800000L).setTokenId(TOKEN_ID).setHmac(TOKEN_HMAC)
                        .setRenewers(new ArrayList<>(List.of(
                            new DescribeDelegationTokenResponseData.DescribedDelegationTokenRenewer().setPrincipalType("User")
                                .setPrincipalName("bob"),
                            new DescribeDelegationTokenResponseData.DescribedDelegationTokenRenewer().setPrincipalType("User")
                                .setPrincipalName("admin")))))))
                    .setThrottleTimeMs(0);
            case "DescribeClientQuotasRequest": // user alice with the default client id, strictly
                return new DescribeClientQuotasRequestData().setComponents(new ArrayList<>(List.of(
                    new DescribeClientQuotasRequestData.ComponentData().setEntityType("user").setMatchType((byte) 0)
                        .setMatch("alice"),
                    new DescribeClientQuotasRequestData.ComponentData().setEntityType("client-id").setMatchType((byte) 1)
                        .setMatch(null))))
                    .setStrict(true);
            case "DescribeClientQuotasResponse":
                return new DescribeClientQuotasResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null)
                    .setEntries(new ArrayList<>(List.of(
                        new DescribeClientQuotasResponseData.EntryData().setEntity(new ArrayList<>(List.of(
                                new DescribeClientQuotasResponseData.EntityData().setEntityType("user").setEntityName("alice"),
                                new DescribeClientQuotasResponseData.EntityData().setEntityType("client-id").setEntityName(null))))
                            .setValues(new ArrayList<>(List.of(
                                new DescribeClientQuotasResponseData.ValueData().setKey("producer_byte_rate").setValue(1048576.0),
                                new DescribeClientQuotasResponseData.ValueData().setKey("request_percentage").setValue(12.5)))))));
            case "AlterClientQuotasRequest": // client-id clientA: set producer_byte_rate, drop request_percentage
                return new AlterClientQuotasRequestData().setEntries(new ArrayList<>(List.of(
                    new AlterClientQuotasRequestData.EntryData().setEntity(new ArrayList<>(List.of(
                            new AlterClientQuotasRequestData.EntityData().setEntityType("client-id").setEntityName("clientA"))))
                        .setOps(new ArrayList<>(List.of(
                            new AlterClientQuotasRequestData.OpData().setKey("producer_byte_rate").setValue(1048576.0)
                                .setRemove(false),
                            new AlterClientQuotasRequestData.OpData().setKey("request_percentage").setValue(0.0)
                                .setRemove(true)))),
                    new AlterClientQuotasRequestData.EntryData().setEntity(new ArrayList<>(List.of(
                            new AlterClientQuotasRequestData.EntityData().setEntityType("user").setEntityName("alice"),
                            new AlterClientQuotasRequestData.EntityData().setEntityType("client-id").setEntityName(null))))
                        .setOps(new ArrayList<>(List.of(
                            new AlterClientQuotasRequestData.OpData().setKey("consumer_byte_rate").setValue(2097152.0)
                                .setRemove(false)))))))
                    .setValidateOnly(false);
            case "AlterClientQuotasResponse":
                return new AlterClientQuotasResponseData().setThrottleTimeMs(0).setEntries(new ArrayList<>(List.of(
                    new AlterClientQuotasResponseData.EntryData().setErrorCode((short) 0).setErrorMessage(null)
                        .setEntity(new ArrayList<>(List.of(
                            new AlterClientQuotasResponseData.EntityData().setEntityType("client-id").setEntityName("clientA")))),
                    new AlterClientQuotasResponseData.EntryData().setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Quota consumer_byte_rate must be greater than 0")
                        .setEntity(new ArrayList<>(List.of(
                            new AlterClientQuotasResponseData.EntityData().setEntityType("user").setEntityName("alice"),
                            new AlterClientQuotasResponseData.EntityData().setEntityType("client-id").setEntityName(null)))))));
            case "AlterUserScramCredentialsRequest": // alice gets SCRAM-SHA-256 (32-byte salt); bob loses SCRAM-SHA-512
                return new AlterUserScramCredentialsRequestData()
                    .setDeletions(new ArrayList<>(List.of(
                        new AlterUserScramCredentialsRequestData.ScramCredentialDeletion().setName("bob").setMechanism((byte) 2))))
                    .setUpsertions(new ArrayList<>(List.of(
                        new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion().setName("alice")
                            .setMechanism((byte) 1).setIterations(8192).setSalt(pattern(32, 0x21))
                            .setSaltedPassword(pattern(32, 0x7e)))));
            case "AlterUserScramCredentialsResponse":
                return new AlterUserScramCredentialsResponseData().setThrottleTimeMs(0).setResults(new ArrayList<>(List.of(
                    new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser("bob")
                        .setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to delete a user credential that does not exist"),
                    new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser("alice")
                        .setErrorCode((short) 0).setErrorMessage(null))));
            case "DescribeUserScramCredentialsRequest":
                return new DescribeUserScramCredentialsRequestData().setUsers(new ArrayList<>(List.of(
                    new DescribeUserScramCredentialsRequestData.UserName().setName("alice"),
                    new DescribeUserScramCredentialsRequestData.UserName().setName("bob"))));
            case "DescribeUserScramCredentialsResponse":
                return new DescribeUserScramCredentialsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setErrorMessage(null).setResults(new ArrayList<>(List.of(
                        new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult().setUser("alice")
                            .setErrorCode((short) 0).setErrorMessage(null).setCredentialInfos(new ArrayList<>(List.of(
                                new DescribeUserScramCredentialsResponseData.CredentialInfo().setMechanism((byte) 1)
                                    .setIterations(8192),
                                new DescribeUserScramCredentialsResponseData.CredentialInfo().setMechanism((byte) 2)
                                    .setIterations(4096)))),
                        new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult().setUser("bob")
                            .setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                            .setErrorMessage("Attempt to describe a user credential that does not exist: bob"))));
            case "SaslHandshakeRequest":
                return new SaslHandshakeRequestData().setMechanism("PLAIN");
            case "SaslHandshakeResponse":
                return new SaslHandshakeResponseData().setErrorCode((short) 0)
                    .setMechanisms(new ArrayList<>(List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")));
            case "SaslAuthenticateRequest": // SASL/PLAIN (RFC 4616): authzid NUL authcid NUL password
                return new SaslAuthenticateRequestData()
                    .setAuthBytes("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8));
            case "SaslAuthenticateResponse": // PLAIN succeeded; re-authenticate within an hour (KIP-368)
                return new SaslAuthenticateResponseData().setErrorCode((short) 0).setErrorMessage(null)
                    .setAuthBytes(new byte[0]).setSessionLifetimeMs(3600000L);
            default:
                throw new IllegalArgumentException("no typical sample for " + name);
        }
    }

    /** {@code n} deterministic bytes: {@code seed, seed + 37, seed + 74, ...} (mod 256). */
    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 37 * i);
        }
        return b;
    }

    private static Map<String, short[]> features() {
        Map<String, short[]> m = new LinkedHashMap<>();
        m.put("kraft.version", new short[]{0, 1});
        m.put("metadata.version", new short[]{7, 33});
        m.put("group.version", new short[]{0, 1});
        return m;
    }

    /** Extra named cases: mostly the worked byte examples of the spec digest, to cross-check them. */
    record Extra(String caseName, Message message) {
    }

    static List<Extra> extras(String name, short v) {
        List<Extra> out = new ArrayList<>();
        switch (name) {
            case "AddRaftVoterRequest":
                if (v == 1) { // the hand-computed UnregisterController v1 example
                    AddRaftVoterRequestData.ListenerCollection ls = new AddRaftVoterRequestData.ListenerCollection();
                    ls.add(new AddRaftVoterRequestData.Listener().setName(LISTENER).setHost("ctl-4").setPort(9093));
                    out.add(new Extra("spec-example", new AddRaftVoterRequestData().setClusterId(null).setTimeoutMs(30000)
                        .setVoterId(4).setVoterDirectoryId(DIR1).setListeners(ls).setAckWhenCommitted(false)));
                }
                break;
            case "UnregisterControllerResponse": // an error response (KIP-1312)
                out.add(new Extra("error", new UnregisterControllerResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.forCode((short) 136).code())
                    .setErrorMessage("Controller ID 5 is not currently registered.")));
                break;
            case "VotersRecord": { // KIP-853 VotersRecord
                VotersRecord.EndpointCollection eps = new VotersRecord.EndpointCollection();
                eps.add(new VotersRecord.Endpoint().setName(LISTENER).setHost(HOST).setPort(PORT));
                out.add(new Extra("spec-example", new VotersRecord().setVersion((short) 0).setVoters(new ArrayList<>(List.of(
                    new VotersRecord.Voter().setVoterId(1).setVoterDirectoryId(DIR1).setEndpoints(eps)
                        .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature().setMinSupportedVersion((short) 0)
                            .setMaxSupportedVersion((short) 1)))))));
                break;
            }
            case "DescribeQuorumResponse": // error-shaped response of a non-leader (KafkaRaftClient.handleDescribeQuorumRequest)
                out.add(new Extra("not-leader", new DescribeQuorumResponseData().setTopics(new ArrayList<>(List.of(
                    new DescribeQuorumResponseData.TopicData().setTopicName(TOPIC).setPartitions(new ArrayList<>(List.of(
                        new DescribeQuorumResponseData.PartitionData().setPartitionIndex(0)
                            .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                            .setErrorMessage(Errors.NOT_LEADER_OR_FOLLOWER.message())))))))));
                break;
            case "FetchResponse":
                if (v >= 12) { // follower must truncate / fetch a snapshot
                    FetchResponseData.PartitionData p = new FetchResponseData.PartitionData().setPartitionIndex(0)
                        .setHighWatermark(1200L).setLogStartOffset(0L)
                        .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(4).setEndOffset(1100L))
                        .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(EPOCH))
                        .setRecords(MemoryRecords.EMPTY);
                    FetchResponseData.PartitionData q = new FetchResponseData.PartitionData().setPartitionIndex(1)
                        .setHighWatermark(1200L).setLogStartOffset(1000L)
                        .setSnapshotId(new FetchResponseData.SnapshotId().setEndOffset(1000L).setEpoch(4))
                        .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(EPOCH))
                        .setRecords(MemoryRecords.EMPTY);
                    out.add(new Extra("diverging-and-snapshot", new FetchResponseData().setResponses(new ArrayList<>(List.of(
                        new FetchResponseData.FetchableTopicResponse().setTopic(TOPIC).setTopicId(TOPIC_ID)
                            .setPartitions(new ArrayList<>(List.of(p, q))))))));
                }
                break;
            case "DeleteTopicsResponse":
                if (v >= 6) { // deletion by an id the controller does not know: no name
                    DeleteTopicsResponseData.DeletableTopicResultCollection rs = new DeleteTopicsResponseData.DeletableTopicResultCollection();
                    rs.add(new DeleteTopicsResponseData.DeletableTopicResult().setName(null).setTopicId(AUDIT_LOG_ID)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()).setErrorMessage(Errors.UNKNOWN_TOPIC_ID.message()));
                    out.add(new Extra("unknown-id", new DeleteTopicsResponseData().setThrottleTimeMs(0).setResponses(rs)));
                }
                break;
            case "ElectLeadersRequest": // every partition (null TopicPartitions), unclean where v1+ allows it
                out.add(new Extra("all-partitions", new ElectLeadersRequestData().setElectionType((byte) (v >= 1 ? 1 : 0))
                    .setTopicPartitions(null).setTimeoutMs(60000)));
                break;
            case "DescribeAclsResponse": // a Kafka 4.4 controller without an authorizer (AclApis)
                out.add(new Extra("security-disabled", new DescribeAclsResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.SECURITY_DISABLED.code()).setErrorMessage("No Authorizer is configured on the broker")));
                break;
            case "DescribeDelegationTokenRequest": // every token (null owners)
                out.add(new Extra("all-tokens", new DescribeDelegationTokenRequestData().setOwners(null)));
                break;
            case "DescribeUserScramCredentialsRequest": // every user (null users)
                out.add(new Extra("all-users", new DescribeUserScramCredentialsRequestData().setUsers(null)));
                break;
            case "DescribeClientQuotasResponse": // the caller may not describe the cluster: no entries (null)
                out.add(new Extra("error", new DescribeClientQuotasResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message()).setEntries(null)));
                break;
            case "SaslAuthenticateResponse": // wrong PLAIN password
                out.add(new Extra("error", new SaslAuthenticateResponseData()
                    .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                    .setErrorMessage("Authentication failed: Invalid username or password").setAuthBytes(new byte[0])));
                break;
            case "ListPartitionReassignmentsRequest": // every ongoing reassignment (kafka-reassign-partitions --list)
                out.add(new Extra("all-partitions", new ListPartitionReassignmentsRequestData().setTimeoutMs(60000)
                    .setTopics(null)));
                break;
            case "AssignReplicasToDirsResponse": // the requester's broker epoch is stale: the error alone, as getErrorResponse builds it
                out.add(new Extra("error", new AssignReplicasToDirsResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.STALE_BROKER_EPOCH.code())));
                break;
            case "AllocateProducerIdsResponse": // the requester's broker epoch is stale
                out.add(new Extra("error", new AllocateProducerIdsResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.STALE_BROKER_EPOCH.code())));
                break;
            default:
                break;
        }
        return out;
    }
}
