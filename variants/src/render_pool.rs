//! The render threads: every render, a request's and a job's, runs on one of a few long-lived threads owned
//! by the `Renderer`, not on tokio's blocking pool.
//!
//! Why not the blocking pool: it hands a task to whichever of its threads is idle, and the same pool does the
//! local store's file I/O, so a render kept landing on a thread whose malloc arena and mimalloc heap held
//! none of a render's buffers and faulted them in again (BENCHMARKS.md, "The C codecs' memory"). A handful of
//! threads that do nothing but render keep those buffers warm.
//!
//! Why a queue of our own: requests go first. A render a client is waiting on (`Priority::Request`) is taken
//! before any background render (`Priority::Background`: thumbnails, transform-url and warming jobs) queued
//! earlier, and in a pool that serves requests (`RenderPool::serving`) background renders never hold every
//! thread (with two threads or more, one is always free for a request), so a warming batch does not stand
//! between a visitor and a cold variant. A render cannot be
//! interrupted, so without that reserve a request arriving while jobs ran on every thread would wait for one
//! of them to finish. Each class is first in, first out.
//!
//! Why niced: a render is seconds of CPU a client chose; answering a request (a cached variant, a file's
//! facts, a health check) is microseconds. At the default niceness the kernel shares a busy machine's
//! cores evenly, so a flood of costly renders delays every request behind them; at `RENDER_NICENESS` the
//! render threads (and the threads and child processes they start) take only what the request threads
//! leave, and all of it on an otherwise idle machine.

use std::{
    collections::VecDeque,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{
        Arc, Condvar, Mutex, MutexGuard, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
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

/// How much lower than the process's priority its render threads run (a niceness step, `nice(2)`): 10 gives
/// a request thread about nine times a render thread's share of a contended core.
const RENDER_NICENESS: i32 = 10;

struct Queues {
    request: VecDeque<Task>,
    background: VecDeque<Task>,
    /// Background renders running now, and how many may run at once.
    background_running: usize,
    background_limit: usize,
    stopped: bool,
}

impl Queues {
    fn new(background_limit: usize) -> Self {
        Self {
            request: VecDeque::new(),
            background: VecDeque::new(),
            background_running: 0,
            background_limit,
            stopped: false,
        }
    }

    fn next(&mut self) -> Option<(Task, Priority)> {
        if let Some(task) = self.request.pop_front() {
            return Some((task, Priority::Request));
        }
        if self.background_running < self.background_limit {
            let task = self.background.pop_front()?;
            self.background_running += 1;
            return Some((task, Priority::Background));
        }
        None
    }
}

struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
    /// Renders running now (read without the lock by `RenderPool::core_to_spare`).
    running: AtomicUsize,
    /// CPU cores of the machine: a render may use a second one while fewer renders than this run.
    cores: usize,
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
    /// Starts `threads` render threads (at least one), any of which runs background renders: for a process
    /// that only runs jobs.
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let count = threads.max(1);
        Self::start(count, count)
    }

    /// Starts `threads` render threads (at least one) for a process that serves requests: background renders
    /// run on all but one of them (on the one when there is only one).
    pub fn serving(threads: usize) -> std::io::Result<Self> {
        let count = threads.max(1);
        Self::start(count, (count - 1).max(1))
    }

    fn start(count: usize, background_limit: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues::new(background_limit)),
            ready: Condvar::new(),
            running: AtomicUsize::new(0),
            cores: thread::available_parallelism().map_or(2, usize::from),
        });
        // Built before spawning, so a failed spawn stops the threads already started.
        let pool = Self(Arc::new(Threads { shared: shared.clone(), count }));
        for index in 0..count {
            let shared = shared.clone();
            thread::Builder::new().name(format!("shutterbox-render-{index}")).spawn(move || work(&shared))?;
        }
        Ok(pool)
    }

    /// `new` with one thread per CPU core: renders are CPU-bound.
    pub fn per_core() -> std::io::Result<Self> {
        Self::new(thread::available_parallelism().map_or(2, usize::from))
    }

    /// How many render threads run.
    pub fn threads(&self) -> usize {
        self.0.count
    }

    /// Whether a render starting now has a core no other render is using (asked from the render itself,
    /// which counts as running): then it may split its work across two (`RenderOptions::parallel`).
    pub fn core_to_spare(&self) -> bool {
        self.0.shared.running.load(Ordering::Acquire) < self.0.shared.cores
    }

    /// Runs `render` on a render thread, after the renders queued before it of its class and of any higher
    /// class (a background render also waits while the other background renders hold all but one thread). A
    /// render abandoned by its caller (the future dropped) before it started is not run; one already
    /// running finishes (its deadline bounds it) and its result is discarded.
    pub async fn run<T, F>(&self, priority: Priority, render: F) -> Result<T, PoolError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let (done, result) = oneshot::channel();
        let task: Task = Box::new(move || {
            // Its caller went away while it waited (a client that hung up): nobody would read it.
            if done.is_closed() {
                return;
            }
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
    yield_to_requests();
    loop {
        let (task, priority) = {
            let mut queues = shared.lock();
            loop {
                if queues.stopped {
                    return;
                }
                if let Some(next) = queues.next() {
                    break next;
                }
                queues = shared.ready.wait(queues).unwrap_or_else(PoisonError::into_inner);
            }
        };
        shared.running.fetch_add(1, Ordering::AcqRel);
        task();
        shared.running.fetch_sub(1, Ordering::AcqRel);
        if priority == Priority::Background {
            shared.lock().background_running -= 1;
            // A background render may have been waiting for this one's place.
            shared.ready.notify_one();
        }
    }
}

/// Lowers the calling thread's priority by `RENDER_NICENESS`: on Linux niceness belongs to each thread,
/// and the threads and processes a thread starts inherit its own. Lowering needs no privilege; a failure
/// (none is known) leaves the thread at the process's priority.
fn yield_to_requests() {
    // SAFETY: nice(2) only changes the calling thread's scheduling priority.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::nice(RENDER_NICENESS);
    }
}

