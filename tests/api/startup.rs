//! Start-up with a backend that cannot be used: the real binary ends with one clear line naming it and a
//! non-zero status, never a panic or a hang.

use std::time::Duration;

async fn start_fails(args: &[&str], env: &[(&str, &str)], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    command.args(args).env("SHUTTERBOX_DATA_DIR", dir.path()).env("SHUTTERBOX_LISTEN", "127.0.0.1:0");
    for (var, _) in
        std::env::vars().filter(|(var, _)| var.starts_with("SHUTTERBOX_") && !var.starts_with("SHUTTERBOX_TEST"))
    {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    let output = tokio::time::timeout(Duration::from_secs(30), command.output())
        .await
        .unwrap_or_else(|_| panic!("{args:?} {env:?} hung instead of failing"))
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{args:?} {env:?} started: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("shutterbox: ") && last.contains(expected), "{env:?}: {last:?}");
}

#[tokio::test]
async fn an_unusable_backend_ends_the_start_with_one_clear_line() {
    let serve = ["serve"];
    start_fails(&serve, &[("SHUTTERBOX_REDIS_URL", "redis://127.0.0.1:1")], "Redis").await;
    start_fails(&serve, &[("SHUTTERBOX_REDIS_URL", "not a url")], "Redis").await;
    start_fails(&serve, &[("SHUTTERBOX_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")], "database").await;
    start_fails(&serve, &[("SHUTTERBOX_DATABASE_URL", "mysql://x")], "database").await;
    start_fails(
        &serve,
        &[
            ("SHUTTERBOX_S3_ENDPOINT", "http://127.0.0.1:1"),
            ("SHUTTERBOX_S3_ACCESS_KEY", "a"),
            ("SHUTTERBOX_S3_SECRET_KEY", "b"),
        ],
        "127.0.0.1:1",
    )
    .await;
    start_fails(&serve, &[("SHUTTERBOX_S3_ENDPOINT", "http://127.0.0.1:1")], "SHUTTERBOX_S3_ACCESS_KEY").await;
    start_fails(&["worker"], &[], "SHUTTERBOX_REDIS_URL").await;
}
