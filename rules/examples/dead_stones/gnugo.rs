//! GNU Go 3.8 over GTP (`gnugo --mode gtp --chinese-rules`), for the measurement: its dead list for a
//! record's final position, timed, and on request what its own reading says of the chains Tengen calls
//! dead and GNU Go's list does not.
//!
//! `final_status_list dead` answers from GNU Go's aftermath, which plays the position out; its owl
//! reading (`owl_attack`, `owl_defend`) answers whether a chain can be killed with the opponent moving
//! first and whether it can live with its owner moving first. The two can disagree (`02857.sgf`, see
//! docs/dead-stones.md), which is why `--owl` prints both
//! (`compare::OwlAnswer`).

use super::compare::{GnuAnswer, OwlAnswer};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tengen_rules::Point;

/// One GNU Go process with a record loaded; killed when dropped.
struct Session {
    child: Child,
    stdin: ChildStdin,
    replies: mpsc::Receiver<String>,
    timeout: Duration,
    /// The colour to move after the record, as `loadsgf` answers it.
    to_move: String,
}

impl Session {
    /// Starts GNU Go and loads `sgf` to its final position; `None` when either fails.
    fn start(gnugo: &Path, sgf: &Path, timeout: Duration) -> Option<Session> {
        let mut child = Command::new(gnugo)
            .args(["--mode", "gtp", "--chinese-rules"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        };
        let (sender, replies) = mpsc::channel();
        std::thread::spawn(move || read_replies(BufReader::new(stdout), sender));
        let mut session = Session {
            child,
            stdin,
            replies,
            timeout,
            to_move: String::new(),
        };
        session.to_move = session.ask(&format!("loadsgf {}", sgf.display()))?;
        Some(session)
    }

    /// GNU Go's answer to `command` (the text after `=`), or `None` on an error reply or a timeout.
    fn ask(&mut self, command: &str) -> Option<String> {
        writeln!(self.stdin, "{command}").ok()?;
        self.stdin.flush().ok()?;
        let reply = self.replies.recv_timeout(self.timeout).ok()?;
        reply
            .strip_prefix('=')
            .map(|answer| answer.trim().to_string())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends each GTP reply (its lines up to the blank line that ends it) down `sender`.
fn read_replies(stdout: impl BufRead, sender: mpsc::Sender<String>) {
    let mut reply = String::new();
    for line in stdout.lines() {
        let Ok(line) = line else { return };
        if line.trim().is_empty() {
            if !reply.is_empty() && sender.send(std::mem::take(&mut reply)).is_err() {
                return;
            }
        } else {
            reply.push_str(&line);
            reply.push('\n');
        }
    }
}

/// GNU Go's dead stones on the final position of `sgf`, timing `final_status_list dead` alone.
pub fn dead_list(gnugo: &Path, sgf: &Path, timeout: Duration) -> GnuAnswer {
    let Some(mut session) = Session::start(gnugo, sgf, timeout) else {
        return GnuAnswer {
            millis: 0,
            dead: None,
        };
    };
    let started = Instant::now();
    let answer = session.ask("final_status_list dead");
    let millis = started.elapsed().as_millis() as u64;
    let dead = answer.map(|a| {
        a.split_whitespace()
            .filter_map(|v| Point::from_gtp(v, 19))
            .collect()
    });
    GnuAnswer { millis, dead }
}

/// What GNU Go's own reading says of each chain through `stones` on the final position of `sgf` (see
/// `OwlAnswer`); `None` when GNU Go did not start or load the record.
pub fn owl_answers(
    gnugo: &Path,
    sgf: &Path,
    timeout: Duration,
    stones: &[Point],
) -> Option<Vec<OwlAnswer>> {
    let mut session = Session::start(gnugo, sgf, timeout)?;
    let to_move = session.to_move.clone();
    let answers = stones
        .iter()
        .map(|&stone| {
            let mut ask = |command: &str| {
                let asked = session.ask(&format!("{command} {}", stone.to_gtp(19)));
                asked.unwrap_or_else(|| "?".to_string())
            };
            OwlAnswer {
                stone,
                to_move: to_move.clone(),
                final_status: ask("final_status"),
                dragon_status: ask("dragon_status"),
                owl_attack: ask("owl_attack"),
                owl_defend: ask("owl_defend"),
            }
        })
        .collect();
    Some(answers)
}
