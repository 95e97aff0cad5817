//! `callint proxy`: the command line of the MCP proxy ([`crate::app::proxy`]).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;

use super::DenyAt;
use crate::app::proxy::{self, http, stdio, Policy, RecordTo, Session, Tally};
use crate::core::diagnostic::Severity;

#[derive(Args)]
#[command(after_help = "Transports:
  callint proxy [OPTIONS] -- CMD ARGS...          a stdio MCP server run as a child
  callint proxy --upstream URL [--listen ADDR]    a streamable-HTTP proxy for a remote server
  callint proxy --upstream URL --stdio            a stdio front for a remote server

Every tools/call of a voicehook function is judged before the server gets it
(the rules that can judge a call before it is made, as `callint guard` runs
them). A call with a finding at or above --deny is answered by the proxy
itself: a tool result with isError true whose text names every rule broken,
the most severe first, and what to do. Everything else passes unchanged and
in order. Headers such as Authorization pass through and are never recorded.

The recording (--record) holds every message as {\"ts\", \"dir\", \"message\"}
lines; `callint check`, `callint report` and `check --follow` read it.

Both eras of MCP pass: the 2025 protocols (initialize, Mcp-Session-Id) and
the stateless 2026-07-28 one (version and capabilities in each request's
_meta, server/discover, resultType on every result).

A stdio server's lines that are not JSON go to standard error. A request the
server does not answer within --upstream-timeout gets a JSON-RPC error.

Exit status (stdio): 0 when the client closed, 3 when the server could not
be started, ended, could not be reached or answered something that is not
JSON over HTTP (each request in flight is answered with a JSON-RPC error
first), 2 for a usage error. Ctrl-C prints a summary of what was denied and exits 130.

Examples:
  callint proxy --record calls/ -- npx -y voicehook-mcp
  callint proxy --upstream https://mcp.example.com/mcp --listen 127.0.0.1:8765
  callint proxy --upstream https://mcp.example.com/mcp --stdio --header 'Authorization: Bearer TOKEN'")]
pub struct ProxyArgs {
    /// The MCP server to start and speak to on its standard input and
    /// output (after `--`).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
    /// The URL of a streamable-HTTP MCP server to pass the messages on to
    /// (http or https).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    /// Where the HTTP proxy listens (with --upstream).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:8765",
        conflicts_with = "stdio"
    )]
    listen: SocketAddr,
    /// Take the client's messages on standard input and answer on standard
    /// output, passing them on to --upstream.
    #[arg(long, requires = "upstream")]
    stdio: bool,
    /// A header sent with every request to --upstream in --stdio mode, as
    /// `Name: value` (repeat it); never recorded.
    #[arg(long, value_name = "HEADER", requires = "stdio")]
    header: Vec<String>,
    /// Write every message, with its time and direction, to this MCP trace
    /// file (appended), or to one file per session in this folder (an
    /// existing folder, or a path ending in /).
    #[arg(long, value_name = "PATH")]
    record: Option<PathBuf>,
    /// The lowest severity that denies a call. Findings of severity info
    /// never deny.
    #[arg(long, value_enum, default_value_t = DenyAt::Warning)]
    deny: DenyAt,
    /// Deny nothing: pass every call, and say on standard error what would
    /// have been denied.
    #[arg(long)]
    dry_run: bool,
    /// Use this configuration file instead of the callint.toml nearest to
    /// the working folder.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every callint.toml.
    #[arg(long)]
    no_config: bool,
    /// Seconds the server has to answer a request; past them the proxy
    /// answers it with a JSON-RPC error (code -32001) and goes on.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0,
          value_parser = positive_seconds)]
    upstream_timeout: f64,
    /// Take each message's time from `_meta["callint/ts"]` of its params or
    /// result when it has one (replaying a recorded call).
    #[arg(long, hide = true)]
    clock_from_meta: bool,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err("a number of seconds above 0 and at most 86400".into()),
    }
}

/// Run the proxy; its exit status.
pub fn run(args: ProxyArgs) -> u8 {
    let settings = crate::app::batch::Settings {
        config: crate::app::batch::ConfigChoice::from_flags(args.no_config, args.config.as_deref()),
        ..crate::app::batch::Settings::default()
    };
    let linter = match settings.linter_for(&PathBuf::from("callint.toml")) {
        Ok(l) => Arc::new(l),
        Err(e) => {
            proxy::warn(&e);
            return 2;
        }
    };
    let policy = Policy {
        deny: match args.deny {
            DenyAt::Warning => Severity::Warning,
            DenyAt::Error => Severity::Error,
        },
        dry_run: args.dry_run,
        clock_from_meta: args.clock_from_meta,
        upstream_timeout: std::time::Duration::from_secs_f64(args.upstream_timeout),
    };
    let record = args.record.as_deref().map(RecordTo::from_arg);
    let tally = Arc::new(Mutex::new(Tally::default()));
    {
        let tally = tally.clone();
        let _ = ctrlc::set_handler(move || {
            let t = tally.lock().unwrap_or_else(|e| e.into_inner());
            proxy::warn(&format!("stopped: {}", t.summary()));
            std::process::exit(130);
        });
    }
    let status = match &args.upstream {
        None => {
            if args.command.is_empty() {
                proxy::warn("name a server: `callint proxy -- CMD ARGS...`, or `--upstream URL`");
                return 2;
            }
            let rec = match &record {
                Some(r) => match r.open("stdio") {
                    Ok(r) => Some(r),
                    Err(e) => {
                        proxy::warn(&format!("cannot open the recording: {e}"));
                        return 2;
                    }
                },
                None => None,
            };
            let session = Session::new(linter, policy, rec, tally.clone());
            stdio::run_child(&args.command, session)
        }
        Some(url) => {
            let url = match reqwest::Url::parse(url) {
                Ok(u) if matches!(u.scheme(), "http" | "https") => u,
                _ => {
                    proxy::warn(&format!(
                        "--upstream {} is not an http or https URL",
                        crate::core::escape::quote(url, 80)
                    ));
                    return 2;
                }
            };
            let up = http::Upstream {
                url,
                linter,
                policy,
                record,
                tally: tally.clone(),
            };
            if args.stdio {
                let mut headers = Vec::new();
                for h in &args.header {
                    let Some((k, v)) = h.split_once(':') else {
                        proxy::warn("--header takes `Name: value`");
                        return 2;
                    };
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                }
                http::stdio_front(up, headers)
            } else {
                http::serve(args.listen, up)
            }
        }
    };
    let t = tally.lock().unwrap_or_else(|e| e.into_inner());
    if t.judged > 0 {
        proxy::warn(&t.summary());
    }
    status
}
