//! A bare stdio relay: starts the command given and copies standard input
//! to it and its output back, line by line, flushing each line, and does
//! nothing else. `scripts/bench-proxy.sh` measures `callint proxy` against
//! it, so that what the proxy adds is told apart from what any process in
//! between costs.
//!
//!     cargo run --release --example relay -- CMD ARGS...

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(cmd) = args.next() else {
        eprintln!("usage: relay CMD ARGS...");
        std::process::exit(2);
    };
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            eprintln!("relay: cannot start the command: {e}");
            std::process::exit(2);
        });
    let mut to_child = child.stdin.take().expect("piped");
    let from_child = child.stdout.take().expect("piped");
    let back = std::thread::spawn(move || {
        let mut out = std::io::stdout().lock();
        for line in BufReader::new(from_child).split(b'\n') {
            let Ok(mut line) = line else { break };
            line.push(b'\n');
            if out.write_all(&line).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
    });
    for line in std::io::stdin().lock().split(b'\n') {
        let Ok(mut line) = line else { break };
        line.push(b'\n');
        if to_child
            .write_all(&line)
            .and_then(|()| to_child.flush())
            .is_err()
        {
            break;
        }
    }
    drop(to_child);
    let _ = back.join();
    let _ = child.wait();
}
