//! Kafka's `StripedReplicaPlacerTest` (driven by Kafka's `MockRandom`, whose
//! sequence is a fact of the test), `testKRaftClusterDescriber`, and the
//! usable brokers.

use std::collections::HashMap;

use super::*;
use crate::replication::test_support::{broker_dir, ImageBuilder, TestBroker};

/// Kafka's test `MockRandom`: a 64-bit LCG (seed 17) behind Java's
/// `Random.next(bits)` and `nextInt(bound)`.
struct MockRandom {
    state: i64,
}

impl MockRandom {
    fn new() -> Self {
        MockRandom { state: 17 }
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.state = self
            .state
            .wrapping_mul(2_862_933_555_777_941_757)
            .wrapping_add(3_037_000_493);
        ((self.state as u64) >> (64 - bits)) as i32
    }
}

impl PlacementRandom for MockRandom {
    fn next_int(&mut self, bound: i32) -> i32 {
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }
}

fn broker(id: i32, rack: Option<&str>, fenced: bool) -> UsableBroker {
    UsableBroker {
        id,
        rack: rack.map(str::to_string),
        fenced,
    }
}

fn spec(num_partitions: i32, replication_factor: i16) -> PlacementSpec {
    PlacementSpec {
        starting_partition: 0,
        num_partitions,
        replication_factor,
    }
}

fn rack_names(list: &RackList<'_>, names: &[Option<String>]) -> Vec<Option<String>> {
    list.names.iter().map(|i| names[*i].clone()).collect()
}

#[test]
fn broker_lists_iterate_round_robin_per_epoch() {
    // Kafka's testBrokerList.
    let mut empty = BrokerList::default();
    assert_eq!(empty.brokers.len(), 0);
    assert_eq!(empty.next(1), None);
    let mut brokers = BrokerList {
        brokers: vec![0, 1, 2, 3],
        ..Default::default()
    };
    for want in [Some(0), Some(1), Some(2), Some(3), None, None] {
        assert_eq!(brokers.next(0), want);
    }
    for want in [Some(1), Some(2), Some(3), Some(0), None] {
        assert_eq!(brokers.next(1), want);
    }
}

#[test]
fn a_fenced_broker_is_avoided_when_possible_on_one_rack() {
    // Kafka's testAvoidFencedReplicaIfPossibleOnSingleRack.
    let mut random = MockRandom::new();
    let brokers = [
        broker(3, None, false),
        broker(1, None, true),
        broker(0, None, false),
        broker(4, None, false),
        broker(2, None, false),
    ];
    let mut list = RackList::new(&mut random, &brokers);
    assert_eq!((list.total_brokers, list.unfenced_brokers), (5, 4));
    assert_eq!(rack_names(&list, &[None]), [None]);
    assert_eq!(list.place(0), Err(non_positive(0)));
    assert_eq!(list.place(-1), Err(non_positive(-1)));
    assert_eq!(list.place(4), Ok(vec![3, 4, 0, 2]));
    assert_eq!(list.place(4), Ok(vec![4, 0, 2, 3]));
    assert_eq!(list.place(4), Ok(vec![0, 2, 3, 4]));
    assert_eq!(list.place(4), Ok(vec![2, 3, 4, 0]));
    assert_eq!(list.place(4), Ok(vec![0, 4, 3, 2]));
}

#[test]
fn one_unfenced_broker_leads_every_partition() {
    // Kafka's testMultiPartitionTopicPlacementOnSingleUnfencedBroker.
    let mut random = MockRandom::new();
    assert_eq!(
        place(
            &spec(3, 1),
            &[broker(0, None, false), broker(1, None, true)],
            &mut random
        ),
        Ok(vec![vec![0], vec![0], vec![0]])
    );
}

#[test]
fn a_fenced_broker_is_used_when_needed_on_one_rack() {
    // Kafka's testPlacementOnFencedReplicaOnSingleRack.
    let mut random = MockRandom::new();
    let brokers = [
        broker(3, None, false),
        broker(1, None, true),
        broker(2, None, false),
    ];
    let mut list = RackList::new(&mut random, &brokers);
    assert_eq!((list.total_brokers, list.unfenced_brokers), (3, 2));
    assert_eq!(list.place(3), Ok(vec![3, 2, 1]));
    assert_eq!(list.place(3), Ok(vec![2, 3, 1]));
    assert_eq!(list.place(3), Ok(vec![3, 2, 1]));
    assert_eq!(list.place(3), Ok(vec![2, 3, 1]));
}

#[test]
fn replicas_stripe_across_racks() {
    // Kafka's testRackListWithMultipleRacks.
    let mut random = MockRandom::new();
    let brokers = [
        broker(11, Some("1"), false),
        broker(10, Some("1"), false),
        broker(30, Some("3"), false),
        broker(31, Some("3"), false),
        broker(21, Some("2"), false),
        broker(20, Some("2"), true),
    ];
    let names = [Some("1"), Some("3"), Some("2")].map(|n| n.map(str::to_string));
    let mut list = RackList::new(&mut random, &brokers);
    assert_eq!((list.total_brokers, list.unfenced_brokers), (6, 5));
    assert_eq!(
        rack_names(&list, &names),
        [Some("1"), Some("2"), Some("3")].map(|n| n.map(str::to_string))
    );
    assert_eq!(list.place(4), Ok(vec![11, 21, 31, 10]));
    assert_eq!(list.place(4), Ok(vec![21, 30, 10, 20]));
    assert_eq!(list.place(4), Ok(vec![31, 11, 21, 30]));
}

