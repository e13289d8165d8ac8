//! Launches executed in the background, as a real device runs them: `launch_end` checks and
//! times a launch, hands it to a host thread of the device's own and returns, so the host
//! program records the next launch while this one computes. Launches execute one after another
//! in submission order; whatever reads or writes buffer data from the host waits for them
//! first ([`Background::wait`]).
//!
//! A fault met while executing (an index out of range, an integer division by zero) is kept
//! and returned by the next call that waits, so the call that reports it does not depend on
//! the host's timing; launches submitted after a faulting one are skipped, since they would
//! compute on unspecified data.

use crate::exec::{self, Buffers, Fault};
use crate::ids::CoreId;
use crate::launch::{Launch, Recorded};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// A fault of an executed launch: where it happened, for the device to name it.
#[derive(Debug, Clone)]
pub(super) struct Failed {
    pub launch: String,
    pub core: CoreId,
    pub instruction: &'static str,
    pub layer: u32,
    pub fault: Fault,
}

/// A launch to execute on the buffers it names, with up to `threads` host threads.
struct Job {
    launch: Launch,
    buffers: Buffers,
    threads: usize,
}

/// Launches submitted and not yet executed, the first fault, and the payload of a panic of
/// the execution thread (a runtime bug), which the next caller that waits resumes.
#[derive(Default)]
struct Progress {
    pending: usize,
    failed: Option<Failed>,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

#[derive(Default)]
struct Shared {
    progress: Mutex<Progress>,
    idle: Condvar,
    /// Emptied instruction streams of executed launches, for the next launches to record into.
    spare: Mutex<Vec<Vec<Recorded>>>,
}

impl Shared {
    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The device's execution thread, started by the first launch.
#[derive(Default)]
pub(super) struct Background {
    jobs: Option<Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let progress = self.shared.progress();
        f.debug_struct("Background")
            .field("pending", &progress.pending)
            .field("failed", &progress.failed)
            .finish()
    }
}

impl Background {
    /// Queues `launch` for execution after the launches queued before it.
    pub fn submit(&mut self, launch: Launch, buffers: Buffers, threads: usize) {
        self.shared.progress().pending += 1;
        let job = Job {
            launch,
            buffers,
            threads,
        };
        let jobs = self.jobs.get_or_insert_with(|| {
            let (sender, receiver) = channel::<Job>();
            let shared = Arc::clone(&self.shared);
            self.worker = Some(std::thread::spawn(move || {
                for job in receiver {
                    execute(&shared, job);
                }
            }));
            sender
        });
        jobs.send(job)
            .expect("the execution thread lives as long as the device");
    }

    /// Runs `f` with the instruction streams that executed launches left, emptied, for
    /// recording; what `f` does not take stays for later launches.
    pub fn with_spare_streams<T>(&self, f: impl FnOnce(&mut Vec<Vec<Recorded>>) -> T) -> T {
        f(&mut self.shared.spare.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until every queued launch has executed; returns (and forgets) the first fault.
    /// A panic of the execution thread is resumed here, on the caller's thread.
    pub fn wait(&self) -> Result<(), Failed> {
        let mut progress = self.shared.progress();
        while progress.pending > 0 {
            progress = self
                .shared
                .idle
                .wait(progress)
                .unwrap_or_else(|e| e.into_inner());
        }
        if let Some(payload) = progress.panic.take() {
            drop(progress);
            std::panic::resume_unwind(payload);
        }
        progress.failed.take().map_or(Ok(()), Err)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(worker) = self.worker.take() {
            // A panic on the execution thread was a runtime bug already reported by the
            // launch's caller waiting in vain; there is nothing more to do with it here.
            let _ = worker.join();
        }
    }
}

/// Executes one job unless an earlier one failed or panicked, and records how it went.
fn execute(shared: &Shared, job: Job) {
    let skip = {
        let progress = shared.progress();
        progress.failed.is_some() || progress.panic.is_some()
    };
    let outcome = if skip {
        Ok(None)
    } else {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            exec::execute(&job.launch, &job.buffers, job.threads)
                .err()
                .map(|(slot, at, fault)| {
                    let recorded = &job.launch.streams[slot][at];
                    Failed {
                        launch: job.launch.name.clone(),
                        core: job.launch.cores[slot],
                        instruction: recorded.instr.name(),
                        layer: recorded.layer,
                        fault,
                    }
                })
        }))
    };
    let mut streams = job.launch.streams;
    for stream in &mut streams {
        stream.clear();
    }
    shared
        .spare
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(streams);
    let mut progress = shared.progress();
    match outcome {
        Ok(failed) if progress.failed.is_none() => progress.failed = failed,
        Ok(_) => {}
        Err(payload) => progress.panic = Some(payload),
    }
    progress.pending -= 1;
    if progress.pending == 0 {
        shared.idle.notify_all();
    }
}
