//! What the service's child processes share (the isolated decoders of `isolation`, FFmpeg's of `video`):
//! their rlimits, set between fork and exec or by the child itself, and the watchdog that kills one at its
//! deadline or once its caller has gone.

use std::{
    process::Child,
    sync::mpsc,
    time::{Duration, Instant},
};

use shutterbox_pipeline::{Cancellation, PipelineError};

/// How often the watchdog looks at the deadline and the caller.
const WATCH_EVERY: Duration = Duration::from_millis(50);

pub(crate) fn limit(resource: libc::__rlimit_resource_t, value: u64) {
    let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
    // SAFETY: setrlimit reads the struct it is given; failing leaves the default limit, which is looser.
    unsafe { libc::setrlimit(resource, &limit) };
}

/// Kills a child at its deadline or once its caller has gone.
pub(crate) struct Watchdog {
    done: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Option<PipelineError>>,
}

impl Watchdog {
    pub(crate) fn start(child: &Child, timeout_secs: u64, cancellation: Cancellation) -> Self {
        let pid = child.id();
        let (done, finished) = mpsc::channel::<()>();
        let deadline = Instant::now() + Duration::from_secs(timeout_secs.max(1));
        let thread = std::thread::spawn(move || {
            let stopped = loop {
                match finished.recv_timeout(WATCH_EVERY) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return None,
                }
                if cancellation.is_cancelled() {
                    break PipelineError::Cancelled;
                }
                if Instant::now() >= deadline {
                    break PipelineError::DeadlineExceeded { secs: timeout_secs };
                }
            };
            // SAFETY: kill only signals; the child is not reaped before this thread has ended (`stop`).
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            Some(stopped)
        });
        Self { done, thread }
    }

    /// Ends the watch: why it killed the child, if it did.
    pub(crate) fn stop(self) -> Option<PipelineError> {
        let _ = self.done.send(());
        self.thread.join().ok().flatten()
    }
}
