//! Replica placement for new partitions: Kafka 4.4's `StripedReplicaPlacer`,
//! the usable brokers it places on (`ClusterControlManager.usableBrokers`)
//! and the directory each new replica is assigned to
//! (`KRaftClusterDescriber.defaultDir`).
//!
//! # The striped placer
//!
//! Usable brokers are grouped by rack; within a rack, unfenced and fenced
//! brokers are two lists, each sorted and given a random starting offset,
//! and the racks are sorted by name (no rack first) with a random starting
//! offset too. Each partition's leader is the next unfenced broker of the
//! first rack (from the rack offset) that has one; its followers are taken
//! one per rack, round robin from the rack offset (skipping the leader's
//! rack once), unfenced brokers before fenced ones. Every partition moves
//! the rack offset and each list's offset on by one, which gives the
//! striped pattern; after as many partitions as there are unfenced brokers
//! (when there are more than one) the racks and lists are shuffled.
//!
//! Randomness comes from a [`PlacementRandom`], which draws as Java's
//! `Random.nextInt(bound)` and `Collections.shuffle` would use it, in the
//! same order as Kafka (racks initialised in `java.util.HashMap` order), so
//! a test source reproduces Kafka's placements exactly; [`ThreadRandom`] is
//! the production source.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use kraft_protocol::java_hash_map::JavaHash;
use kraft_protocol::Uuid;

use super::{MIGRATING, UNASSIGNED};
use crate::image::{BrokerRegistration, MetadataImage};
use crate::java::JavaHashMap;

/// What to place (Kafka's `PlacementSpec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlacementSpec {
    /// The id of the first partition placed (the striped placer does not
    /// use it).
    pub starting_partition: i32,
    /// How many partitions to place.
    pub num_partitions: i32,
    /// Replicas per partition.
    pub replication_factor: i16,
}

/// A broker replicas may be placed on (Kafka's `UsableBroker`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsableBroker {
    /// Broker id.
    pub id: i32,
    /// Its rack, if it has one.
    pub rack: Option<String>,
    /// Whether it is fenced (it may then hold followers, never a leader).
    pub fenced: bool,
}

/// Why replicas cannot be placed: Kafka's `InvalidReplicationFactorException`
/// (error INVALID_REPLICATION_FACTOR) with its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PlacementError(pub String);

/// The random numbers placement draws: Java's `Random.nextInt(bound)`.
pub(crate) trait PlacementRandom {
    /// A number in `0..bound` (`bound` > 0).
    fn next_int(&mut self, bound: i32) -> i32;
}

/// The production [`PlacementRandom`]: SplitMix64 seeded from the
/// process's random hash keys and the clock.
#[derive(Debug, Clone)]
pub(crate) struct ThreadRandom {
    state: u64,
}

