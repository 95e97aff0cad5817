//! The stdio transport: the client on the proxy's standard input and
//! output, one JSON-RPC message a line, and the server a child process
//! spoken to the same way.
//!
//! Two threads read the two sides and hand every line to one loop, which
//! owns the [`Session`] and writes to both sides: the messages keep their
//! order, and neither side is ever left unread (a side that writes faster
//! than the other reads waits in memory, not in a full pipe).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{warn, Session, MAX_MESSAGE, UPSTREAM_FAILED};

/// What the two readers hand the loop.
enum Event {
    Client(Vec<u8>),
    ClientClosed,
    Server(Vec<u8>),
    ServerClosed,
    /// A line longer than [`MAX_MESSAGE`], skipped.
    TooLong(bool),
}

/// Read lines of `r` into `tx` until its end. A line longer than
/// [`MAX_MESSAGE`] is skipped to its end, said as `TooLong(client)`.
fn pump(r: impl Read, client: bool, tx: mpsc::Sender<Event>) {
    let mut r = BufReader::with_capacity(1 << 16, r);
    loop {
        let mut line = Vec::new();
        let n = r
            .by_ref()
            .take(MAX_MESSAGE as u64 + 1)
            .read_until(b'\n', &mut line)
            .unwrap_or_default();
        if n == 0 {
            break;
        }
        if line.len() > MAX_MESSAGE && line.last() != Some(&b'\n') {
            // Skip the rest of the line.
            let mut rest = Vec::new();
            let _ = r.read_until(b'\n', &mut rest);
            let _ = tx.send(Event::TooLong(client));
            continue;
        }
        let ev = if client {
            Event::Client(line)
        } else {
            Event::Server(line)
        };
        if tx.send(ev).is_err() {
            return;
        }
    }
    let _ = tx.send(if client {
        Event::ClientClosed
    } else {
        Event::ServerClosed
    });
}

/// Write one message as a line, flushed.
fn write_line(w: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    w.write_all(bytes)?;
    if bytes.last() != Some(&b'\n') {
        w.write_all(b"\n")?;
    }
    w.flush()
}

/// Write the proxy's answers to the client: one line each, or one batch.
fn answer(out: &mut impl Write, answers: Vec<Value>, batch: bool) -> io::Result<()> {
    if answers.is_empty() {
        return Ok(());
    }
    if batch {
        return write_line(out, Value::Array(answers).to_string().as_bytes());
    }
    for a in answers {
        write_line(out, a.to_string().as_bytes())?;
    }
    Ok(())
}

/// Run `cmd` as the server, the client on standard input and output, until
/// the client closes or the server fails. Returns the exit status: 0 when
/// the client closed, [`UPSTREAM_FAILED`] when the server failed.
pub fn run_child(cmd: &[std::ffi::OsString], mut session: Session) -> u8 {
    let Some((program, args)) = cmd.split_first() else {
        warn("no server command given after --");
        return 2;
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            warn(&format!(
                "cannot start the server {}: {e}",
                crate::core::escape::file_name(&program.to_string_lossy())
            ));
            return UPSTREAM_FAILED;
        }
    };
    let (tx, rx) = mpsc::channel();
    let mut to_server: Option<ChildStdin> = child.stdin.take();
    let server_out = child.stdout.take().expect("piped");
    {
        let tx = tx.clone();
        std::thread::spawn(move || pump(server_out, false, tx));
    }
    std::thread::spawn(move || pump(io::stdin(), true, tx));
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // Lines of the server's that are not JSON (a banner, a log line) go to
    // standard error; said once.
    let mut noise = false;
    let status = loop {
        let ev = match session.next_deadline() {
            None => match rx.recv() {
                Ok(ev) => ev,
                Err(_) => break 0,
            },
            Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(ev) => ev,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let (answers, cancels) = session.expired();
                    for c in cancels {
                        if let Some(w) = to_server.as_mut() {
                            let _ = write_line(w, c.to_string().as_bytes());
                        }
                    }
                    if answer(&mut out, answers, false).is_err() {
                        break 0;
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break 0,
            },
        };
        match ev {
            Event::Client(line) => {
                let act = session.from_client(&line);
                if answer(&mut out, act.answers, act.batch).is_err() {
                    break 0; // the client is gone
                }
                if let Some(bytes) = act.forward {
                    let sent = to_server
                        .as_mut()
                        .is_some_and(|w| write_line(w, &bytes).is_ok());
                    if !sent {
                        // The server no longer reads: it is ending, and its
                        // end is handled when its output closes.
                        let gone = session.fail_these(
                            Some(&act.requests),
                            "the MCP server is not reading its input (it ended)",
                        );
                        let _ = answer(&mut out, gone, false);
                    }
                }
            }
            Event::Server(line) => match session.from_server(&line) {
                Ok(true) => {
                    if write_line(&mut out, &line).is_err() {
                        break 0;
                    }
                }
                Ok(false) => {}
                Err(g) => {
                    if !noise {
                        noise = true;
                        warn(&format!(
                            "{}; passed on to standard error (as is every such line), the session goes on",
                            g.0
                        ));
                    }
                    let mut err = io::stderr().lock();
                    let _ = write_line(&mut err, &line);
                }
            },
            Event::TooLong(client) => {
                warn(&format!(
                    "a message from the {} longer than {} MB was dropped",
                    if client { "client" } else { "server" },
                    super::MAX_MESSAGE >> 20
                ));
            }
            Event::ClientClosed => break 0,
            Event::ServerClosed => {
                let code = wait_for(&mut child, Duration::from_millis(500));
                let why = format!("the MCP server ended ({code}) before it answered");
                let failed = session.fail_in_flight(&why);
                let _ = answer(&mut out, failed, false);
                warn(&format!("the MCP server ended ({code})"));
                break UPSTREAM_FAILED;
            }
        }
    };
    // Ending: close the server's input, give it a moment, then stop it.
    drop(to_server);
    session.close();
    if child.try_wait().ok().flatten().is_none() {
        let _ = wait_for(&mut child, Duration::from_secs(2));
        if child.try_wait().ok().flatten().is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    status
}

/// Wait up to `limit` for `child` to end; how it ended, in words.
fn wait_for(child: &mut Child, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return s.to_string(),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => return "its output closed".into(),
            Err(e) => return e.to_string(),
        }
    }
}
