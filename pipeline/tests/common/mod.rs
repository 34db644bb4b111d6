//! What the corpus tests share: where the shared corpora are, and libvips' reading of files through one of
//! the sharp scripts in `scripts/`.

use std::{path::PathBuf, process::Command};

/// The shared corpora: `SHUTTERBOX_CORPORA`, by default the `shared/corpora` folder beside the repository.
/// Missing fails the test, naming it.
pub fn corpora() -> PathBuf {
    let dir = std::env::var_os("SHUTTERBOX_CORPORA")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"), PathBuf::from);
    assert!(dir.is_dir(), "the corpora are not at {} (set SHUTTERBOX_CORPORA)", dir.display());
    dir
}

/// The JSON lines `scripts/<script>` prints for `files`, run by node with sharp from
/// `SHUTTERBOX_SHARP_NODE_MODULES` (scripts/test.sh installs one; missing fails the test, naming it).
#[allow(dead_code)] // not every test binary that shares this module asks sharp
pub fn sharp_lines(script: &str, files: &[PathBuf]) -> Vec<serde_json::Value> {
    let modules = std::env::var("SHUTTERBOX_SHARP_NODE_MODULES")
        .expect("SHUTTERBOX_SHARP_NODE_MODULES names no node_modules with sharp in it (scripts/test.sh installs one)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts").join(script);
    let output = Command::new("node").arg(script).args(files).env("NODE_PATH", &modules).output().expect("node runs");
    assert!(output.status.success(), "sharp: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .expect("sharp prints UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("sharp prints JSON lines"))
        .collect()
}