impl ThreadRandom {
    /// A generator with a fresh random seed.
    pub(crate) fn new() -> Self {
        let mut hasher = RandomState::new().build_hasher();
        if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            hasher.write_u128(d.as_nanos());
        }
        ThreadRandom {
            state: hasher.finish(),
        }
    }

    #[cfg(test)]
    /// A generator with a fixed seed.
    pub(crate) fn with_seed(seed: u64) -> Self {
        ThreadRandom { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Default for ThreadRandom {
    fn default() -> Self {
        ThreadRandom::new()
    }
}

impl PlacementRandom for ThreadRandom {
    fn next_int(&mut self, bound: i32) -> i32 {
        if bound <= 1 {
            return 0;
        }
        // Rejection sampling: uniform over 0..bound.
        let bound = bound as u64;
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let v = self.next_u64();
            if v < zone {
                return (v % bound) as i32;
            }
        }
    }
}

/// Java's `Collections.shuffle(list, random)` on a random-access list.
fn java_shuffle(items: &mut [impl Sized], random: &mut dyn PlacementRandom) {
    for i in (2..=items.len()).rev() {
        let j = random.next_int(i as i32) as usize;
        items.swap(i - 1, j);
    }
}

/// One list of brokers of a rack, iterated round robin from an offset
/// (Kafka's `BrokerList`).
#[derive(Debug, Default)]
struct BrokerList {
    brokers: Vec<i32>,
    /// How many were returned in the current epoch.
    index: usize,
    /// Added (modulo the length) to the index.
    offset: usize,
    /// The epoch of the last call; a new one restarts the iteration one
    /// further on.
    epoch: i32,
}

impl BrokerList {
    /// Sorts the brokers and draws the starting offset.
    fn initialize(&mut self, random: &mut dyn PlacementRandom) {
        if !self.brokers.is_empty() {
            self.brokers.sort_unstable();
            self.offset = random.next_int(self.brokers.len() as i32) as usize;
        }
    }

    fn shuffle(&mut self, random: &mut dyn PlacementRandom) {
        java_shuffle(&mut self.brokers, random);
    }

    /// The next broker of epoch `epoch`, or `None` once all were returned.
    fn next(&mut self, epoch: i32) -> Option<i32> {
        let n = self.brokers.len();
        if n == 0 {
            return None;
        }
        if self.epoch != epoch {
            self.epoch = epoch;
            self.index = 0;
            self.offset = (self.offset + 1) % n;
        }
        if self.index >= n {
            return None;
        }
        let broker = self.brokers[(self.index + self.offset) % n];
        self.index += 1;
        Some(broker)
    }
}

/// The brokers of one rack (Kafka's `Rack`).
#[derive(Debug, Default)]
struct Rack {
    fenced: BrokerList,
    unfenced: BrokerList,
}

impl Rack {
    fn initialize(&mut self, random: &mut dyn PlacementRandom) {
        self.fenced.initialize(random);
        self.unfenced.initialize(random);
    }

    fn shuffle(&mut self, random: &mut dyn PlacementRandom) {
        self.fenced.shuffle(random);
        self.unfenced.shuffle(random);
    }

    /// The next unfenced broker, then the next fenced one.
    fn next(&mut self, epoch: i32) -> Option<i32> {
        self.unfenced
            .next(epoch)
            .or_else(|| self.fenced.next(epoch))
    }
}

/// A rack name as a `java.util.HashMap<Optional<String>, _>` key:
/// `Optional.hashCode()` is 0 when empty, else the string's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RackKey(usize, Option<String>);

impl JavaHash for RackKey {
    fn java_hash(&self) -> i32 {
        self.1.as_deref().map_or(0, str::java_hash)
    }
}

/// Kafka's `OptionalStringComparator`: no rack first, then
/// `String.compareTo` (UTF-16 code units).
fn compare_racks(a: &Option<String>, b: &Option<String>) -> std::cmp::Ordering {
    match (a, b) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(a), Some(b)) => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

/// The racks of the usable brokers (Kafka's `RackList`).
struct RackList<'r> {
    random: &'r mut dyn PlacementRandom,
    /// The racks, in the order their names were first seen.
    racks: Vec<Rack>,
    /// Indices into `racks` in `java.util.HashMap` iteration order (the
    /// order Kafka initialises and shuffles them in).
    hash_order: Vec<usize>,
    /// Indices into `racks`: sorted by name, and later shuffled.
    names: Vec<usize>,
    total_brokers: usize,
    unfenced_brokers: usize,
    epoch: i32,
    offset: usize,
}

fn non_positive(replication_factor: i32) -> PlacementError {
    PlacementError(format!(
        "Invalid replication factor {replication_factor}: the replication factor must be positive."
    ))
}

fn all_fenced() -> PlacementError {
    PlacementError(
        "All brokers are currently fenced, or have all their log directories cordoned.".into(),
    )
}

fn too_few(replication_factor: i32, total: usize) -> PlacementError {
    PlacementError(format!(
        "The target replication factor of {replication_factor} cannot be reached because only {total} broker(s) are registered or some brokers have all their log directories cordoned."
    ))
}

