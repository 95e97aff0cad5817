//! The `callint` command line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use callint::config::Config;
use callint::engine::{FileResult, Linter};
use callint::report::{self, Format, Summary};
use callint::rules;

/// Lint recorded multi-agent voice calls against the rules of the room.
///
/// callint reads the logs an agent's client recorded during a voicehook call
/// (one JSON record per line) and points at each line where an agent broke a
/// rule: who answers, in which language, how boards read, how the call link
/// is handed over.
#[derive(Parser)]
#[command(name = "callint", version, propagate_version = true)]
#[command(after_help = "Examples:
  callint check corpus/                 lint every log below a folder
  callint check call.jsonl --format json
  callint check logs/ --select board-bundle,label-too-long
  callint rules                         list every rule
  callint explain board-bundle          why a rule exists, with examples")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint call logs (files, or folders searched for .jsonl, .ndjson and .log files).
    Check(CheckArgs),
    /// List the rules: name, rulebook rule, default severity, summary.
    Rules {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Print a rule's page: what it checks, why, and Bad and Good examples.
    Explain {
        /// The rule's name, as `callint rules` lists it.
        rule: String,
    },
    /// Show whom a line addresses, by the server's addressing rule.
    Addressing {
        /// The spoken line.
        text: String,
        /// Agent labels in the call, comma-separated.
        #[arg(long, value_delimiter = ',')]
        labels: Vec<String>,
        /// The human's name.
        #[arg(long)]
        human: Option<String>,
        /// The voicebot's name.
        #[arg(long, default_value = "Delta")]
        voicebot: String,
    },
}

#[derive(Args)]
struct CheckArgs {
    /// Files or folders to lint.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format [default: pretty on a terminal, concise otherwise].
    #[arg(long, value_enum)]
    format: Option<OutFormat>,
    /// Run only these rules (comma-separated; `all` for every rule). Replaces `select` of callint.toml.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    select: Option<Vec<String>>,
    /// Skip these rules (comma-separated). Adds to `ignore` of callint.toml.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    ignore: Vec<String>,
    /// Use this configuration file instead of the nearest callint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every callint.toml.
    #[arg(long)]
    no_config: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Print counts per rule and per agent instead of each finding.
    #[arg(long)]
    statistics: bool,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    exit_zero: bool,
    /// Print findings only, no closing summary line.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutFormat {
    /// Graphical reports with the offending value underlined.
    Pretty,
    /// One line per finding: file:line:col: severity[rule] message.
    Concise,
    /// One JSON document with every finding and a summary.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => check(args),
        Command::Rules { format } => list_rules(format),
        Command::Explain { rule } => explain(&rule),
        Command::Addressing {
            text,
            labels,
            human,
            voicebot,
        } => addressing(&text, &labels, human.as_deref(), &voicebot),
    };
    ExitCode::from(code)
}

fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("callint: error: {msg}");
    2
}

