//! The API keys a Kafka 4.4.0 client knows (`org.apache.kafka.common.protocol.ApiKeys`
//! of the released `kafka-clients-4.4.0.jar`): id, name, oldest and latest
//! version (unstable latest versions included, as `ApiKeys.latestVersion()`
//! does) and whether the key is in `ApiKeys.clientApis()`. This is what
//! Kafka's `NodeApiVersions.toString` compares a node's ApiVersions answer
//! with (`kafka-cluster api-versions`, `kafka-broker-api-versions`); it is a
//! fact about Kafka's client, distinct from the versions this crate
//! implements ([`crate::ApiKey`]).

/// One of Kafka 4.4.0's `ApiKeys`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KafkaApiKey {
    /// The numeric key.
    pub id: i16,
    /// Kafka's name, e.g. `DescribeQuorum`.
    pub name: &'static str,
    /// `oldestVersion()`.
    pub oldest_version: i16,
    /// `latestVersion()` (-1 for the keys Kafka 4 removed, e.g. `LeaderAndIsr`).
    pub latest_version: i16,
    /// Whether the key is in `ApiKeys.clientApis()` (the broker-listener APIs).
    pub client_api: bool,
}

const fn k(
    id: i16,
    name: &'static str,
    oldest_version: i16,
    latest_version: i16,
    client_api: bool,
) -> KafkaApiKey {
    KafkaApiKey {
        id,
        name,
        oldest_version,
        latest_version,
        client_api,
    }
}