#[test]
fn racks_of_fenced_brokers_only_hold_followers() {
    // Kafka's testRackListWithInvalidRacks.
    let mut random = MockRandom::new();
    let brokers = [
        broker(11, Some("1"), false),
        broker(10, Some("1"), false),
        broker(30, Some("3"), true),
        broker(31, Some("3"), true),
        broker(20, Some("2"), true),
        broker(21, Some("2"), true),
        broker(41, Some("4"), false),
        broker(40, Some("4"), true),
    ];
    let names = [Some("1"), Some("3"), Some("2"), Some("4")].map(|n| n.map(str::to_string));
    let mut list = RackList::new(&mut random, &brokers);
    assert_eq!((list.total_brokers, list.unfenced_brokers), (8, 3));
    assert_eq!(
        rack_names(&list, &names),
        [Some("1"), Some("2"), Some("3"), Some("4")].map(|n| n.map(str::to_string))
    );
    assert_eq!(list.place(4), Ok(vec![41, 11, 21, 30]));
    assert_eq!(list.place(4), Ok(vec![10, 20, 31, 41]));
    assert_eq!(list.place(4), Ok(vec![41, 21, 30, 11]));
}

#[test]
fn placement_errors_carry_kafkas_messages() {
    // Kafka's testAllBrokersFenced, testNotEnoughBrokers,
    // testNonPositiveReplicationFactor.
    let mut random = MockRandom::new();
    let fenced = [broker(11, Some("1"), true), broker(10, Some("1"), true)];
    assert_eq!(
        place(&spec(1, 1), &fenced, &mut random)
            .expect_err("fails")
            .to_string(),
        "All brokers are currently fenced, or have all their log directories cordoned."
    );
    let two = [broker(11, Some("1"), false), broker(10, Some("1"), false)];
    assert_eq!(
        place(&spec(1, 3), &two, &mut random).expect_err("fails").to_string(),
        "The target replication factor of 3 cannot be reached because only 2 broker(s) are registered or some brokers have all their log directories cordoned."
    );
    assert_eq!(
        place(&spec(1, 0), &two, &mut random)
            .expect_err("fails")
            .to_string(),
        "Invalid replication factor 0: the replication factor must be positive."
    );
    // Kafka checks "all fenced" before "too few brokers".
    assert_eq!(
        place(&spec(1, 3), &fenced, &mut random).expect_err("fails"),
        all_fenced()
    );
    // No brokers at all.
    assert_eq!(place(&spec(1, 1), &[], &mut random), Err(all_fenced()));
}

#[test]
fn rack_list_errors_carry_kafkas_messages() {
    // Kafka's testRackListAllBrokersFenced, testRackListNotEnoughBrokers,
    // testRackListNonPositiveReplicationFactor.
    let mut random = MockRandom::new();
    let fenced = [
        broker(0, None, true),
        broker(1, None, true),
        broker(2, None, true),
    ];
    let mut list = RackList::new(&mut random, &fenced);
    assert_eq!((list.total_brokers, list.unfenced_brokers), (3, 0));
    assert_eq!(
        list.place(3).expect_err("fails").to_string(),
        "All brokers are currently fenced, or have all their log directories cordoned."
    );
    let two = [broker(11, Some("1"), false), broker(10, Some("1"), false)];
    let mut list = RackList::new(&mut random, &two);
    assert_eq!(
        list.place(3).expect_err("fails").to_string(),
        "The target replication factor of 3 cannot be reached because only 2 broker(s) are registered or some brokers have all their log directories cordoned."
    );
    assert_eq!(
        list.place(-1).expect_err("fails").to_string(),
        "Invalid replication factor -1: the replication factor must be positive."
    );
}

#[test]
fn placements_follow_kafkas_striping() {
    // Kafka's testSuccessfulPlacement.
    let mut random = MockRandom::new();
    let brokers = [
        broker(0, None, false),
        broker(3, None, false),
        broker(2, None, false),
        broker(1, None, false),
    ];
    assert_eq!(
        place(&spec(5, 3), &brokers, &mut random),
        Ok(vec![
            vec![2, 3, 0],
            vec![3, 0, 1],
            vec![0, 1, 2],
            vec![1, 2, 3],
            vec![1, 0, 2],
        ])
    );
}

