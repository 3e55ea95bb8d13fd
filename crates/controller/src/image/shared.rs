//! The shared image: the raft driver applies committed records and
//! snapshots to it, the request handlers read it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};

use bytes::Bytes;

use super::{CommittedRecordError, ElectionTally, MetadataImage, ReplayError};

/// The image shared between the raft driver (which applies committed
/// records) and the request handlers (which read it). Cloning shares it.
///
/// It also carries whether the image is **loaded**: a started controller's
/// image is empty until the committed part of its snapshot and log has been
/// replayed (Kafka's `MetadataLoader` has not published yet), and requests
/// answered from the image must not be answered from an image that is not
/// loaded. [`SharedImage::new`] and [`SharedImage::from_image`] are loaded
/// (they hold what they hold); [`SharedImage::unloaded`] is not, until
/// [`SharedImage::mark_loaded`].
#[derive(Debug, Clone)]
pub struct SharedImage {
    image: Arc<RwLock<MetadataImage>>,
    loaded: Arc<AtomicBool>,
    /// Woken when the image becomes loaded.
    loaded_signal: Arc<tokio::sync::Notify>,
}

impl Default for SharedImage {
    fn default() -> Self {
        SharedImage::new()
    }
}

impl SharedImage {
    /// A shared empty image, marked loaded.
    pub fn new() -> Self {
        SharedImage::from_image(MetadataImage::new())
    }

    /// Shares `image`, marked loaded.
    pub fn from_image(image: MetadataImage) -> Self {
        SharedImage {
            image: Arc::new(RwLock::new(image)),
            loaded: Arc::new(AtomicBool::new(true)),
            loaded_signal: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// A shared empty image that is not loaded yet: what a controller
    /// starts with before it has replayed its committed snapshot and log.
    pub fn unloaded() -> Self {
        SharedImage {
            image: Arc::new(RwLock::new(MetadataImage::new())),
            loaded: Arc::new(AtomicBool::new(false)),
            loaded_signal: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// Whether the image holds the committed state this node knew of when
    /// it started (see [`SharedImage::mark_loaded`]).
    pub fn is_loaded(&self) -> bool {
        self.loaded.load(Ordering::Acquire)
    }

    /// Marks the image loaded: everything committed up to the first high
    /// watermark the raft layer learned since start-up has been applied.
    /// It stays loaded from then on (a follower that trails the leader by a
    /// few records answers from its image, as a Kafka controller does).
    pub fn mark_loaded(&self) {
        self.loaded.store(true, Ordering::Release);
        self.loaded_signal.notify_waiters();
    }

    /// Marks the image not loaded again (tests of a starting node).
    #[cfg(test)]
    pub(crate) fn set_unloaded_for_test(&self) {
        self.loaded.store(false, Ordering::Release);
    }

    /// Resolves once the image is loaded (at once if it is).
    pub async fn wait_until_loaded(&self) {
        loop {
            let notified = self.loaded_signal.notified();
            if self.is_loaded() {
                return;
            }
            notified.await;
        }
    }

    /// Read access. (A panic while the lock was held cannot leave the image
    /// half-updated in a way that matters more than losing it, so a
    /// poisoned lock is used as is.)
    pub fn read(&self) -> RwLockReadGuard<'_, MetadataImage> {
        self.image.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the current image.
    pub fn snapshot(&self) -> MetadataImage {
        self.read().clone()
    }

    /// Runs `f` with write access.
    pub fn update<R>(&self, f: impl FnOnce(&mut MetadataImage) -> R) -> R {
        let mut guard = self.image.write().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }

    /// Applies committed records: `(offset, framed value)` pairs in log order.
    /// Stops at the first record that cannot be replayed and names it; the
    /// records before it stay applied (the caller must stop: the image no
    /// longer matches the log).
    ///
    /// Returns the leader elections the records applied.
    pub fn apply_committed<I>(&self, records: I) -> Result<ElectionTally, CommittedRecordError>
    where
        I: IntoIterator<Item = (i64, Bytes)>,
    {
        self.update(|image| {
            let before = image.elections.0;
            for (offset, value) in records {
                if let Err(e) = image.replay_value(value.clone(), offset) {
                    return Err(CommittedRecordError::new(&value, offset, e));
                }
            }
            Ok(image.elections.0.since(before))
        })
    }

    /// Replaces the image with one loaded from a snapshot's framed record
    /// values, whose last contained offset is `last_offset`.
    pub fn load_snapshot(
        &self,
        values: Vec<Bytes>,
        last_offset: i64,
        kraft_version: i16,
    ) -> Result<(), ReplayError> {
        let mut image = MetadataImage::from_snapshot_values(values, last_offset)?;
        image.set_kraft_version(kraft_version);
        self.update(|i| *i = image);
        Ok(())
    }
}
