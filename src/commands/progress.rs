//! A progress bar on stderr for long work (`check` over many commits, `replay` of a large
//! file, `fingerprint` of a large log, `dashboard` over many PRs). Shown only to a person
//! watching: stderr is a terminal, not in CI (`CI`, `GITHUB_ACTIONS`), not with `--json`,
//! and only once the work has taken about a second. Plain under `NO_COLOR`. The hooks never
//! use it: their hot path stays as it is.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::settings::Settings;

#[cfg(test)]
const DELAY: Duration = Duration::from_secs(1);

pub struct Progress {
    enabled: bool,
    color: bool,
    /// How long work runs before its bar appears (about a second).
    delay: Duration,
    work: Option<Work>,
}

struct Work {
    total: u64,
    done: u64,
    message: String,
    bytes: bool,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Whether a bar may be shown at all is decided here, once, from the environment.
    pub fn new(settings: &Settings, json: bool) -> Progress {
        Progress {
            enabled: shows(settings, json),
            color: settings.color(),
            delay: settings.progress_delay(),
            work: None,
        }
    }

    /// A bar that is never shown.
    pub fn hidden() -> Progress {
        Progress {
            enabled: false,
            color: false,
            delay: Duration::MAX,
            work: None,
        }
    }

    /// Whether a bar may appear (work worth chunking for it).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Starts counting `total` steps of `message`.
    pub fn start(&mut self, total: u64, message: &str) {
        self.begin(total, message, false);
    }

    /// Starts counting `total` bytes of `message`.
    pub fn start_bytes(&mut self, total: u64, message: &str) {
        self.begin(total, message, true);
    }

    fn begin(&mut self, total: u64, message: &str, bytes: bool) {
        self.finish();
        if self.enabled {
            self.work = Some(Work {
                total,
                done: 0,
                message: message.to_owned(),
                bytes,
                started: Instant::now(),
                bar: None,
            });
        }
    }

    pub fn inc(&mut self) {
        self.add(1);
    }

    pub fn add(&mut self, n: u64) {
        let (color, delay) = (self.color, self.delay);
        let Some(w) = self.work.as_mut() else {
            return;
        };
        w.done += n;
        if w.bar.is_none() && w.started.elapsed() >= delay {
            let bar = ProgressBar::with_draw_target(Some(w.total), ProgressDrawTarget::stderr());
            bar.set_style(style(color, w.bytes));
            bar.set_message(w.message.clone());
            w.bar = Some(bar);
        }
        if let Some(bar) = &w.bar {
            bar.set_position(w.done);
        }
    }

    /// Clears the bar, if one is shown.
    pub fn finish(&mut self) {
        if let Some(bar) = self.work.take().and_then(|w| w.bar) {
            bar.finish_and_clear();
        }
    }

    /// Whether a bar is on the screen now (tests).
    pub fn visible(&self) -> bool {
        self.work.as_ref().is_some_and(|w| w.bar.is_some())
    }
}

/// A reader that moves a byte-counting bar as it is read.
pub struct Reading<'a, R> {
    pub inner: R,
    pub progress: &'a mut Progress,
}

impl<R: std::io::Read> std::io::Read for Reading<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add(n as u64);
        Ok(n)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A person is watching stderr, and the output is not for a machine.
pub fn shows(settings: &Settings, json: bool) -> bool {
    settings.stderr_tty && !json && !settings.github.actions && !settings.ci
}

fn style(color: bool, bytes: bool) -> ProgressStyle {
    let (bar, counts) = match (color, bytes) {
        (true, true) => ("{bar:30.cyan/blue}", "{bytes}/{total_bytes}"),
        (true, false) => ("{bar:30.cyan/blue}", "{pos}/{len}"),
        (false, true) => ("{bar:30}", "{bytes}/{total_bytes}"),
        (false, false) => ("{bar:30}", "{pos}/{len}"),
    };
    ProgressStyle::with_template(&format!("{{msg}} {bar} {counts} ({{eta}} left)"))
        .expect("a valid progress template")
        .progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn env(vars: &[(&str, &str)], tty: bool) -> Settings {
        let (mut s, _) = Settings::from_vars(vars.iter().copied(), PathBuf::from("/"));
        s.stderr_tty = tty;
        s
    }

    #[test]
    fn only_a_person_at_a_terminal_sees_it() {
        assert!(shows(&env(&[], true), false));
        assert!(!shows(&env(&[], false), false), "stderr is not a terminal");
        assert!(!shows(&env(&[], true), true), "--json");
        assert!(!shows(&env(&[("CI", "true")], true), false), "CI");
        assert!(
            !shows(&env(&[("GITHUB_ACTIONS", "true")], true), false),
            "Actions"
        );
    }

    #[test]
    fn the_bar_waits_a_second() {
        let mut p = Progress::new(&env(&[], true), false);
        p.start(10, "work");
        p.inc();
        assert!(!p.visible(), "not before a second has passed");
        p.work.as_mut().unwrap().started -= DELAY;
        p.inc();
        assert!(p.visible());
        p.finish();
        assert!(!p.visible());
        let mut off = Progress::new(&env(&[], false), false);
        off.start(10, "work");
        off.work_started_long_ago();
        off.inc();
        assert!(!off.visible(), "never without a terminal");
    }

    impl Progress {
        fn work_started_long_ago(&mut self) {
            if let Some(w) = self.work.as_mut() {
                w.started -= DELAY;
            }
        }
    }

    #[test]
    fn no_color_gives_a_plain_bar() {
        let plain = style(false, false);
        let _ = plain;
        let p = Progress::new(&env(&[("NO_COLOR", "1")], true), false);
        assert!(!p.color);
        let p = Progress::new(&env(&[], true), false);
        assert!(p.color);
    }
}
