//! What the corpus tests share: where the test corpora are, and libvips' reading of files through one of
//! the sharp scripts in `scripts/`.

use std::{
    io::Write,
    path::PathBuf,
    process::{Command, Stdio},
    sync::{RwLock, RwLockReadGuard, RwLockWriteGuard},
};

/// The machine's cores, held by the tests that keep them busy (each renders on rayon's pool) so that they
/// run as when each area was a binary of its own: the corpus check, which bounds each file's time, alone;
/// the others beside each other.
static CORES: RwLock<()> = RwLock::new(());

/// The cores shared with the other busy tests.
pub fn shared_cores() -> RwLockReadGuard<'static, ()> {
    CORES.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The cores to itself: no other busy test runs meanwhile.
pub fn all_cores() -> RwLockWriteGuard<'static, ()> {
    CORES.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The test corpora: `SHUTTERBOX_CORPORA`, by default the repository's `tests/corpora` (each folder's
/// SOURCE.md names its origin and licence). Missing fails the test, naming it.
pub fn corpora() -> PathBuf {
    let dir = std::env::var_os("SHUTTERBOX_CORPORA")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpora"), PathBuf::from);
    assert!(dir.is_dir(), "the corpora are not at {} (set SHUTTERBOX_CORPORA)", dir.display());
    dir
}

/// The JSON lines `scripts/<script>` prints for `files`, run by node with sharp from
/// `SHUTTERBOX_SHARP_NODE_MODULES` (scripts/test.sh installs one; missing fails the test, naming it).
pub fn sharp_lines(script: &str, files: &[PathBuf]) -> Vec<serde_json::Value> {
    node_lines(script, files, &[])
}

/// The JSON lines `scripts/<script>` prints for `args`, given `input` (JSON lines) on its standard input,
/// run by node with the node_modules of `SHUTTERBOX_SHARP_NODE_MODULES` (sharp and the placeholder
/// decoders; scripts/test.sh installs them; missing fails the test, naming it).
pub fn node_lines(script: &str, args: &[PathBuf], input: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let modules = std::env::var("SHUTTERBOX_SHARP_NODE_MODULES")
        .expect("SHUTTERBOX_SHARP_NODE_MODULES names no node_modules with sharp in it (scripts/test.sh installs one)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts").join(script);
    let mut child = Command::new("node")
        .arg(script)
        .args(args)
        .env("NODE_PATH", &modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut stdin = child.stdin.take().expect("node's input");
    for line in input {
        writeln!(stdin, "{line}").expect("node reads its input");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("node runs");
    assert!(output.status.success(), "node: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .expect("node prints UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("node prints JSON lines"))
        .collect()
}
