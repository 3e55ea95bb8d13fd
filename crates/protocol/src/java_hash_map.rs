//! `java.util.HashMap` iteration order, which leaks into Kafka's bytes and
//! output.
//!
//! Kafka builds several wire and on-disk structures by iterating a
//! `java.util.HashMap` (the features of an ApiVersions response, the voters
//! of a VotersRecord, the controllers of a DescribeCluster answer, ...). The
//! order of such an iteration is a function of the keys' hash codes, the
//! table capacity and, for keys sharing a bucket, the insertion order.
//! [`JavaHashMap`] reproduces that order exactly (treeified buckets, which
//! need 8 colliding keys in a table of at least 64, are not modelled: they
//! never occur in Kafka's metadata structures).

/// A key with a Java `hashCode()`.
pub trait JavaHash {
    /// The value Java's `hashCode()` returns for the equivalent Java object.
    fn java_hash(&self) -> i32;
}

impl JavaHash for str {
    /// `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units.
    fn java_hash(&self) -> i32 {
        self.encode_utf16()
            .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
    }
}

impl JavaHash for String {
    fn java_hash(&self) -> i32 {
        self.as_str().java_hash()
    }
}

impl JavaHash for i32 {
    /// `Integer.hashCode()` is the value itself.
    fn java_hash(&self) -> i32 {
        *self
    }
}

const MAXIMUM_CAPACITY: usize = 1 << 30;
const LOAD_FACTOR: f32 = 0.75;

/// `HashMap.hash()`: the hash code with its high half folded into the low half.
fn spread(h: i32) -> usize {
    let h = h as u32;
    (h ^ (h >> 16)) as usize
}

/// `HashMap.tableSizeFor()`: the smallest power of two `>= cap` (at least 1).
fn table_size_for(cap: usize) -> usize {
    if cap <= 1 {
        1
    } else {
        cap.next_power_of_two().min(MAXIMUM_CAPACITY)
    }
}

impl<K: JavaHash + PartialEq + Clone> Default for JavaHashMap<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// The key set of a `java.util.HashMap`, tracking exactly what determines its
/// iteration order (values are irrelevant to the order and not stored).
#[derive(Debug, Clone)]
pub struct JavaHashMap<K> {
    table: Option<Vec<Vec<K>>>,
    threshold: usize,
    size: usize,
}

impl<K: JavaHash + PartialEq + Clone> JavaHashMap<K> {
    /// `new HashMap<>()`.
    pub fn new() -> Self {
        JavaHashMap {
            table: None,
            threshold: 0,
            size: 0,
        }
    }

    /// `new HashMap<>(initialCapacity)`.
    pub fn with_capacity(initial_capacity: usize) -> Self {
        JavaHashMap {
            table: None,
            threshold: table_size_for(initial_capacity),
            size: 0,
        }
    }

    /// `new HashMap<>(other)`: sized for `other`, then filled in `other`'s
    /// iteration order.
    pub fn copy_of(other: &JavaHashMap<K>) -> Self {
        let mut map = Self::new();
        let s = other.size;
        if s > 0 {
            let ft = s as f32 / LOAD_FACTOR + 1.0;
            let t = ft as usize;
            if t > map.threshold {
                map.threshold = table_size_for(t);
            }
        }
        for k in other.iter() {
            map.put(k.clone());
        }
        map
    }

