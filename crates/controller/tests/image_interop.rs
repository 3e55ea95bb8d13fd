//! The metadata image against Kafka 4.4 itself (issue 13 item 3).
//!
//! `tests/interop/image-interop.sh generate DIR` has Kafka's own classes
//! write a rich metadata history twice: `kafka-log.log`, the delta records
//! in record batches as they are in the metadata log (with a committed and
//! an aborted metadata transaction), and `kafka-snapshot.checkpoint`, the
//! image Kafka's `MetadataBatchLoader` built from that log, written by
//! `MetadataImage.write` through Kafka's `RecordsSnapshotWriter`.
//!
//! This test loads both into kraft-rs images, checks they are writable and
//! equal, and writes each back as a snapshot (`ours-from-snapshot.checkpoint`,
//! `ours-from-log.checkpoint`); `image-interop.sh compare DIR` then has Kafka
//! load ours and compare with its own.
//!
//! With `KRAFT_IMAGE_INTEROP_DIR` set, DIR is that directory and our
//! snapshots are written into it (`cargo xtask image-interop` does that).
//! Without it, the test runs on the committed Kafka output in
//! `tests/data/image/`, writes ours to a temporary directory, and also
//! checks that our snapshot re-loads to an equal image and holds, per record
//! type and version, as many records as Kafka's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_controller::image::{ControllerRegistration, MetadataImage, MetadataRecord};
use kraft_protocol::records::batches;
use kraft_raft::codec::decode_batch;
use kraft_raft::storage::{decode_snapshot, encode_snapshot};
use kraft_raft::{ControlRecord, Record, SnapshotControl};

const ENV: &str = "KRAFT_IMAGE_INTEROP_DIR";
/// Largest data batch of our snapshots (Kafka's writer used 4 KiB too).
const MAX_BATCH: usize = 4096;

/// `image-info.properties`: the snapshot id and the end of the log.
struct Info {
    snapshot_epoch: i32,
    log_last_offset: i64,
}

fn read_info(dir: &Path) -> Info {
    let text = std::fs::read_to_string(dir.join("image-info.properties"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("image-info.properties").display()));
    let props: BTreeMap<&str, &str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('='))
        .collect();
    let get = |k: &str| -> i64 {
        props
            .get(k)
            .unwrap_or_else(|| panic!("image-info.properties lacks {k}"))
            .parse()
            .unwrap()
    };
    let info = Info {
        snapshot_epoch: i32::try_from(get("snapshot.epoch")).unwrap(),
        log_last_offset: get("log.last.offset"),
    };
    assert_eq!(get("snapshot.end.offset"), info.log_last_offset + 1);
    info
}

