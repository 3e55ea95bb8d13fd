//! `kraft storage format` against the output of Kafka 4.4.0's
//! `kafka-storage format` (golden data in tests/data/format, made by
//! tests/data/format/generate.sh).
//!
//! Compared byte for byte after normalisation: the checkpoint with batch
//! timestamps and the SnapshotHeader's LastContainedLogTimestamp set to 0
//! (CRCs recomputed) and, where Kafka drew them at random, directory ids
//! zeroed; `meta.properties` key order and values except the date line and
//! random directory ids; the tool's stdout.

use std::path::Path;

use bytes::Bytes;
use kraft_controller::config::ControllerConfig;
use kraft_controller::format::{
    format, info, DirectoryKind, FormatError, FormatOptions, InitialQuorum, MetaProperties,
    BOOTSTRAP_CHECKPOINT, CLUSTER_METADATA_DIR, META_PROPERTIES,
};
use kraft_controller::image::MetadataRecord;
use kraft_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use kraft_protocol::messages::voters_record::VotersRecord;
use kraft_protocol::records::{batches, ControlRecordType, NewRecord, RecordBatchBuilder};
use kraft_protocol::text::Properties;
use kraft_protocol::{Message, MetadataRecordBody, Uuid};

use crate::common::{data_dir, files_below, TempDir};

fn config_for(text: &str, dir: &Path) -> ControllerConfig {
    let text = text.replace("@DIR@", dir.to_str().unwrap());
    ControllerConfig::parse(&Properties::parse(&text).unwrap())
        .unwrap()
        .0
}

fn options(config: ControllerConfig, args: &[&str]) -> FormatOptions {
    let mut opts = FormatOptions {
        config,
        cluster_id: String::new(),
        release_version: None,
        features: Vec::new(),
        ignore_formatted: false,
        initial_quorum: InitialQuorum::Unspecified,
        add_scram: Vec::new(),
        now_ms: Some(1_700_000_000_000),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().unwrap().to_string();
        match *a {
            "--cluster-id" => opts.cluster_id = value(),
            "--release-version" => opts.release_version = Some(value()),
            "--feature" => opts.features.push(value()),
            "--initial-controllers" => {
                opts.initial_quorum = InitialQuorum::InitialControllers(value())
            }
            "--standalone" => opts.initial_quorum = InitialQuorum::Standalone,
            "--no-initial-controllers" => opts.initial_quorum = InitialQuorum::NoInitialControllers,
            "--ignore-formatted" => opts.ignore_formatted = true,
            "--add-scram" | "-S" => opts.add_scram.push(value()),
            other => panic!("unexpected argument {other}"),
        }
    }
    opts
}

/// Rewrites a snapshot with zero timestamps (and optionally zero directory ids).
fn normalize_checkpoint(bytes: &[u8], zero_directory_ids: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut it = batches(Bytes::copy_from_slice(bytes));
    for batch in it.by_ref() {
        let batch = batch.unwrap();
        let mut owned: Vec<(Option<Bytes>, Option<Vec<u8>>, i64)> = Vec::new();
        for r in batch.records().unwrap() {
            let r = r.unwrap();
            let mut value = r.value.as_ref().map(|v| v.to_vec());
            if batch.is_control() {
                match r.control_type().unwrap() {
                    ControlRecordType::SnapshotHeader => {
                        let mut h = SnapshotHeaderRecord::decode_exact(r.value.clone().unwrap(), 0)
                            .unwrap();
                        h.last_contained_log_timestamp = 0;
                        value = Some(h.encode_to_vec(0).unwrap());
                    }
                    ControlRecordType::KRaftVoters if zero_directory_ids => {
                        let mut v =
                            VotersRecord::decode_exact(r.value.clone().unwrap(), 0).unwrap();
                        for voter in &mut v.voters {
                            voter.voter_directory_id = Uuid::nil();
                        }
                        value = Some(v.encode_to_vec(0).unwrap());
                    }
                    _ => {}
                }
            }
            owned.push((r.key.clone(), value, r.timestamp_delta));
        }
        let mut b = if batch.is_control() {
            RecordBatchBuilder::new_control(batch.base_offset(), batch.partition_leader_epoch(), 0)
        } else {
            RecordBatchBuilder::new(batch.base_offset(), batch.partition_leader_epoch(), 0)
        };
        for (k, v, ts) in &owned {
            b.push(NewRecord::new(k.as_deref(), v.as_deref()).with_timestamp_delta(*ts));
        }
        b.write_to(&mut out);
    }
    assert!(it.partial_tail().is_none(), "trailing partial batch");
    out
}

