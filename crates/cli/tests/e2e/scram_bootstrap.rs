//! `kraft storage format --add-scram` with real processes: the credentials
//! go into the bootstrap checkpoint, and a `kraft server` started on it
//! puts them in its image once active (read back from the snapshot it
//! writes of its image). The passwords appear in no output or log.

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use kraft_protocol::records::batches;
use kraft_protocol::MetadataRecordBody;
use kraft_testkit::{free_port, KraftServer, TempDir};

use super::{kraft, wait_for, KRAFT};

/// `(name, mechanism, salt, stored key, server key, iterations)`.
type Credential = (String, i8, Vec<u8>, Vec<u8>, Vec<u8>, i32);

/// The UserScramCredentialRecords of the snapshot (or log segment) at `path`.
fn credentials(path: &Path) -> Vec<Credential> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for batch in batches(Bytes::from(bytes)).flatten() {
        if batch.is_control() {
            continue;
        }
        for r in batch.records().into_iter().flatten().flatten() {
            let Some(value) = r.value else { continue };
            if let Ok((_, MetadataRecordBody::UserScramCredential(c))) =
                MetadataRecordBody::decode(value)
            {
                out.push((
                    c.name.to_string(),
                    c.mechanism,
                    c.salt.to_vec(),
                    c.stored_key.to_vec(),
                    c.server_key.to_vec(),
                    c.iterations,
                ));
            }
        }
    }
    out.sort();
    out
}

/// The newest snapshot after the bootstrap one in `log_dir`, if any.
fn latest_snapshot(log_dir: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(log_dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let offset: i64 = name
                .strip_suffix(".checkpoint")?
                .split_once('-')?
                .0
                .parse()
                .ok()?;
            (offset > 0).then_some((offset, e.path()))
        })
        .max()
        .map(|(_, p)| p)
}

#[test]
fn a_controller_formatted_with_scram_credentials_serves_them_from_its_image() {
    let dir = TempDir::new("e2e-scram-bootstrap");
    let port = free_port();
    let data = dir.join("data-1");
    let mut server = KraftServer::new(
        KRAFT,
        dir.join("controller-1.properties"),
        dir.join("server-1.log"),
    );
    // Snapshots after ~200 bytes of committed batches: the activation's
    // bootstrap records alone are more.
    server.write_config(&format!(
        "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{port}\nlog.dirs={d}\nmetadata.log.dir={d}\n\
         controller.quorum.bootstrap.servers=127.0.0.1:{port}\n\
         metadata.log.max.record.bytes.between.snapshots=200\n",
        d = data.display()
    ));
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    let config = server
        .config_path()
        .to_str()
        .unwrap_or_default()
        .to_string();
    let (code, out, err) = kraft(&[
        "storage",
        "format",
        "--config",
        &config,
        "--cluster-id",
        &cluster_id,
        "--standalone",
        "--add-scram",
        "SCRAM-SHA-256=[name=user,password=pencil,salt=\"W22ZaJ0SNY7soEsUEjb6gQ==\"]",
        "-S",
        "SCRAM-SHA-512=[name=alice,password=\"alice-secret\",iterations=8192]",
    ]);
    assert_eq!(code, 0, "format: {out}{err}");
    assert!(
        out.contains("ApiMessageAndVersion(UserScramCredentialRecord(name='user', mechanism=1, ")
            && out.contains("UserScramCredentialRecord(name='alice', mechanism=2, "),
        "{out}"
    );
    let log_dir = data.join("__cluster_metadata-0");
    let bootstrap = credentials(&log_dir.join("00000000000000000000-0000000000.checkpoint"));
    assert_eq!(bootstrap.len(), 2, "{bootstrap:?}");
    assert_eq!(
        (bootstrap[0].0.as_str(), bootstrap[0].1, bootstrap[0].5),
        ("alice", 2, 8192)
    );
    assert_eq!(
        (bootstrap[1].0.as_str(), bootstrap[1].1, bootstrap[1].5),
        ("user", 1, 4096)
    );
    // RFC 7677's salt, as given.
    assert_eq!(
        bootstrap[1].2,
        [91, 109, 153, 104, 157, 18, 53, 142, 236, 160, 75, 20, 18, 54, 250, 129]
    );

    server.start();
    let in_image = wait_for(
        "a snapshot of the active controller's image holds the credentials",
        Duration::from_secs(60),
        || {
            let found = credentials(&latest_snapshot(&log_dir)?);
            (!found.is_empty()).then_some(found)
        },
    );
    assert_eq!(in_image, bootstrap);
    assert_eq!(server.stop(), Some(0));
    for text in [out, err, server.log()] {
        assert!(!text.contains("pencil") && !text.contains("alice-secret"));
    }
}