fn read(path: &Path) -> Bytes {
    Bytes::from(std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Kafka's snapshot → our image (as the node loads a snapshot).
fn image_from_snapshot(bytes: Bytes, last_offset: i64) -> (MetadataImage, Vec<Bytes>, i64) {
    let contents = decode_snapshot(bytes).expect("decode the snapshot");
    let mut image = MetadataImage::from_snapshot_values(contents.records.clone(), last_offset)
        .expect("replay the snapshot");
    image.set_kraft_version(contents.control.kraft_version.unwrap_or(0));
    (
        image,
        contents.records,
        contents.last_contained_log_timestamp,
    )
}

/// Kafka's log → our image: every data record of every batch replayed at
/// its offset, control records as the raft layer reads them.
fn image_from_log(bytes: Bytes) -> MetadataImage {
    let mut image = MetadataImage::new();
    let mut iter = batches(bytes);
    for raw in iter.by_ref() {
        let batch = decode_batch(&raw.expect("a whole batch")).expect("decode a batch");
        let mut offset = batch.base_offset;
        for record in batch.records {
            match record {
                Record::Data(value) => image
                    .replay_value(value, offset)
                    .unwrap_or_else(|e| panic!("replay offset {offset}: {e}")),
                Record::Control(ControlRecord::KRaftVersion(k)) => image.set_kraft_version(k),
                Record::Control(_) => {}
            }
            offset += 1;
        }
        image.set_last_offset(offset - 1);
    }
    assert!(
        iter.partial_tail().is_none(),
        "the log ends in a partial batch"
    );
    image
}

/// Asserts two images are equal, part by part (for a readable failure).
///
/// kraft-rs's `FeaturesImage` keeps the finalized features in the order they
/// were first set, and its `PartialEq` compares that order; Kafka's is a map.
/// An image from the log and one from Kafka's snapshot (written in Java
/// `HashMap` order) hold the same features in different orders; likewise
/// controller endpoints and features (see [`controllers`]). So unless
/// `strict`, those are compared as sets and the whole-image `==` is skipped.
fn assert_same(what: &str, a: &MetadataImage, b: &MetadataImage, strict: bool) {
    assert_eq!(
        a.metadata_version(),
        b.metadata_version(),
        "{what}: metadata.version"
    );
    let sorted = |i: &MetadataImage| {
        let mut f = i.finalized_features().to_vec();
        f.sort();
        f
    };
    assert_eq!(sorted(a), sorted(b), "{what}: finalized features");
    assert_eq!(
        a.kraft_version(),
        b.kraft_version(),
        "{what}: kraft.version"
    );
    let brokers = |i: &MetadataImage| i.cluster().brokers().cloned().collect::<Vec<_>>();
    assert_eq!(brokers(a), brokers(b), "{what}: brokers");
    assert_eq!(controllers(a), controllers(b), "{what}: controllers");
    assert_eq!(a.topics(), b.topics(), "{what}: topics");
    assert_eq!(a.configs(), b.configs(), "{what}: configs");
    assert_eq!(
        a.client_quotas(),
        b.client_quotas(),
        "{what}: client quotas"
    );
    assert_eq!(a.producer_ids(), b.producer_ids(), "{what}: producer ids");
    assert_eq!(a.acls(), b.acls(), "{what}: acls");
    assert_eq!(a.scram(), b.scram(), "{what}: scram");
    assert_eq!(
        a.delegation_tokens(),
        b.delegation_tokens(),
        "{what}: delegation tokens"
    );
    assert_eq!(a.last_offset(), b.last_offset(), "{what}: last offset");
    if strict {
        assert_eq!(a.features(), b.features(), "{what}: features");
        assert_eq!(a.cluster(), b.cluster(), "{what}: cluster");
        assert!(a == b, "{what}: the images differ");
    }
}

/// The controller registrations with endpoints and features sorted by name:
/// kraft-rs keeps them in record order (a `Vec`), Kafka in maps, so Kafka's
/// snapshot (Java `HashMap` order) and the log can list them differently.
fn controllers(i: &MetadataImage) -> Vec<ControllerRegistration> {
    i.controllers()
        .map(|c| {
            let mut c = c.clone();
            c.endpoints.sort_by(|x, y| x.name.cmp(&y.name));
            c.supported_features.sort_by(|x, y| x.0.cmp(&y.0));
            c
        })
        .collect()
}

/// Records per (type name, version).
fn per_type(values: &[Bytes]) -> BTreeMap<(String, i16), usize> {
    let mut out = BTreeMap::new();
    for v in values {
        let r = MetadataRecord::decode(v.clone()).expect("decode a record");
        *out.entry((r.record_type().name().to_string(), r.version))
            .or_default() += 1;
    }
    out
}

/// Writes `image` as a snapshot at `path`; returns what was written.
fn write_snapshot(
    path: &Path,
    image: &MetadataImage,
    info: &Info,
    timestamp: i64,
) -> (Bytes, Vec<Bytes>) {
    if let Some(e) = image.unwritable() {
        panic!("{}: the image is not writable: {e}", path.display());
    }
    let values = image.to_values().expect("write the image");
    let control = SnapshotControl {
        voters: None,
        kraft_version: Some(image.kraft_version()),
    };
    let bytes = encode_snapshot(
        info.snapshot_epoch,
        timestamp,
        &control,
        values.clone(),
        MAX_BATCH,
    );
    std::fs::write(path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (Bytes::from(bytes), values)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/image")
}

#[test]
fn kafka_image_round_trips() {
    let (dir, out) = match std::env::var_os(ENV) {
        Some(d) => (PathBuf::from(&d), PathBuf::from(d)),
        None => {
            let out =
                std::env::temp_dir().join(format!("kraft-image-interop-{}", std::process::id()));
            std::fs::create_dir_all(&out).unwrap();
            (fixtures(), out)
        }
    };
    let info = read_info(&dir);

    let (from_snapshot, kafka_values, timestamp) = image_from_snapshot(
        read(&dir.join("kafka-snapshot.checkpoint")),
        info.log_last_offset,
    );
    let from_log = image_from_log(read(&dir.join("kafka-log.log")));

    assert_eq!(from_log.open_transaction(), None);
    assert_eq!(from_log.last_offset(), info.log_last_offset);
    assert_eq!(from_snapshot.kraft_version(), 1);
    // Every record understood: nothing would be lost by writing.
    assert!(
        from_snapshot.unwritable().is_none(),
        "{:?}",
        from_snapshot.unwritable()
    );
    assert!(
        from_log.unwritable().is_none(),
        "{:?}",
        from_log.unwritable()
    );
    // The log (with its aborted transaction) gives Kafka's image.
    assert_same("snapshot vs log", &from_snapshot, &from_log, false);
    assert!(
        from_log.topics().topic_by_name("aborted-topic").is_none(),
        "the aborted transaction leaked into the image"
    );

    let kafka_counts = per_type(&kafka_values);
    for (name, image) in [
        ("ours-from-snapshot.checkpoint", &from_snapshot),
        ("ours-from-log.checkpoint", &from_log),
    ] {
        let path = out.join(name);
        let (bytes, values) = write_snapshot(&path, image, &info, timestamp);
        // Ours re-loads to the same image ...
        let (reloaded, reloaded_values, reloaded_ts) =
            image_from_snapshot(bytes, info.log_last_offset);
        assert_eq!(reloaded_values, values);
        assert_eq!(reloaded_ts, timestamp);
        assert_same(&format!("{name} re-loaded"), image, &reloaded, true);
        // ... and holds as many records of each type and version as Kafka's.
        assert_eq!(per_type(&values), kafka_counts, "{name}: records per type");
        // The first record sets metadata.version, as in Kafka's.
        assert_eq!(values.first(), kafka_values.first(), "{name}: first record");
        eprintln!(
            "image_interop: wrote {} ({} records)",
            path.display(),
            values.len()
        );
    }
    if std::env::var_os(ENV).is_none() {
        std::fs::remove_dir_all(&out).unwrap();
    }
}
