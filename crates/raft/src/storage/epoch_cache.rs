//! Leader epoch → start offset cache (Kafka's `LeaderEpochFileCache`).

use crate::core::types::OffsetAndEpoch;

/// For each leader epoch present in the log, the offset of its first batch,
/// in increasing epoch (and offset) order. Derived from the batches'
/// `partitionLeaderEpoch`, so it is rebuilt from the segments at start-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochCache {
    entries: Vec<(i32, i64)>,
}

impl EpochCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `(epoch, start offset)` entries in increasing order.
    pub fn entries(&self) -> &[(i32, i64)] {
        &self.entries
    }

    /// The latest epoch, if any.
    pub fn latest_epoch(&self) -> Option<i32> {
        self.entries.last().map(|(e, _)| *e)
    }

    /// Records that `epoch` starts at `start_offset` (Kafka's `assign`):
    /// nothing happens if it is already the latest entry at an offset no
    /// higher; otherwise entries with an epoch `>= epoch` or a start offset
    /// `>= start_offset` are dropped first, keeping the cache monotonic.
    /// Negative epochs or offsets are ignored.
    pub fn assign(&mut self, epoch: i32, start_offset: i64) {
        if epoch < 0 || start_offset < 0 {
            return;
        }
        if let Some(&(last_epoch, last_start)) = self.entries.last() {
            if last_epoch == epoch && start_offset >= last_start {
                return;
            }
        }
        self.entries.retain(|&(e, s)| e < epoch && s < start_offset);
        self.entries.push((epoch, start_offset));
    }

    /// Drops every entry whose start offset is `>= end_offset` (after a log
    /// truncation to `end_offset`).
    pub fn truncate_from_end(&mut self, end_offset: i64) {
        self.entries.retain(|&(_, s)| s < end_offset);
    }

    /// Drops entries wholly below `start_offset` (after the log start moved):
    /// the latest entry starting at or below it is kept, moved to `start_offset`.
    pub fn truncate_from_start(&mut self, start_offset: i64) {
        let below = self
            .entries
            .iter()
            .take_while(|&&(_, s)| s <= start_offset)
            .count();
        if below == 0 {
            return;
        }
        let (epoch, _) = self.entries[below - 1];
        self.entries.drain(..below - 1);
        self.entries[0] = (epoch, start_offset);
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Kafka's `endOffsetFor(requestedEpoch, logEndOffset)`: for the latest
    /// epoch, `(log_end_offset, epoch)`; otherwise the start offset of the
    /// first epoch above `requested`, paired with the largest epoch `<=
    /// requested` (or `requested` itself when there is none). `None` when
    /// `requested` is negative or newer than every epoch.
    pub fn end_offset_for(&self, requested: i32, log_end_offset: i64) -> Option<OffsetAndEpoch> {
        if requested < 0 {
            return None;
        }
        if self.latest_epoch() == Some(requested) {
            return Some(OffsetAndEpoch::new(log_end_offset, requested));
        }
        let &(_, higher_start) = self.entries.iter().find(|&&(e, _)| e > requested)?;
        let floor_epoch = self
            .entries
            .iter()
            .rev()
            .find(|&&(e, _)| e <= requested)
            .map_or(requested, |&(e, _)| e);
        Some(OffsetAndEpoch::new(higher_start, floor_epoch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(entries: &[(i32, i64)]) -> EpochCache {
        let mut c = EpochCache::new();
        for &(e, s) in entries {
            c.assign(e, s);
        }
        c
    }

    #[test]
    fn end_offset_for_matches_kafka() {
        let c = cache(&[(1, 0), (3, 10), (6, 25)]);
        let oe = OffsetAndEpoch::new;
        assert_eq!(c.end_offset_for(6, 40), Some(oe(40, 6)));
        assert_eq!(c.end_offset_for(3, 40), Some(oe(25, 3)));
        assert_eq!(c.end_offset_for(4, 40), Some(oe(25, 3)));
        assert_eq!(c.end_offset_for(1, 40), Some(oe(10, 1)));
        assert_eq!(c.end_offset_for(2, 40), Some(oe(10, 1)));
        assert_eq!(c.end_offset_for(0, 40), Some(oe(0, 0)));
        assert_eq!(c.end_offset_for(7, 40), None);
        assert_eq!(c.end_offset_for(-1, 40), None);
        assert_eq!(EpochCache::new().end_offset_for(0, 0), None);
    }

    #[test]
    fn assign_keeps_monotonic() {
        let mut c = cache(&[(1, 0), (3, 10)]);
        c.assign(3, 12); // same epoch, later offset: no-op
        assert_eq!(c.entries(), &[(1, 0), (3, 10)]);
        c.assign(2, 5); // drops entries with epoch >= 2
        assert_eq!(c.entries(), &[(1, 0), (2, 5)]);
        c.assign(4, 3); // drops entries starting at >= 3
        assert_eq!(c.entries(), &[(1, 0), (4, 3)]);
    }

    #[test]
    fn truncation() {
        let mut c = cache(&[(1, 0), (3, 10), (6, 25)]);
        c.truncate_from_end(25);
        assert_eq!(c.entries(), &[(1, 0), (3, 10)]);
        let mut c = cache(&[(1, 0), (3, 10), (6, 25)]);
        c.truncate_from_start(12);
        assert_eq!(c.entries(), &[(3, 12), (6, 25)]);
        c.truncate_from_start(5);
        assert_eq!(c.entries(), &[(3, 12), (6, 25)]);
        c.truncate_from_start(25);
        assert_eq!(c.entries(), &[(6, 25)]);
    }
}
