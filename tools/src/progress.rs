//! Progress of long work on a terminal: a spinner with what is being done and for how long, on
//! stderr, once the work has run for [`QUIET_FOR`] and only when stderr is a terminal (nothing
//! when it is piped or redirected), cleared when the work ends.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How long work runs before its progress shows: shorter work finishes before a reader looks.
pub const QUIET_FOR: Duration = Duration::from_secs(2);

/// The progress of one piece of work; dropping it clears it.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// Starts showing `message` (after [`QUIET_FOR`], on a terminal).
    pub fn start(message: impl Into<String>) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("the template is valid");
        bar.set_style(style);
        bar.set_message(message.into());
        if std::io::stderr().is_terminal() {
            let shown = bar.clone();
            std::thread::spawn(move || {
                std::thread::sleep(QUIET_FOR);
                if !shown.is_finished() {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(120));
                }
            });
        }
        Self { bar }
    }

    /// Replaces the message: the step the work has reached.
    pub fn set_message(&self, message: impl Into<String>) {
        self.bar.set_message(message.into());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