#[test]
fn placements_spread_evenly() {
    // Kafka's testEvenDistribution.
    let mut random = MockRandom::new();
    let brokers: Vec<UsableBroker> = (0..4).map(|id| broker(id, None, false)).collect();
    let placed = place(&spec(200, 2), &brokers, &mut random).expect("places");
    let mut counts: HashMap<Vec<i32>, i32> = HashMap::new();
    for p in placed {
        *counts.entry(p).or_default() += 1;
    }
    let want = [
        ([0, 1], 14),
        ([0, 2], 22),
        ([0, 3], 14),
        ([1, 0], 17),
        ([1, 2], 17),
        ([1, 3], 16),
        ([2, 0], 13),
        ([2, 1], 17),
        ([2, 3], 20),
        ([3, 0], 20),
        ([3, 1], 19),
        ([3, 2], 11),
    ];
    for (pair, n) in want {
        assert_eq!(counts.get(pair.as_slice()), Some(&n), "{pair:?}");
    }
}

#[test]
fn the_production_random_stays_in_bounds_and_places() {
    let mut random = ThreadRandom::new();
    for bound in [1, 2, 3, 7, 1000, i32::MAX] {
        for _ in 0..100 {
            let v = random.next_int(bound);
            assert!((0..bound).contains(&v), "{v} of {bound}");
        }
    }
    let brokers: Vec<UsableBroker> = (0..6)
        .map(|id| broker(id, Some(["a", "b", "c"][id as usize % 3]), id == 5))
        .collect();
    let placed = place(&spec(50, 3), &brokers, &mut ThreadRandom::with_seed(7)).expect("places");
    for replicas in &placed {
        let racks: std::collections::BTreeSet<i32> = replicas.iter().map(|r| r % 3).collect();
        assert_eq!(racks.len(), 3, "one replica per rack: {replicas:?}");
        assert_ne!(replicas[0], 5, "a fenced broker never leads");
    }
}

#[test]
fn usable_brokers_skip_shutting_down_and_fully_cordoned_ones() {
    let d = |n: u64| Uuid::from_u64_pair(9, n);
    let image = ImageBuilder::new(33, false)
        .broker(TestBroker {
            rack: Some("r1".into()),
            ..TestBroker::new(0)
        })
        .broker(TestBroker {
            fenced: true,
            ..TestBroker::new(1)
        })
        .broker(TestBroker {
            in_controlled_shutdown: true,
            ..TestBroker::new(2)
        })
        .broker(TestBroker {
            directories: vec![d(1), d(2)],
            cordoned: Some(vec![d(1), d(2)]),
            ..TestBroker::new(3)
        })
        .broker(TestBroker {
            directories: vec![d(3), d(4)],
            cordoned: Some(vec![d(3)]),
            ..TestBroker::new(4)
        })
        .broker(TestBroker {
            directories: vec![],
            cordoned: Some(vec![]),
            ..TestBroker::new(5)
        })
        .build();
    assert_eq!(
        usable_brokers(&image),
        vec![
            broker(0, Some("r1"), false),
            broker(1, None, true),
            broker(4, None, false),
            broker(5, None, false),
        ]
    );
    // The heartbeat states decide controlled shutdown when given.
    let ids: Vec<i32> = usable_brokers_with(&image, |id| id == 0)
        .iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(ids, [1, 2, 4, 5]);
}

#[test]
fn default_directories_follow_kafkas_cluster_describer() {
    // Kafka's testKRaftClusterDescriber.
    let single = Uuid::from_u64_pair(5, 5);
    let build = |level| {
        ImageBuilder::new(level, false)
            .broker(TestBroker {
                directories: vec![],
                ..TestBroker::new(1)
            })
            .broker(TestBroker {
                directories: vec![single],
                ..TestBroker::new(2)
            })
            .broker(TestBroker {
                directories: vec![Uuid::from_u64_pair(6, 1), Uuid::from_u64_pair(6, 2)],
                ..TestBroker::new(3)
            })
            .build()
    };
    let image = build(33);
    assert_eq!(default_directory(&image, 1), MIGRATING);
    assert_eq!(default_directory(&image, 2), single);
    assert_eq!(default_directory(&image, 3), UNASSIGNED);
    assert_eq!(default_directory(&image, 9), UNASSIGNED, "not registered");
    // Below 3.7-IV2 every new replica is MIGRATING, whatever the broker
    // registered.
    let old = ImageBuilder::new(16, false).brokers(&[2]).build();
    assert_eq!(default_directory(&old, 2), MIGRATING);
    assert_eq!(
        default_directory(&ImageBuilder::new(33, false).brokers(&[4]).build(), 4),
        broker_dir(4)
    );
}

#[test]
fn rack_names_sort_as_java_strings() {
    // U+FF5E sorts before U+1F600 by code point (and UTF-8), after it by
    // UTF-16 code unit, as Java compares (the pair of U+1F600 starts with
    // 0xD83D).
    let a = Some("\u{ff5e}".to_string());
    let b = Some("\u{1f600}".to_string());
    assert!(a < b);
    assert_eq!(compare_racks(&a, &b), std::cmp::Ordering::Greater);
    assert_eq!(compare_racks(&None, &a), std::cmp::Ordering::Less);
    assert_eq!(compare_racks(&a, &None), std::cmp::Ordering::Greater);
    assert_eq!(compare_racks(&None, &None), std::cmp::Ordering::Equal);
}