fn meta_keys(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('=').next().unwrap().to_string())
        .collect()
}

fn run_scenario(name: &str) {
    let src = data_dir().join("format").join(name);
    let tmp = TempDir::new(name);
    let server = std::fs::read_to_string(src.join("server.properties")).unwrap();
    let args_text = std::fs::read_to_string(src.join("args")).unwrap();
    let args: Vec<&str> = args_text.lines().collect();
    let opts = options(config_for(&server, tmp.path()), &args);
    let standalone = opts.initial_quorum == InitialQuorum::Standalone;
    let report = format(&opts).unwrap();

    // stdout: the bootstrap line exactly, the per-directory lines as a set
    // (Kafka's order depends on the directory paths; see the unit test of
    // the write order for the golden paths).
    let dir = tmp.path().to_str().unwrap();
    let got: Vec<String> = report
        .output
        .iter()
        .map(|l| l.replace(dir, "@DIR@"))
        .collect();
    let expected_text = std::fs::read_to_string(src.join("stdout.txt")).unwrap();
    let expected: Vec<String> = expected_text.lines().map(str::to_string).collect();
    assert_eq!(got[0], expected[0], "{name}: bootstrap line");
    let mut g = got[1..].to_vec();
    let mut e = expected[1..].to_vec();
    g.sort();
    e.sort();
    assert_eq!(g, e, "{name}: formatting lines");

    // the same files, nothing else (no .tmp / .part left behind)
    let golden_root = src.join("out");
    let files = files_below(tmp.path());
    assert_eq!(files, files_below(&golden_root), "{name}: files written");

    for f in &files {
        let mine = std::fs::read(tmp.path().join(f)).unwrap();
        let theirs = std::fs::read(golden_root.join(f)).unwrap();
        if f.ends_with(BOOTSTRAP_CHECKPOINT) {
            assert_eq!(
                normalize_checkpoint(&mine, standalone),
                normalize_checkpoint(&theirs, standalone),
                "{name}: {}",
                f.display()
            );
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(tmp.path().join(f))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(
                    mode & 0o777,
                    0o400,
                    "{name}: checkpoint is read-only like Kafka's"
                );
            }
        } else if f.ends_with(META_PROPERTIES) {
            let mine_text = String::from_utf8(mine).unwrap();
            let theirs_text = String::from_utf8(theirs).unwrap();
            assert_eq!(
                meta_keys(&mine_text),
                meta_keys(&theirs_text),
                "{name}: key order"
            );
            assert_eq!(mine_text.lines().next(), Some("#"));
            let m =
                MetaProperties::from_properties(&Properties::parse(&mine_text).unwrap()).unwrap();
            let t =
                MetaProperties::from_properties(&Properties::parse(&theirs_text).unwrap()).unwrap();
            assert_eq!(
                (m.version, &m.cluster_id, m.node_id),
                (t.version, &t.cluster_id, t.node_id)
            );
            let formatted = report
                .formatted
                .iter()
                .find(|d| tmp.path().join(f).parent() == Some(d.path.as_path()))
                .unwrap();
            if formatted.kind == DirectoryKind::DynamicMetadataVoter && !standalone {
                assert_eq!(m.directory_id, t.directory_id, "{name}: voter directory id");
            }
            assert_eq!(m.directory_id, Some(formatted.directory_id));
        } else {
            panic!("{name}: unexpected file {}", f.display());
        }
    }

    // a voter directory's id is the one in the VotersRecord
    for d in &report.formatted {
        if d.kind == DirectoryKind::DynamicMetadataVoter {
            let v = report
                .initial_controllers
                .iter()
                .find(|v| v.node_id == opts.config.node_id)
                .unwrap();
            assert_eq!(v.directory_id, d.directory_id);
            assert!(d.checkpoint.is_some());
        }
    }
}