/// The calling thread's niceness (Linux), for the tests.
#[cfg(all(test, target_os = "linux"))]
fn niceness() -> i32 {
    // SAFETY: getpriority(2) with who = 0 reads the calling thread's niceness; it has no other effect.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

#[cfg(test)]
mod tests {
    use std::{sync::mpsc, time::Duration};

    use super::*;

    type Held = tokio::task::JoinHandle<Result<Result<(), mpsc::RecvTimeoutError>, PoolError>>;

    /// A `priority` render that holds one of `pool`'s threads until the sender is used (or 10 s pass),
    /// started once this returns.
    async fn hold_a_thread(pool: &RenderPool, priority: Priority) -> (mpsc::Sender<()>, Held) {
        let (release, hold) = mpsc::channel::<()>();
        let pool = pool.clone();
        let held =
            tokio::spawn(async move { pool.run(priority, move || hold.recv_timeout(Duration::from_secs(10))).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        (release, held)
    }

    #[tokio::test]
    async fn runs_a_render_and_returns_its_result() {
        let pool = RenderPool::new(2).expect("threads");
        let name = pool.run(Priority::Request, || thread::current().name().map(str::to_owned)).await;
        assert!(name.expect("ran").expect("named").starts_with("shutterbox-render-"));
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn renders_run_below_the_priority_of_the_threads_that_answer_requests() {
        let pool = RenderPool::new(1).expect("threads");
        let render = pool.run(Priority::Request, niceness).await.expect("ran");
        let caller = niceness();
        assert_eq!(render, (caller + RENDER_NICENESS).min(19), "the caller's niceness is {caller}");
    }

    #[tokio::test]
    async fn a_render_has_a_core_to_spare_only_while_fewer_renders_than_cores_run() {
        let cores = thread::available_parallelism().map_or(2, usize::from);
        let pool = RenderPool::new(cores + 1).expect("threads");
        let asks = |pool: &RenderPool| {
            let inner = pool.clone();
            let pool = pool.clone();
            async move { pool.run(Priority::Request, move || inner.core_to_spare()).await.expect("ran") }
        };
        assert_eq!(asks(&pool).await, cores > 1, "alone");
        // With a render on every other core, the next one keeps to its own.
        let mut held = Vec::new();
        for _ in 1..cores {
            held.push(hold_a_thread(&pool, Priority::Request).await);
        }
        assert!(!asks(&pool).await, "every core busy");
        for (release, task) in held {
            release.send(()).expect("held");
            task.await.expect("task").expect("ran").expect("released");
        }
        // A finished render counts until its thread is back from it, a moment after its result arrives.
        let mut spare = asks(&pool).await;
        for _ in 0..100 {
            if spare == (cores > 1) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            spare = asks(&pool).await;
        }
        assert_eq!(spare, cores > 1, "alone again");
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
        let (release, blocker) = hold_a_thread(&pool, Priority::Background).await;
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
    async fn background_renders_leave_a_thread_for_requests() {
        let pool = RenderPool::serving(2).expect("threads");
        // Two background renders: the first holds a thread until released, the second must wait for it
        // although the other thread is idle.
        let (release, first) = hold_a_thread(&pool, Priority::Background).await;
        let second = tokio::spawn({
            let pool = pool.clone();
            async move { pool.run(Priority::Background, || ()).await }
        });
        // A request runs at once on the thread kept free.
        tokio::time::timeout(Duration::from_secs(5), pool.run(Priority::Request, || ()))
            .await
            .expect("the request was not kept waiting")
            .expect("ran");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!second.is_finished(), "a second background render took the request's thread");
        release.send(()).expect("the first waits");
        first.await.expect("joined").expect("ran").expect("released");
        tokio::time::timeout(Duration::from_secs(5), second)
            .await
            .expect("the second ran once the first was done")
            .expect("joined")
            .expect("ran");
    }

    #[tokio::test]
    async fn one_thread_runs_background_renders_too() {
        let pool = RenderPool::serving(1).expect("threads");
        assert_eq!(pool.run(Priority::Background, || 3).await.expect("ran"), 3);
        assert_eq!(pool.run(Priority::Background, || 4).await.expect("ran again"), 4);
    }

    #[tokio::test]
    async fn a_jobs_only_pool_runs_background_renders_on_every_thread() {
        let pool = RenderPool::new(2).expect("threads");
        // Both renders wait for each other: they finish only if they run at the same time.
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let renders: Vec<_> = (0..2)
            .map(|_| {
                let (pool, barrier) = (pool.clone(), barrier.clone());
                tokio::spawn(async move { pool.run(Priority::Background, move || barrier.wait()).await })
            })
            .collect();
        for render in renders {
            tokio::time::timeout(Duration::from_secs(5), render)
                .await
                .expect("the two background renders ran side by side")
                .expect("joined")
                .expect("ran");
        }
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