fn check(args: CheckArgs) -> u8 {
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let format = match args.format {
        Some(OutFormat::Pretty) => Format::Pretty,
        Some(OutFormat::Concise) => Format::Concise,
        Some(OutFormat::Json) => Format::Json,
        None if tty => Format::Pretty,
        None => Format::Concise,
    };
    let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && !no_color_env,
    };
    let width = terminal_size::terminal_size()
        .map(|(w, _)| w.0 as usize)
        .or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
        .unwrap_or(120);

    // One linter per configuration file in force.
    let mut linters: Vec<(Option<PathBuf>, Linter)> = Vec::new();
    let mut results: Vec<FileResult> = Vec::new();
    let mut failed = false;
    for path in &args.paths {
        let config_path = if args.no_config {
            None
        } else if let Some(c) = &args.config {
            Some(c.clone())
        } else {
            Config::discover(path)
        };
        let slot = match linters.iter().position(|(p, _)| *p == config_path) {
            Some(k) => k,
            None => {
                let config = match &config_path {
                    Some(p) => match Config::load(p) {
                        Ok(c) => c,
                        Err(e) => return fail(e),
                    },
                    None => Config::default(),
                };
                match Linter::new(&config, args.select.as_deref(), &args.ignore) {
                    Ok(l) => linters.push((config_path, l)),
                    Err(e) => return fail(e),
                }
                linters.len() - 1
            }
        };
        let linter = &linters[slot].1;
        let mut files = Vec::new();
        let mut errors = Vec::new();
        callint::walk::files(path, &mut files, &mut errors);
        for e in errors {
            eprintln!(
                "callint: error: cannot read {}: {}",
                e.path.display(),
                e.error
            );
            failed = true;
        }
        for file in files {
            match std::fs::read(&file) {
                Ok(bytes) => results.push(linter.lint(&file.to_string_lossy(), bytes)),
                Err(e) => {
                    eprintln!("callint: error: cannot read {}: {e}", file.display());
                    failed = true;
                }
            }
        }
    }

    let mut summary = Summary::default();
    for r in &results {
        summary.add(r);
    }
    let mut out = String::new();
    if format == Format::Json {
        out = report::json::render(&results, &summary);
    } else if args.statistics {
        statistics(&summary, &mut out);
    } else {
        let style = report::pretty::Style { color, width };
        for r in &results {
            match format {
                Format::Pretty => report::pretty::render(r, style, &mut out),
                _ => report::concise::render(r, &mut out),
            }
        }
        if !args.quiet {
            out.push_str(&summary.line());
            out.push('\n');
        }
    }
    let mut lock = stdout.lock();
    if lock
        .write_all(out.as_bytes())
        .and_then(|_| lock.flush())
        .is_err()
    {
        // A closed pipe (`| head`) is not the linter's failure.
        return if failed { 2 } else { 0 };
    }
    if failed {
        2
    } else if summary.errors() > 0 && !args.exit_zero {
        1
    } else {
        0
    }
}

fn statistics(s: &Summary, out: &mut String) {
    use std::fmt::Write;
    let mut rows: Vec<(&str, usize)> = s.by_rule.iter().map(|(k, v)| (*k, *v)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (rule, n) in rows {
        let sev = rules::meta(rule)
            .map(|m| m.default_severity.name())
            .unwrap_or("");
        let _ = writeln!(out, "{n:>6}  {rule:<28} {sev}");
    }
    if !s.by_agent.is_empty() {
        let _ = writeln!(out, "\nby agent:");
        let mut rows: Vec<(&String, &usize)> = s.by_agent.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (agent, n) in rows {
            let _ = writeln!(out, "{n:>6}  {}", callint::report::escape::one_line(agent));
        }
    }
    let _ = writeln!(out, "\n{}", s.line());
}

fn list_rules(format: ListFormat) -> u8 {
    let cat = rules::catalogue();
    match format {
        ListFormat::Json => {
            let v: Vec<serde_json::Value> = cat
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "name": m.name,
                        "seed": m.seed,
                        "default_severity": m.default_severity.name(),
                        "summary": m.summary,
                        "options": m.options.iter().map(|o| serde_json::json!({
                            "name": o.name, "default": o.default.to_string(), "help": o.help
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        ListFormat::Text => {
            println!("{:<28} {:<10} {:<8} SUMMARY", "RULE", "SEED", "DEFAULT");
            for m in cat {
                println!(
                    "{:<28} {:<10} {:<8} {}",
                    m.name,
                    m.seed,
                    m.default_severity.name(),
                    m.summary
                );
            }
        }
    }
    0
}

fn explain(name: &str) -> u8 {
    match rules::page(name) {
        Some(p) => {
            print!("{p}");
            0
        }
        None => fail(callint::config::ConfigError::unknown_rule(name)),
    }
}

fn addressing(text: &str, labels: &[String], human: Option<&str>, voicebot: &str) -> u8 {
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let roster = callint::addressing::Roster::new(human, voicebot, &labels);
    let who = roster.addressees(text);
    if who.is_empty() {
        println!("nobody");
    } else {
        for w in who {
            println!("{}", callint::report::escape::one_line(w));
        }
    }
    0
}