/// Every `ApiKeys` constant of Kafka 4.4.0, in id order.
pub const KAFKA_API_KEYS: &[KafkaApiKey] = &[
    k(0, "Produce", 3, 13, true),
    k(1, "Fetch", 4, 18, true),
    k(2, "ListOffsets", 1, 11, true),
    k(3, "Metadata", 0, 13, true),
    k(4, "LeaderAndIsr", 0, -1, false),
    k(5, "StopReplica", 0, -1, false),
    k(6, "UpdateMetadata", 0, -1, false),
    k(7, "ControlledShutdown", 0, -1, false),
    k(8, "OffsetCommit", 2, 10, true),
    k(9, "OffsetFetch", 1, 10, true),
    k(10, "FindCoordinator", 0, 6, true),
    k(11, "JoinGroup", 0, 9, true),
    k(12, "Heartbeat", 0, 4, true),
    k(13, "LeaveGroup", 0, 5, true),
    k(14, "SyncGroup", 0, 5, true),
    k(15, "DescribeGroups", 0, 6, true),
    k(16, "ListGroups", 0, 5, true),
    k(17, "SaslHandshake", 0, 1, true),
    k(18, "ApiVersions", 0, 5, true),
    k(19, "CreateTopics", 2, 7, true),
    k(20, "DeleteTopics", 1, 6, true),
    k(21, "DeleteRecords", 0, 2, true),
    k(22, "InitProducerId", 0, 6, true),
    k(23, "OffsetForLeaderEpoch", 2, 4, true),
    k(24, "AddPartitionsToTxn", 0, 5, true),
    k(25, "AddOffsetsToTxn", 0, 4, true),
    k(26, "EndTxn", 0, 5, true),
    k(27, "WriteTxnMarkers", 1, 2, true),
    k(28, "TxnOffsetCommit", 0, 6, true),
    k(29, "DescribeAcls", 1, 3, true),
    k(30, "CreateAcls", 1, 3, true),
    k(31, "DeleteAcls", 1, 3, true),
    k(32, "DescribeConfigs", 1, 4, true),
    k(33, "AlterConfigs", 0, 2, true),
    k(34, "AlterReplicaLogDirs", 1, 2, true),
    k(35, "DescribeLogDirs", 1, 5, true),
    k(36, "SaslAuthenticate", 0, 2, true),
    k(37, "CreatePartitions", 0, 3, true),
    k(38, "CreateDelegationToken", 1, 3, true),
    k(39, "RenewDelegationToken", 1, 2, true),
    k(40, "ExpireDelegationToken", 1, 2, true),
    k(41, "DescribeDelegationToken", 1, 3, true),
    k(42, "DeleteGroups", 0, 3, true),
    k(43, "ElectLeaders", 0, 2, true),
    k(44, "IncrementalAlterConfigs", 0, 1, true),
    k(45, "AlterPartitionReassignments", 0, 1, true),
    k(46, "ListPartitionReassignments", 0, 0, true),
    k(47, "OffsetDelete", 0, 0, true),
    k(48, "DescribeClientQuotas", 0, 1, true),
    k(49, "AlterClientQuotas", 0, 1, true),
    k(50, "DescribeUserScramCredentials", 0, 0, true),
    k(51, "AlterUserScramCredentials", 0, 0, true),
    k(52, "Vote", 0, 2, false),
    k(53, "BeginQuorumEpoch", 0, 1, false),
    k(54, "EndQuorumEpoch", 0, 1, false),
    k(55, "DescribeQuorum", 0, 2, true),
    k(56, "AlterPartition", 2, 3, false),
    k(57, "UpdateFeatures", 0, 2, true),
    k(58, "Envelope", 0, 0, false),
    k(59, "FetchSnapshot", 0, 1, false),
    k(60, "DescribeCluster", 0, 2, true),
    k(61, "DescribeProducers", 0, 0, true),
    k(62, "BrokerRegistration", 0, 4, false),
    k(63, "BrokerHeartbeat", 0, 2, false),
    k(64, "UnregisterBroker", 0, 0, true),
    k(65, "DescribeTransactions", 0, 0, true),
    k(66, "ListTransactions", 0, 2, true),
    k(67, "AllocateProducerIds", 0, 0, false),
    k(68, "ConsumerGroupHeartbeat", 0, 1, true),
    k(69, "ConsumerGroupDescribe", 0, 1, true),
    k(70, "ControllerRegistration", 0, 0, false),
    k(71, "GetTelemetrySubscriptions", 0, 0, true),
    k(72, "PushTelemetry", 0, 0, true),
    k(73, "AssignReplicasToDirs", 0, 0, false),
    k(74, "ListConfigResources", 0, 1, true),
    k(75, "DescribeTopicPartitions", 0, 0, true),
    k(76, "ShareGroupHeartbeat", 1, 1, true),
    k(77, "ShareGroupDescribe", 1, 1, true),
    k(78, "ShareFetch", 1, 2, true),
    k(79, "ShareAcknowledge", 1, 2, true),
    k(80, "AddRaftVoter", 0, 1, true),
    k(81, "RemoveRaftVoter", 0, 0, true),
    k(82, "UpdateRaftVoter", 0, 0, false),
    k(83, "InitializeShareGroupState", 0, 0, true),
    k(84, "ReadShareGroupState", 0, 0, true),
    k(85, "WriteShareGroupState", 0, 1, true),
    k(86, "DeleteShareGroupState", 0, 0, true),
    k(87, "ReadShareGroupStateSummary", 0, 1, true),
    k(88, "StreamsGroupHeartbeat", 0, 1, true),
    k(89, "StreamsGroupDescribe", 0, 1, true),
    k(90, "DescribeShareGroupOffsets", 0, 1, true),
    k(91, "AlterShareGroupOffsets", 0, 0, true),
    k(92, "DeleteShareGroupOffsets", 0, 0, true),
    k(93, "StreamsGroupTopologyDescriptionUpdate", 0, 0, true),
    k(94, "UnregisterController", 0, 0, true),
];

impl KafkaApiKey {
    /// The key with id `id`, if Kafka 4.4.0's client knows it (`ApiKeys.hasId`).
    pub fn find(id: i16) -> Option<&'static KafkaApiKey> {
        KAFKA_API_KEYS.iter().find(|key| key.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_ascend_and_agree_with_the_implemented_keys() {
        assert!(KAFKA_API_KEYS.windows(2).all(|w| w[0].id < w[1].id));
        for api in crate::ApiKey::ALL {
            let known = KafkaApiKey::find(api.id()).expect("Kafka knows every implemented key");
            let snake: String = known
                .name
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_ascii_uppercase()).then_some('_');
                    sep.into_iter()
                        .chain(std::iter::once(c.to_ascii_uppercase()))
                })
                .collect();
            assert_eq!(snake, api.kafka_name(), "{api:?}");
        }
        assert_eq!(
            KafkaApiKey::find(55).map(|k| k.name),
            Some("DescribeQuorum")
        );
        assert!(KafkaApiKey::find(999).is_none());
    }
}
