//! Test helpers shared by the kraft-rs crates' tests, so that every test
//! binary uses the same ones: a scratch directory ([`TempDir`]), a free
//! loopback port ([`free_port`]), polling until something holds
//! ([`wait_for`], [`wait_until`]) and real `kraft server` processes
//! ([`KraftServer`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

mod server;
mod wait;

pub use server::KraftServer;
pub use wait::{wait_for, wait_until};

/// A loopback TCP port that was free a moment ago: bound on `127.0.0.1:0`
/// and released, for a listener a test (or a process it starts) binds next.
///
/// # Panics
///
/// If no loopback port can be bound.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("cannot bind a loopback port: {e}"))
}

/// A fresh, empty directory under the system temp dir, removed (read-only
/// files included) when dropped, except while a test panics: then it is kept
/// and its path printed, so a failed test leaves its logs and data behind.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/kraft-<tag>-<pid>-<n>`, unique within and across
    /// processes; an existing directory of that name is emptied first.
    ///
    /// # Panics
    ///
    /// If the directory cannot be created (a test cannot go on without it).
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kraft-{tag}-{}-{n}", std::process::id()));
        remove_tree(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            panic!("cannot create {}: {e}", dir.display());
        }
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `path().join(name)`.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test failed: keeping {} for inspection", self.0.display());
            return;
        }
        remove_tree(&self.0);
    }
}

/// Removes `dir` and everything below it, making read-only files writable
/// first (the bootstrap checkpoint is written read-only, as Kafka does).
fn remove_tree(dir: &Path) {
    make_writable(dir);
    let _ = std::fs::remove_dir_all(dir);
}

fn make_writable(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            make_writable(&path);
        } else if let Ok(meta) = std::fs::metadata(&path) {
            let mut perms = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            let _ = std::fs::set_permissions(&path, perms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_unique_and_removed_on_drop_even_when_read_only() {
        let a = TempDir::new("testkit");
        let b = TempDir::new("testkit");
        assert_ne!(a.path(), b.path());
        let file = a.join("ro");
        std::fs::write(&file, b"x").expect("write");
        let mut perms = std::fs::metadata(&file).expect("stat").permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&file, perms).expect("chmod");
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
        assert!(b.path().is_dir());
    }

    #[test]
    fn free_port_can_be_bound() {
        let port = free_port();
        assert_ne!(port, 0);
        std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind the free port");
    }

    #[test]
    fn is_kept_when_the_test_panics() {
        let kept = std::thread::spawn(|| {
            let dir = TempDir::new("testkit-kept");
            let path = dir.path().to_path_buf();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                let _dir = dir;
                panic!("deliberate");
            }));
            assert!(result.is_err());
            path
        })
        .join()
        .expect("thread");
        assert!(kept.is_dir());
        remove_tree(&kept);
    }
}