#[test]
fn dynamic_quorum_with_initial_controllers() {
    run_scenario("dynamic-initial-controllers");
}

#[test]
fn voters_record_uses_javas_hash_order() {
    // ids 33, 17 and 1 share bucket 1 of Java's HashMap: Kafka writes 1, 17, 33;
    // an IPv6 host and a second controller listener are involved too.
    run_scenario("dynamic-hash-order");
}

#[test]
fn static_quorum_with_data_and_metadata_dirs() {
    run_scenario("static-multi-dir");
}

#[test]
fn no_initial_controllers_with_unstable_versions() {
    run_scenario("no-initial-controllers-unstable");
}

#[test]
fn standalone() {
    run_scenario("standalone");
}

#[test]
fn scram_credentials_of_both_mechanisms() {
    run_scenario("scram");
}

#[test]
fn scram_at_the_first_metadata_version_with_scram() {
    run_scenario("scram-min-release");
}

const DYNAMIC: &str = "process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n\
                       listeners=CONTROLLER://:9093\ncontroller.quorum.bootstrap.servers=localhost:9093\n\
                       log.dirs=@DIR@/d1\n";
const STATIC: &str = "process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n\
                      listeners=CONTROLLER://:9093\ncontroller.quorum.voters=1@localhost:9093\n\
                      log.dirs=@DIR@/s1\n";

fn format_err(config: &str, args: &[&str]) -> String {
    let tmp = TempDir::new("err");
    let opts = options(config_for(config, tmp.path()), args);
    format(&opts).unwrap_err().to_string()
}

/// Error texts as Kafka 4.4.0's kafka-storage printed them for the same inputs.
#[test]
fn errors_match_kafka() {
    assert_eq!(
        format_err(DYNAMIC, &["--cluster-id", "abc"]),
        "Because controller.quorum.voters is not set on this controller, you must specify one of the \
         following: --standalone, --initial-controllers, or --no-initial-controllers."
    );
    assert_eq!(
        format_err(STATIC, &["--cluster-id", "abc", "--standalone"]),
        "You cannot specify controller.quorum.voters and format the node with --initial-controllers or \
         --standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and \
         specify controller.quorum.bootstrap.servers instead."
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--feature",
                "kraft.version=0"
            ]
        ),
        "Cannot set kraft.version to 0 if controller.quorum.voters is empty and one of the flags \
         --standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic \
         controllers support, try removing the --feature flag for kraft.version."
    );
    assert_eq!(
        format_err(STATIC, &["--cluster-id", "abc", "--feature", "kraft.version=1"]),
        "Cannot set kraft.version to 1 unless controller.quorum.voters is empty and one of the flags \
         --standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic \
         controllers support, try using one of --standalone, --initial-controllers, or \
         --no-initial-controllers and removing controller.quorum.voters."
    );
    let all = "3.3-IV3, 3.4-IV0, 3.5-IV0, 3.5-IV1, 3.5-IV2, 3.6-IV0, 3.6-IV1, 3.6-IV2, 3.7-IV0, 3.7-IV1, \
               3.7-IV2, 3.7-IV3, 3.7-IV4, 3.8-IV0, 3.9-IV0, 4.0-IV0, 4.0-IV1, 4.0-IV2, 4.0-IV3, 4.1-IV0, \
               4.1-IV1, 4.2-IV0, 4.2-IV1, 4.3-IV0, 4.4-IV0, 4.4-IV1, 4.4-IV2";
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--release-version",
                "4.5-IV0"
            ]
        ),
        format!("Unknown metadata.version '4.5-IV0'. Supported metadata.version are: {all}")
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--release-version",
                "9.9"
            ]
        ),
        format!("Unknown metadata.version '9.9'. Supported metadata.version are: {all}")
    );
    assert_eq!(
        format_err(DYNAMIC, &["--cluster-id", "abc", "--standalone", "--feature", "foo.version=1"]),
        "Unsupported feature: foo.version. Supported features are: eligible.leader.replicas.version, \
         group.version, kraft.version, share.version, streams.version, transaction.version"
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--feature",
                "metadata.version=20",
                "--release-version",
                "3.8"
            ]
        ),
        "Use --release-version instead of --feature metadata.version=X to avoid ambiguity."
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--feature",
                "metadata.version=34"
            ]
        ),
        "metadata.version 4.5-IV0 is not yet stable."
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &["--cluster-id", "abc", "--standalone", "--feature", "eligible.leader.replicas.version=1", "--release-version", "3.9"]
        ),
        "eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23"
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--feature",
                "group.version=5"
            ]
        ),
        "No feature:group.version with feature level 5"
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--standalone",
                "--feature",
                "group.version"
            ]
        ),
        "Can't parse feature=level string group.version: equals sign not found."
    );
    assert_eq!(
        format_err(
            DYNAMIC,
            &[
                "--cluster-id",
                "abc",
                "--initial-controllers",
                "1@h:1:AAAAAAAAAAAAAAAAAAAAAQ,1@h:2:AAAAAAAAAAAAAAAAAAAAAg"
            ]
        ),
        "Node id 1 was specified more than once."
    );
}

