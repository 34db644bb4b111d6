//! The render threads: every render, a request's and a job's, runs on one of a few long-lived threads owned
//! by the `Renderer`, not on tokio's blocking pool.
//!
//! Why not the blocking pool: it hands a task to whichever of its threads is idle, and the same pool does the
//! local store's file I/O, so a render kept landing on a thread whose malloc arena and mimalloc heap held
//! none of a render's buffers and faulted them in again (BENCHMARKS.md, "The C codecs' memory"). A handful
//! of threads that do nothing but render keep those buffers warm.
//!
//! Why a queue of our own: requests go first. A render a client is waiting on (`Priority::Request`) is taken
//! before any background render (`Priority::Background`: thumbnails, transform-url and warming jobs) queued
//! earlier, so a warming batch does not stand between a visitor and a cold variant. Each class is first in,
//! first out.

use std::{
    collections::VecDeque,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    thread,
};

use tokio::sync::oneshot;

/// Who waits for a render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// A client's request is waiting for it.
    Request,
    /// A job: nobody is waiting on the other end.
    Background,
}

/// A render that did not deliver a result.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("the render panicked")]
    Panicked,
    #[error("the render threads have stopped")]
    Stopped,
}

type Task = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queues {
    request: VecDeque<Task>,
    background: VecDeque<Task>,
    stopped: bool,
}

impl Queues {
    fn next(&mut self) -> Option<Task> {
        self.request.pop_front().or_else(|| self.background.pop_front())
    }
}

#[derive(Default)]
struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
}

impl Shared {
    /// The queues; a task that panicked ran outside the lock, so a poisoned lock still holds whole queues.
    fn lock(&self) -> MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Stops the threads when the last handle goes.
struct Threads {
    shared: Arc<Shared>,
    count: usize,
}

impl Drop for Threads {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.ready.notify_all();
    }
}

/// A fixed set of render threads with a two-class queue (see the module documentation). Cheap to clone;
/// the threads end when the last clone is dropped (tasks still queued then are dropped unrun).
#[derive(Clone)]
pub struct RenderPool(Arc<Threads>);

impl RenderPool {
    /// Starts `threads` render threads (at least one).
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared::default());
        let count = threads.max(1);
        // Built before spawning, so a failed spawn stops the threads already started.
        let pool = Self(Arc::new(Threads { shared: shared.clone(), count }));
        for index in 0..count {
            let shared = shared.clone();
            thread::Builder::new().name(format!("shutterbox-render-{index}")).spawn(move || work(&shared))?;
        }
        Ok(pool)
    }

    /// One thread per CPU core: renders are CPU-bound.
    pub fn per_core() -> std::io::Result<Self> {
        Self::new(thread::available_parallelism().map_or(2, usize::from))
    }

    /// How many render threads run.
    pub fn threads(&self) -> usize {
        self.0.count
    }

    /// Runs `render` on a render thread, after the renders queued before it of its class and of any higher
    /// class. A render abandoned by its caller (the future dropped) still runs; its result is discarded.
    pub async fn run<T, F>(&self, priority: Priority, render: F) -> Result<T, PoolError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let (done, result) = oneshot::channel();
        let task: Task = Box::new(move || {
            // A panic is the caller's error, not the thread's end.
            let outcome = catch_unwind(AssertUnwindSafe(render)).map_err(|_| PoolError::Panicked);
            let _ = done.send(outcome);
        });
        {
            let mut queues = self.0.shared.lock();
            if queues.stopped {
                return Err(PoolError::Stopped);
            }
            match priority {
                Priority::Request => queues.request.push_back(task),
                Priority::Background => queues.background.push_back(task),
            }
        }
        self.0.shared.ready.notify_one();
        result.await.map_err(|_| PoolError::Stopped)?
    }
}

fn work(shared: &Shared) {
    loop {
        let task = {
            let mut queues = shared.lock();
            loop {
                if queues.stopped {
                    return;
                }
                if let Some(task) = queues.next() {
                    break task;
                }
                queues = shared.ready.wait(queues).unwrap_or_else(PoisonError::into_inner);
            }
        };
        task();
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::mpsc, time::Duration};

    use super::*;

    #[tokio::test]
    async fn runs_a_render_and_returns_its_result() {
        let pool = RenderPool::new(2).expect("threads");
        let name = pool.run(Priority::Request, || thread::current().name().map(str::to_owned)).await;
        assert!(name.expect("ran").expect("named").starts_with("shutterbox-render-"));
    }

    #[tokio::test]
    async fn a_panicking_render_is_an_error_and_the_thread_goes_on() {
        let pool = RenderPool::new(1).expect("threads");
        let panicked = pool.run(Priority::Request, || -> u8 { panic!("bad render") }).await;
        assert!(matches!(panicked, Err(PoolError::Panicked)));
        assert_eq!(pool.run(Priority::Request, || 7).await.expect("the same thread still renders"), 7);
    }

    #[tokio::test]
    async fn requests_go_before_background_renders_queued_earlier() {
        let pool = RenderPool::new(1).expect("threads");
        // Hold the only thread until every render below is queued.
        let (release, hold) = mpsc::channel::<()>();
        let blocker = tokio::spawn({
            let pool = pool.clone();
            async move { pool.run(Priority::Background, move || hold.recv_timeout(Duration::from_secs(10))).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut renders = Vec::new();
        for (priority, label) in [
            (Priority::Background, "background 1"),
            (Priority::Request, "request 1"),
            (Priority::Background, "background 2"),
            (Priority::Request, "request 2"),
        ] {
            let (pool, order) = (pool.clone(), order.clone());
            renders.push(tokio::spawn(async move {
                pool.run(priority, move || order.lock().expect("order").push(label)).await
            }));
            // Queued in this order.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        release.send(()).expect("the blocker waits");
        blocker.await.expect("joined").expect("ran").expect("released");
        for render in renders {
            render.await.expect("joined").expect("ran");
        }
        assert_eq!(*order.lock().expect("order"), ["request 1", "request 2", "background 1", "background 2"]);
    }

    #[tokio::test]
    async fn the_threads_end_with_the_last_handle() {
        let pool = RenderPool::new(2).expect("threads");
        let shared = Arc::downgrade(&pool.0.shared);
        drop(pool);
        // Each thread holds the shared state until it has seen the stop.
        for _ in 0..200 {
            if shared.upgrade().is_none() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the render threads did not stop");
    }
}