impl<'r> RackList<'r> {
    fn new(random: &'r mut dyn PlacementRandom, brokers: &[UsableBroker]) -> Self {
        let mut rack_names: Vec<Option<String>> = Vec::new();
        let mut racks: Vec<Rack> = Vec::new();
        let mut keys = JavaHashMap::new();
        let (mut total, mut unfenced) = (0, 0);
        for b in brokers {
            let at = match rack_names.iter().position(|n| *n == b.rack) {
                Some(at) => at,
                None => {
                    rack_names.push(b.rack.clone());
                    racks.push(Rack::default());
                    keys.put(RackKey(racks.len() - 1, b.rack.clone()));
                    racks.len() - 1
                }
            };
            if b.fenced {
                racks[at].fenced.brokers.push(b.id);
            } else {
                unfenced += 1;
                racks[at].unfenced.brokers.push(b.id);
            }
            total += 1;
        }
        let hash_order: Vec<usize> = keys.iter().map(|k| k.0).collect();
        for i in &hash_order {
            racks[*i].initialize(random);
        }
        let mut names: Vec<usize> = (0..racks.len()).collect();
        names.sort_by(|a, b| compare_racks(&rack_names[*a], &rack_names[*b]));
        let offset = if names.is_empty() {
            0
        } else {
            random.next_int(names.len() as i32) as usize
        };
        RackList {
            random,
            racks,
            hash_order,
            names,
            total_brokers: total,
            unfenced_brokers: unfenced,
            epoch: 0,
            offset,
        }
    }

    fn shuffle(&mut self) {
        java_shuffle(&mut self.names, self.random);
        for i in &self.hash_order {
            self.racks[*i].shuffle(self.random);
        }
    }

    /// The rack at position `at` of the (sorted or shuffled) names.
    fn rack(&mut self, at: usize) -> &mut Rack {
        &mut self.racks[self.names[at]]
    }

    /// The replicas of the next partition (Kafka's `RackList.place`).
    fn place(&mut self, replication_factor: i32) -> Result<Vec<i32>, PlacementError> {
        if replication_factor <= 0 {
            return Err(non_positive(replication_factor));
        }
        if replication_factor as usize > self.total_brokers {
            return Err(too_few(replication_factor, self.total_brokers));
        }
        if self.unfenced_brokers == 0 {
            return Err(all_fenced());
        }
        // After as many partitions as there are unfenced brokers, shuffle
        // to avoid repeating the same assignments (not with a single one:
        // the epoch would never move on).
        if self.epoch as usize == self.unfenced_brokers && self.unfenced_brokers > 1 {
            self.shuffle();
            self.epoch = 0;
        }
        let n = self.names.len();
        if self.offset == n {
            self.offset = 0;
        }
        let epoch = self.epoch;
        let mut out = Vec::with_capacity(replication_factor as usize);
        // The leader: the first unfenced broker from the rack offset on.
        let mut first_rack = self.offset;
        let mut misses = 0;
        loop {
            if let Some(b) = self.rack(first_rack).unfenced.next(epoch) {
                out.push(b);
                break;
            }
            misses += 1;
            if misses > n {
                // Every rack is exhausted for this epoch: Kafka would loop
                // forever here.
                return Err(all_fenced());
            }
            first_rack = (first_rack + 1) % n;
        }
        // The followers: one per rack from the rack offset on, skipping the
        // leader's rack the first time round.
        let mut skip = Some(first_rack);
        let mut rack_index = self.offset;
        for _ in 1..replication_factor {
            let mut misses = 0;
            let broker = loop {
                let found = if skip == Some(rack_index) {
                    skip = None;
                    None
                } else {
                    self.rack(rack_index).next(epoch)
                };
                rack_index = (rack_index + 1) % n;
                if let Some(b) = found {
                    break b;
                }
                misses += 1;
                if misses > n + 1 {
                    // No rack has a broker left for this epoch: Kafka would
                    // loop forever here.
                    return Err(too_few(replication_factor, self.total_brokers));
                }
            };
            out.push(broker);
        }
        self.epoch += 1;
        self.offset += 1;
        Ok(out)
    }
}