#[test]
fn formatted_directories_are_refused_unless_ignored() {
    let tmp = TempDir::new("refuse");
    let config = config_for(STATIC, tmp.path());
    let dir = tmp.path().join("s1");
    let first = format(&options(config.clone(), &["--cluster-id", "abc"])).unwrap();
    assert_eq!(first.formatted.len(), 1);
    assert_eq!(first.formatted[0].kind, DirectoryKind::StaticMetadata);
    let meta_before = std::fs::read(dir.join(META_PROPERTIES)).unwrap();

    let err = format(&options(config.clone(), &["--cluster-id", "abc"])).unwrap_err();
    assert_eq!(
        err,
        FormatError::Formatted(format!(
            "Log directory {} is already formatted. Use --ignore-formatted to ignore this directory and format the others.",
            dir.display()
        ))
    );
    let again = format(&options(
        config.clone(),
        &["--cluster-id", "abc", "--ignore-formatted"],
    ))
    .unwrap();
    assert_eq!(
        again.output,
        ["All of the log directories are already formatted."]
    );
    assert_eq!(again.already_formatted, std::slice::from_ref(&dir));
    // another cluster id is refused even with --ignore-formatted
    let err = format(&options(
        config.clone(),
        &["--cluster-id", "xyz", "--ignore-formatted"],
    ))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Invalid cluster.id in: {}. Expected xyz, but read abc",
            dir.join(META_PROPERTIES).display()
        )
    );
    assert_eq!(
        std::fs::read(dir.join(META_PROPERTIES)).unwrap(),
        meta_before,
        "untouched"
    );

    // with a second, empty log dir only that one is formatted
    let two = STATIC.replace("log.dirs=@DIR@/s1", "log.dirs=@DIR@/s1,@DIR@/s2");
    let config2 = config_for(&two, tmp.path());
    let r = format(&options(
        config2.clone(),
        &["--cluster-id", "abc", "--ignore-formatted"],
    ))
    .unwrap();
    assert_eq!(r.formatted.len(), 1);
    assert_eq!(r.formatted[0].path, tmp.path().join("s2"));
    assert_eq!(r.formatted[0].kind, DirectoryKind::Data);
    assert!(!tmp.path().join("s2").join(CLUSTER_METADATA_DIR).exists());

    // info sees both, consistent
    let report = info(&config2);
    assert_eq!(report.exit_code, 0, "{:?}", report.output);
    assert_eq!(report.output[0], "Found log directories:");
    assert!(report.output[4].starts_with("Found metadata: {cluster.id=abc, directory.id="));
    assert!(report.output[4].ends_with(", node.id=1, version=1}"));
}

#[test]
fn info_reports_problems() {
    let tmp = TempDir::new("info");
    let config = config_for(
        &STATIC.replace("log.dirs=@DIR@/s1", "log.dirs=@DIR@/s1,@DIR@/s2"),
        tmp.path(),
    );
    std::fs::create_dir_all(tmp.path().join("s1")).unwrap();
    let r = info(&config);
    assert_eq!(r.exit_code, 1);
    let s1 = tmp.path().join("s1");
    let s2 = tmp.path().join("s2");
    assert_eq!(
        r.output,
        [
            "Found log directory:".to_string(),
            format!("  {}", s1.display()),
            String::new(),
            "Found problems:".to_string(),
            format!("  {} is not formatted.", s1.display()),
            format!("  {} does not exist", s2.display()),
            String::new(),
        ]
    );
}