    /// A default map with `keys` put in the given order.
    pub fn from_keys<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let mut map = Self::new();
        for k in keys {
            map.put(k);
        }
        map
    }

    /// `put(key, ...)`: a new key goes to the tail of its bucket; an existing
    /// key keeps its place.
    pub fn put(&mut self, key: K) {
        if self.table.is_none() {
            self.resize();
        }
        let Some(table) = self.table.as_mut() else {
            return;
        };
        let n = table.len();
        let bucket = &mut table[(n - 1) & spread(key.java_hash())];
        if bucket.contains(&key) {
            return;
        }
        bucket.push(key);
        self.size += 1;
        if self.size > self.threshold {
            self.resize();
        }
    }

    /// `remove(key)`.
    pub fn remove(&mut self, key: &K) {
        if let Some(table) = self.table.as_mut() {
            let n = table.len();
            let bucket = &mut table[(n - 1) & spread(key.java_hash())];
            if let Some(pos) = bucket.iter().position(|k| k == key) {
                bucket.remove(pos);
                self.size -= 1;
            }
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether the map has no keys.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Keys in Java's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.table
            .iter()
            .flat_map(|t| t.iter().flat_map(|b| b.iter()))
    }

    /// `HashMap.resize()`. Re-inserting the keys in the old iteration order
    /// is equivalent to Java's lo/hi split, which preserves relative order.
    fn resize(&mut self) {
        let old_cap = self.table.as_ref().map_or(0, Vec::len);
        let old_thr = self.threshold;
        let (new_cap, mut new_thr) = if old_cap > 0 {
            if old_cap >= MAXIMUM_CAPACITY {
                self.threshold = usize::MAX;
                return;
            }
            let new_cap = old_cap << 1;
            let thr = if new_cap < MAXIMUM_CAPACITY && old_cap >= 16 {
                old_thr << 1
            } else {
                0
            };
            (new_cap, thr)
        } else if old_thr > 0 {
            (old_thr, 0)
        } else {
            (16, 12)
        };
        if new_thr == 0 {
            new_thr = (new_cap as f32 * LOAD_FACTOR) as usize;
        }
        self.threshold = new_thr;
        let mut table: Vec<Vec<K>> = vec![Vec::new(); new_cap];
        if let Some(old) = self.table.take() {
            for k in old.into_iter().flatten() {
                let i = (new_cap - 1) & spread(k.java_hash());
                table[i].push(k);
            }
        }
        self.table = Some(table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_codes_match_java() {
        // Values a JVM prints for "".hashCode(), "a".hashCode(), "hello".hashCode().
        assert_eq!("".java_hash(), 0);
        assert_eq!("a".java_hash(), 97);
        assert_eq!("hello".java_hash(), 99_162_322);
    }

    /// Bucket indexes printed by a JVM for `(h ^ h >>> 16) & 15` (see the
    /// compatibility notes in tests/data/README.md).
    #[test]
    fn feature_names_land_in_javas_buckets() {
        let b = |s: &str| spread(s.java_hash()) & 15;
        assert_eq!(b("metadata.version"), 7);
        assert_eq!(b("kraft.version"), 5);
        assert_eq!(b("transaction.version"), 10);
        assert_eq!(b("group.version"), 0);
        assert_eq!(b("eligible.leader.replicas.version"), 12);
        assert_eq!(b("share.version"), 7);
        assert_eq!(b("streams.version"), 8);
    }

    #[test]
    fn hashmap_orders_by_bucket_then_insertion() {
        let m = JavaHashMap::from_keys(
            [
                "share.version",
                "metadata.version",
                "group.version",
                "kraft.version",
            ]
            .map(String::from),
        );
        let order: Vec<&str> = m.iter().map(String::as_str).collect();
        assert_eq!(
            order,
            [
                "group.version",
                "kraft.version",
                "share.version",
                "metadata.version"
            ]
        );
        let mut m = JavaHashMap::from_keys(["metadata.version", "share.version"].map(String::from));
        m.remove(&"metadata.version".to_string());
        m.put("metadata.version".to_string());
        let order: Vec<&str> = m.iter().map(String::as_str).collect();
        assert_eq!(order, ["share.version", "metadata.version"]);
    }

    #[test]
    fn integer_keys_wrap_around_the_table() {
        // 1 and 17 share bucket 1 of a 16-slot table: insertion order decides.
        let m = JavaHashMap::from_keys([17, 2, 1]);
        assert_eq!(m.iter().copied().collect::<Vec<_>>(), [17, 1, 2]);
        let m = JavaHashMap::from_keys([1, 2, 17]);
        assert_eq!(m.iter().copied().collect::<Vec<_>>(), [1, 17, 2]);
        // 13 keys force a resize to 32 slots: 17 moves to its own bucket.
        let m = JavaHashMap::from_keys((0..12).chain([17]));
        let v: Vec<i32> = m.iter().copied().collect();
        assert_eq!(v, (0..12).chain([17]).collect::<Vec<_>>());
        assert_eq!(m.len(), 13);
    }

    #[test]
    fn copy_constructor_sizes_small_tables() {
        // 3 entries copied: capacity tableSizeFor(5) = 8.
        let src = JavaHashMap::from_keys([9, 1, 2]);
        assert_eq!(src.iter().copied().collect::<Vec<_>>(), [1, 2, 9]);
        let copy = JavaHashMap::copy_of(&src);
        // In an 8-slot table 9 shares bucket 1 with 1 and comes after it.
        assert_eq!(copy.iter().copied().collect::<Vec<_>>(), [1, 9, 2]);
    }
}
