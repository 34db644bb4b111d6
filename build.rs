//! Videos' frames are decoded by FFmpeg's `ffmpeg` program (docs/formats.md, "Videos"), which a fresh
//! machine lacks: the build installs Debian's `ffmpeg` package the way it installs cmake and nasm
//! (scripts/lib/provision.sh: apt-get as root or through sudo, else the one line to run). The service runs
//! without it all the same (videos then get placeholder thumbnails and no frames), so a machine that cannot
//! install it gets a warning, not a failed build. `SHUTTERBOX_FFMPEG` naming another program skips this.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SHUTTERBOX_FFMPEG");
    if std::env::var_os("SHUTTERBOX_FFMPEG").is_some() {
        return;
    }
    let script = concat!(
        "source scripts/lib/provision.sh && ",
        "ensure_tools 'decoding video frames (docs/formats.md, Videos)' ffmpeg:ffmpeg"
    );
    let installed = Command::new("bash").arg("-c").arg(script).status().is_ok_and(|status| status.success());
    if !installed {
        println!("cargo:warning=ffmpeg is not installed: videos will get placeholder thumbnails and no frames");
    }
}
