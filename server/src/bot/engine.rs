//! A GTP engine as a child process: one command at a time, each answer awaited with a deadline. An engine
//! that exits, hangs past its deadline or answers with something that is not GTP is reported as an
//! `EngineError`; the caller then throws the process away (`kill_on_drop`) and starts a new one.

use std::fmt;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// An answer longer than this is garbage: the longest real one (`list_commands`, a final status list on
/// 19x19) is a few kilobytes.
const ANSWER_BYTES_MAX: usize = 64 * 1024;

/// Why the engine could not answer a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not be started.
    Spawn(String),
    /// The process closed its output (it exited or crashed).
    Exited,
    /// No answer within the deadline.
    TimedOut,
    /// The answer was not a GTP response.
    Garbage(String),
    /// The engine answered `? message`.
    Refused(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn(err) => write!(f, "the engine could not be started: {err}"),
            EngineError::Exited => f.write_str("the engine exited"),
            EngineError::TimedOut => f.write_str("the engine did not answer in time"),
            EngineError::Garbage(text) => write!(f, "the engine answered garbage: {text:?}"),
            EngineError::Refused(text) => write!(f, "the engine refused: {text}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// A running engine process.
#[derive(Debug)]
pub struct Engine {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Engine {
    /// Starts `command_line` through `sh -c exec ...`, so an engine is given as people write it
    /// (`/usr/games/gnugo --mode gtp --chinese-rules`) and the shell is replaced by the engine itself.
    pub fn spawn(command_line: &str) -> Result<Engine, EngineError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command_line}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| EngineError::Spawn(err.to_string()))?;
        let stdin = child
            .stdin
            .take()
            .ok_or(EngineError::Spawn("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or(EngineError::Spawn("no stdout".into()))?;
        Ok(Engine {
            _child: child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
        })
    }

    /// Sends one command and returns the text of its successful answer.
    pub async fn command(
        &mut self,
        command: &str,
        deadline: Duration,
    ) -> Result<String, EngineError> {
        let exchange = async {
            self.stdin
                .write_all(format!("{command}\n").as_bytes())
                .await
                .map_err(|_| EngineError::Exited)?;
            self.stdin.flush().await.map_err(|_| EngineError::Exited)?;
            self.read_answer().await
        };
        tokio::time::timeout(deadline, exchange)
            .await
            .map_err(|_| EngineError::TimedOut)?
    }

    /// Reads one GTP answer: a line starting `=` or `?`, continuation lines, then an empty line.
    async fn read_answer(&mut self) -> Result<String, EngineError> {
        let mut answer = String::new();
        loop {
            let line = self
                .stdout
                .next_line()
                .await
                .map_err(|_| EngineError::Exited)?;
            let line = line.ok_or(EngineError::Exited)?;
            let line = line.trim_end_matches('\r');
            if answer.is_empty() && line.trim().is_empty() {
                continue;
            }
            if line.is_empty() {
                break;
            }
            answer.push_str(line);
            answer.push('\n');
            if answer.len() > ANSWER_BYTES_MAX {
                return Err(EngineError::Garbage("an answer of more than 64 KiB".into()));
            }
        }
        let (status, rest) = answer.split_at(1);
        // Skip an optional numeric id after the status character.
        let text = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        match status {
            "=" => Ok(text),
            "?" => Err(EngineError::Refused(text)),
            _ => Err(EngineError::Garbage(answer.trim().to_string())),
        }
    }
}