/// The bootstrap records (data batches) of the checkpoint in `metadata_dir`.
fn checkpoint_records(metadata_dir: &Path) -> Vec<MetadataRecord> {
    let path = metadata_dir
        .join(CLUSTER_METADATA_DIR)
        .join(BOOTSTRAP_CHECKPOINT);
    let mut out = Vec::new();
    for batch in batches(Bytes::from(std::fs::read(path).unwrap())) {
        let batch = batch.unwrap();
        if batch.is_control() {
            continue;
        }
        for r in batch.records().unwrap() {
            out.push(MetadataRecord::decode(r.unwrap().value.unwrap()).unwrap());
        }
    }
    out
}

/// `(name, mechanism, salt, stored key, server key, iterations)` of the
/// UserScramCredentialRecords among `records`.
type Credential = (String, i8, Vec<u8>, Vec<u8>, Vec<u8>, i32);

fn credentials(records: &[MetadataRecord]) -> Vec<Credential> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::UserScramCredential(c) => {
                assert_eq!(r.version, 0);
                Some((
                    c.name.to_string(),
                    c.mechanism,
                    c.salt.to_vec(),
                    c.stored_key.to_vec(),
                    c.server_key.to_vec(),
                    c.iterations,
                ))
            }
            _ => None,
        })
        .collect()
}