/// Kafka's `StripedReplicaPlacer.place`: the replicas of each of
/// `spec.num_partitions` partitions, leader first, or Kafka's
/// `InvalidReplicationFactorException` message. The checks run in Kafka's
/// order: a non-positive replication factor, no unfenced broker, fewer
/// brokers than replicas.
pub(crate) fn place(
    spec: &PlacementSpec,
    brokers: &[UsableBroker],
    random: &mut dyn PlacementRandom,
) -> Result<Vec<Vec<i32>>, PlacementError> {
    let replication_factor = i32::from(spec.replication_factor);
    let mut racks = RackList::new(random, brokers);
    if replication_factor <= 0 {
        return Err(non_positive(replication_factor));
    }
    if racks.unfenced_brokers == 0 {
        return Err(all_fenced());
    }
    if replication_factor as usize > racks.total_brokers {
        return Err(too_few(replication_factor, racks.total_brokers));
    }
    let mut out = Vec::with_capacity(usize::try_from(spec.num_partitions).unwrap_or(0));
    for _ in 0..spec.num_partitions {
        out.push(racks.place(replication_factor)?);
    }
    Ok(out)
}

/// Kafka's `BrokerRegistration.hasUncordonedDirs`: no directories, no
/// cordoned list yet, or a directory not cordoned.
fn has_uncordoned_directories(b: &BrokerRegistration) -> bool {
    match b.cordoned_directories() {
        None => true,
        Some(cordoned) => {
            b.directories().is_empty() || b.directories().iter().any(|d| !cordoned.contains(d))
        }
    }
}

/// The brokers new replicas may be placed on (Kafka's
/// `ClusterControlManager.usableBrokers`): every registered broker except
/// those shutting down and those whose log directories are all cordoned;
/// fenced ones are included (marked fenced). `shutting_down` says whether
/// a broker is in controlled shutdown as the active controller's heartbeat
/// states see it (Kafka asks its `BrokerHeartbeatManager`). Ordered by id.
pub(crate) fn usable_brokers_with(
    image: &MetadataImage,
    shutting_down: impl Fn(i32) -> bool,
) -> Vec<UsableBroker> {
    image
        .cluster()
        .brokers()
        .filter(|b| !shutting_down(b.id()) && has_uncordoned_directories(b))
        .map(|b| UsableBroker {
            id: b.id(),
            rack: b.rack().map(str::to_string),
            fenced: b.fenced(),
        })
        .collect()
}

/// [`usable_brokers_with`], taking a broker's controlled shutdown from its
/// registration (`in_controlled_shutdown`).
pub(crate) fn usable_brokers(image: &MetadataImage) -> Vec<UsableBroker> {
    usable_brokers_with(image, |id| {
        image
            .cluster()
            .broker(id)
            .is_some_and(BrokerRegistration::in_controlled_shutdown)
    })
}

/// The directory a new replica on `broker` is assigned to (Kafka's
/// `KRaftClusterDescriber.defaultDir` / `ClusterControlManager.defaultDir`):
/// MIGRATING below directory assignment (3.7-IV2) and for a broker that
/// registered no directories; UNASSIGNED for a broker not registered or
/// with several directories (the broker picks one); its directory when it
/// has exactly one. Cordoned directories are not excluded (Kafka 4.4 does
/// not).
pub(crate) fn default_directory(image: &MetadataImage, broker: i32) -> Uuid {
    let supported = image
        .metadata_version()
        .is_some_and(|mv| mv.is_directory_assignment_supported());
    if !supported {
        return MIGRATING;
    }
    let Some(registration) = image.cluster().broker(broker) else {
        return UNASSIGNED;
    };
    match registration.directories() {
        [] => MIGRATING,
        [only] => *only,
        _ => UNASSIGNED,
    }
}

#[cfg(test)]
#[path = "placer_tests.rs"]
mod tests;