fn b64(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// ScramParserTest's TEST_SALT and TEST_SALTED_PASSWORD.
const TEST_SALT: &str = "MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=";
const TEST_SALTED_PASSWORD: &str = "mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=";

fn test_scram_arguments() -> Vec<String> {
    ["SCRAM-SHA-256", "SCRAM-SHA-512"]
        .iter()
        .map(|m| {
            format!(
                "{m}=[name=alice,salt=\"{TEST_SALT}\",saltedpassword=\"{TEST_SALTED_PASSWORD}\"]"
            )
        })
        .collect()
}

/// Kafka's FormatterTest.testFormatWithScramFailsOnUnsupportedReleaseVersions
/// and StorageToolTest.testScramRecordsOldReleaseVersion: nothing is written.
#[test]
fn scram_below_3_5_iv2_is_refused_and_nothing_is_written() {
    for release in ["3.4-IV0", "3.4", "3.5-IV1"] {
        let tmp = TempDir::new("scram-old");
        let mut opts = options(
            config_for(STATIC, tmp.path()),
            &["--cluster-id", "abc", "--release-version", release],
        );
        opts.add_scram = test_scram_arguments();
        assert_eq!(
            format(&opts).unwrap_err(),
            FormatError::Invalid(
                "SCRAM is only supported in metadata.version 3.5-IV2 or later.".to_string()
            ),
            "{release}"
        );
        assert!(files_below(tmp.path()).is_empty(), "{release}");
    }
}

/// Kafka's FormatterTest.testFormatWithScram: the records after the feature
/// levels, keys from the salted password, and the tool's output.
#[test]
fn scram_records_follow_the_feature_levels() {
    let tmp = TempDir::new("scram-format");
    let mut opts = options(
        config_for(STATIC, tmp.path()),
        &["--cluster-id", "abc", "--release-version", "3.8-IV0"],
    );
    opts.add_scram = test_scram_arguments();
    let report = format(&opts).unwrap();
    let dir = tmp.path().join("s1");
    let records = checkpoint_records(&dir);
    assert_eq!(records, report.bootstrap_records);
    assert!(matches!(
        &records[0].body,
        MetadataRecordBody::FeatureLevel(f) if &*f.name == "metadata.version" && f.feature_level == 20
    ));
    let first_scram = records
        .iter()
        .position(|r| matches!(r.body, MetadataRecordBody::UserScramCredential(_)))
        .unwrap();
    assert!(records[..first_scram]
        .iter()
        .all(|r| matches!(r.body, MetadataRecordBody::FeatureLevel(_))));
    assert_eq!(records.len(), first_scram + 2);
    // H(HMAC(salted, "Client Key")) and HMAC(salted, "Server Key"), computed
    // independently (Python hashlib/hmac).
    assert_eq!(
        credentials(&records),
        [
            (
                "alice".to_string(),
                1,
                b64(TEST_SALT),
                b64("XTIqoHHo3sscdYxycL07uh8utmHn9fXtjqyDF67CjSU="),
                b64("Za53R2yENISN7fHL7WUxriFkV7cfbrO3+CtEptMbTPE="),
                4096
            ),
            (
                "alice".to_string(),
                2,
                b64(TEST_SALT),
                b64("OTJaI0xrVVArw2MNM35eGNVvo7ZObfdmB6j25TPoky/3TryBqVyDO+xwZ9ayp2b8vlAyTuh3zIGiJpXG5PlNBQ=="),
                b64("SAFtavLze+JBSMhVmVxQOuH5mRkdsrE4CjtIl/LA+59pwoSC4fkJx8n+JnF+LKedPZWTai2bvkCoctFtn9zZxw=="),
                4096
            ),
        ]
    );
    assert_eq!(report.output.len(), 2);
    let line = &report.output[0];
    assert!(line.starts_with(
        "Bootstrap metadata: BootstrapMetadata(records=[ApiMessageAndVersion(FeatureLevelRecord(name='metadata.version', featureLevel=20) at version 0), "
    ), "{line}");
    assert!(line.contains(
        ", ApiMessageAndVersion(UserScramCredentialRecord(name='alice', mechanism=1, \
         salt=[49, 108, 118, 52, 112, 100, 110, 119, 52, 102, 119, 113, 55, 110, 111, 116, 99, 120, 109, 48, 121, 121, 49, 107, 55, 113], \
         storedKey=[93, 50, 42, -96, 113, -24, -34, -53, 28, 117, -116, 114, 112, -67, 59, -70, 31, 46, -74, 97, -25, -11, -11, -19, -114, -84, -125, 23, -82, -62, -115, 37], \
         serverKey=[101, -82, 119, 71, 108, -124, 52, -124, -115, -19, -15, -53, -19, 101, 49, -82, 33, 100, 87, -73, 31, 110, -77, -73, -8, 43, 68, -90, -45, 27, 76, -15], \
         iterations=4096) at version 0), ApiMessageAndVersion(UserScramCredentialRecord(name='alice', mechanism=2, "
    ), "{line}");
    assert!(
        line.ends_with(" at version 0)], metadataVersionLevel=20, source=format command)"),
        "{line}"
    );
    assert_eq!(
        report.output[1],
        format!(
            "Formatting metadata directory {} with metadata.version 3.8-IV0.",
            dir.display()
        )
    );
}

/// Kafka's StorageToolTest.testBootstrapScramRecords: password form, a
/// dynamic quorum, the records in argument order.
#[test]
fn scram_passwords_with_a_standalone_quorum() {
    let tmp = TempDir::new("scram-standalone");
    let mut opts = options(
        config_for(DYNAMIC, tmp.path()),
        &[
            "--cluster-id",
            "abc",
            "--release-version",
            "3.9-IV0",
            "--standalone",
        ],
    );
    opts.add_scram = vec![
        "SCRAM-SHA-512=[name=alice,password=changeit]".to_string(),
        "SCRAM-SHA-512=[name=bob,password=changeit]".to_string(),
    ];
    format(&opts).unwrap();
    let creds = credentials(&checkpoint_records(&tmp.path().join("d1")));
    let names: Vec<(&str, i8, i32)> = creds.iter().map(|c| (c.0.as_str(), c.1, c.5)).collect();
    assert_eq!(names, [("alice", 2, 4096), ("bob", 2, 4096)]);
    // Kafka's random salts: base-36 text, different for each credential.
    assert_ne!(creds[0].2, creds[1].2);
    assert_ne!(creds[0].3, creds[1].3);
    for c in &creds {
        assert!(c
            .2
            .iter()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        assert_eq!((c.3.len(), c.4.len()), (64, 64));
    }
}

/// `--add-scram` errors as Kafka 4.4.0's kafka-storage printed them for the
/// same arguments (static quorum, default release, each argument after
/// `--add-scram`); the first bad argument wins and nothing is written.
#[test]
fn scram_errors_match_kafka() {
    for (args, expected) in scram_error_cases() {
        let tmp = TempDir::new("scram-err");
        let mut opts = options(config_for(STATIC, tmp.path()), &["--cluster-id", "abc"]);
        opts.add_scram = args.iter().map(|a| a.to_string()).collect();
        assert_eq!(format(&opts).unwrap_err().to_string(), expected, "{args:?}");
        assert!(files_below(tmp.path()).is_empty(), "{args:?}");
    }
}

fn scram_error_cases() -> Vec<(Vec<&'static str>, &'static str)> {
    vec![
        (vec!["SCRAM-SHA-512"], "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-512'"),
        (
            vec!["SCRAM-SHA-UNSUPPORTED=[name=scram-admin,password=scram-user-secret]"],
            "The add-scram mechanism SCRAM-SHA-UNSUPPORTED is not supported.",
        ),
        (
            vec!["SCRAM-SHA-256=name=scram-admin,password=scram-user-secret"],
            "Expected configuration string to start with [",
        ),
        (
            vec!["SCRAM-SHA-256=[name=scram-admin,password=scram-user-secret"],
            "Expected configuration string to end with ]",
        ),
        (vec!["SCRAM-SHA-256=[password=mypass]"], "You must supply 'name' to add-scram"),
        (
            vec!["SCRAM-SHA-256=[name=bar]"],
            "You must supply one of 'password' or 'saltedpassword' to add-scram",
        ),
        (
            vec!["SCRAM-SHA-256=[name=bob,password=mypass,unknown=something,unknown2=somethingelse]"],
            "Unknown SCRAM configurations: unknown, unknown2",
        ),
        (
            vec!["SCRAM-SHA-256=[name=alice,saltedpassword=\"mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=\"]"],
            "You must supply 'salt' with 'saltedpassword' to add-scram",
        ),
        (vec!["SCRAM-SHA-256=[name]"], "No equals sign found in SCRAM component: name"),
        (vec!["SCRAM-SHA-256=[]"], "No equals sign found in SCRAM component: "),
        (
            vec!["SCRAM-SHA-256=[name=a,password=p,iterations=4095]"],
            "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256",
        ),
        (
            vec!["SCRAM-SHA-512=[name=a,password=p,iterations=16385]"],
            "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_512",
        ),
        (
            vec!["SCRAM-SHA-256=[name=a,password=p,iterations=lots]"],
            "Failed to parse iterations count: lots",
        ),
        (vec!["SCRAM-SHA-256=[name=a,password=p,salt=YQ=]"], "Failed to decode given salt: YQ="),
        (
            vec!["SCRAM-SHA-256=[name=a,salt=YQ==,saltedpassword=%%]"],
            "Failed to decode given saltedPassword: %%",
        ),
        (
            vec![
                "SCRAM-SHA-256=[name=a,password=p]",
                "SCRAM-SHA-512=[name=b,password=p,iterations=1]",
                "SCRAM-SHA-256",
            ],
            "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_512",
        ),
        (
            vec!["SCRAM-SHA-256=[zeta=1,name=bob, name=x,password=p,Alpha=2]"],
            "Unknown SCRAM configurations:  name, Alpha, zeta",
        ),
        (
            vec!["SCRAM-SHA-256=[name=a,,password=p]"],
            "No equals sign found in SCRAM component: ",
        ),
        (vec!["SCRAM-SHA-256=[,]"], "You must supply 'name' to add-scram"),
        (vec!["SCRAM-SHA-256=["], "Expected configuration string to end with ]"),
        (
            vec!["SCRAM-SHA-256 =[name=a,password=b]"],
            "The add-scram mechanism SCRAM-SHA-256  is not supported.",
        ),
        (
            vec!["SCRAM-SHA-256=[name=a,password=p,iterations= 8192]"],
            "Failed to parse iterations count:  8192",
        ),
        (vec!["SCRAM-SHA-256=[name=a,password=p,salt=YQ=YQ]"], "Failed to decode given salt: YQ=YQ"),
        // Kafka's tool dies of an uncaught IllegalArgumentException with
        // this message (Java's SecretKeySpec refuses an empty key).
        (vec!["SCRAM-SHA-256=[name=a,password=]"], "Empty key"),
        (vec!["SCRAM-SHA-256=[name=a,salt=N3E=,saltedpassword=\"\"]"], "Empty key"),
    ]
}
