//! The `callint` command line.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use callint::config::Config;
use callint::engine::{FileResult, Linter};
use callint::report::escape::{file_name, one_line};
use callint::report::{self, Format, Summary};
use callint::rules;

mod adopt;
mod outputs;
mod postmortem;
mod settings;

/// A log becomes hundreds of thousands of small allocations (records, lines,
/// texts) that live until the file is linted; mimalloc serves them with less
/// bookkeeping than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Lint call logs, agents' session files, traces, recordings, transcripts, boards, prompts and helper code (files, or folders searched for them).
    Check(Box<CheckArgs>),
    /// Post-mortem of one call from its logs: who spoke when, latencies, findings (--html for a page).
    Report(postmortem::ReportArgs),
    /// List the rules: name, rulebook rule, default severity, scope (own log, or also the merged room), summary.
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
    /// Judge a voicehook call before it is made: a PreToolUse hook for Claude Code (hook input on standard input; a denial as JSON on standard output).
    Guard(GuardArgs),
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
    /// Files or folders to lint [default: .]; `-` reads standard input.
    /// Folders are searched for files ending in .jsonl, .ndjson, .log, .txt,
    /// .vtt, .srt, .md, .markdown, .py, .js, .mjs, .ts and .sh (each also
    /// as .gz or .zst), `stdin`/`stdout` halves of a capture, and .json
    /// files that hold a log, a trace, a board or a session.
    paths: Vec<PathBuf>,
    /// Read every input as this format instead of telling it by content and name: native, mcp, claude-desktop, mcp-debug, inspector, tee (pairs the files named, two by two), transcript, vtt, srt, board, prompt, python, javascript, shell, claude-code, codex, opencode. Compressed files (.gz, .zst) are unpacked first.
    #[arg(long, value_name = "FORMAT", value_parser = callint::input::Format::parse_name)]
    input_format: Option<callint::input::Format>,
    /// Output format, and the file it goes to [default: pretty on a
    /// terminal, concise otherwise]: pretty, concise, json, jsonl, sarif,
    /// github, junit or gitlab. Repeat it for several outputs of one run
    /// (`--format json:findings.json --format github`); at most one goes
    /// to standard output.
    #[arg(long, value_name = "FORMAT[:FILE]", value_parser = outputs::parse_spec)]
    format: Vec<outputs::Output>,
    /// Write the output of the --format without a file here instead of to
    /// standard output.
    #[arg(long, short, value_name = "FILE")]
    output_file: Option<PathBuf>,
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
    /// The lowest severity that makes the run fail (exit 1).
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// Fail (exit 1) when more than N warnings are found, whatever --fail-on says.
    #[arg(long, value_name = "N")]
    max_warnings: Option<usize>,
    /// Also check the paths listed in FILE, one a line (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    files_from: Option<PathBuf>,
    /// The name to file the findings on standard input under (`-`), and
    /// to tell its format and find its callint.toml by.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<PathBuf>,
    /// Print the settings FILE would be checked with (the nearest
    /// callint.toml, the command line, the defaults) and where each comes
    /// from; check nothing.
    #[arg(long, value_name = "FILE")]
    show_settings: Option<PathBuf>,
    /// Lint every file again, without reading or writing the cache of
    /// unchanged files' findings.
    #[arg(long)]
    no_cache: bool,
    /// Keep the cache of unchanged files' findings here.
    #[arg(long, value_name = "DIR", default_value = callint::cache::DIR)]
    cache_dir: PathBuf,
    /// Print findings only, no closing summary line and no progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Lint this many files at once [default: all cores].
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Also read hidden files and files named in .gitignore or .ignore files.
    #[arg(long)]
    no_ignore: bool,
    /// Lint each file on its own. By default the native logs of one call
    /// (same call id) are also merged into one room timeline, where the
    /// room-scope rules judge the agents whose own log is not among them.
    #[arg(long)]
    no_merge: bool,
    /// Findings of one rule listed per file before the rest are summed up
    /// in one "and K more like this" [default: 100, or `max-repeats` of
    /// callint.toml]; 0 lists all.
    #[arg(long, value_name = "N")]
    max_repeats: Option<usize>,
    /// Report only findings this baseline file does not list, and say how
    /// many it accepted; its entries that match nothing are listed.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every finding of this run to a baseline file (entries of files
    /// not checked in this run are kept), and report none of them.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Drop the entries of the --baseline file that matched nothing.
    #[arg(long, requires = "baseline", conflicts_with = "write_baseline")]
    prune_baseline: bool,
    /// Keep watching the files (logs still being written) and print each
    /// new finding as it appears, until Ctrl-C, which prints a summary.
    /// Truncated and replaced (rotated) files are read again from the
    /// start. Output: concise, or `--format jsonl`.
    #[arg(long)]
    follow: bool,
    /// How often --follow looks at the files, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 250, hide = true)]
    poll_ms: u64,
}

#[derive(Args)]
struct GuardArgs {
    /// The lowest severity that denies a call. Findings of severity info
    /// never deny.
    #[arg(long, value_enum, default_value_t = DenyAt::Warning)]
    deny: DenyAt,
    /// Deny nothing: say on standard error what would have been denied.
    #[arg(long)]
    dry_run: bool,
    /// Use this configuration file instead of the callint.toml nearest to
    /// the hook's working folder.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every callint.toml.
    #[arg(long)]
    no_config: bool,
    /// Judge the call as made at this time (RFC 3339) instead of now, to
    /// replay a recorded session.
    #[arg(long, value_name = "TIME", hide = true)]
    now: Option<String>,
    /// Keep what was read of each session in this folder, so that the next
    /// call reads only what the session grew by [default:
    /// $XDG_CACHE_HOME/callint/guard, else ~/.cache/callint/guard].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Read the session afresh on every call, keeping nothing.
    #[arg(long)]
    no_cache: bool,
    /// Write the kept state again once this many bytes more of the session
    /// were read since it (0: after every call).
    #[arg(long, value_name = "BYTES", default_value_t = callint::guard::REWRITE_AFTER, hide = true)]
    cache_rewrite: u64,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum DenyAt {
    /// Warnings and errors deny.
    Warning,
    /// Only errors deny.
    Error,
}

#[derive(Clone, Copy, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
}

impl FailOn {
    fn severity(self) -> callint::diagnostic::Severity {
        use callint::diagnostic::Severity;
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
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

/// mimalloc's `purge_delay` option (its number in mimalloc 3's list).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory is kept before it goes back to the system, in
/// milliseconds. mimalloc's default, a second, kept the pages of the
/// model's freed temporaries resident beside the ones allocated next (on an
/// 80 MB log, a tenth of the peak); none at all gave back, and faulted in
/// again, the pages that each line's parse frees and the next one reuses
/// (seven times the page faults on a 320 MB log, and a second of the
/// kernel's time). A few milliseconds keep the one and lose the other.
const PURGE_DELAY_MS: std::ffi::c_long = 2;

fn main() -> ExitCode {
    // A delay set in mimalloc's own environment variable is left alone.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's documented options; no pointer is
        // passed, and an unknown option number is ignored by mimalloc.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A hook that exits with 2 blocks the agent's call: a guard
        // started with a wrong flag says so and lets the call through.
        Err(e) if std::env::args_os().nth(1).is_some_and(|a| a == "guard") && e.use_stderr() => {
            warn(format_args!("guard: {}", e.to_string().trim_end()));
            return ExitCode::from(1);
        }
        Err(e) => e.exit(),
    };
    let code = match cli.command {
        Command::Guard(args) => guard(args),
        Command::Check(args) => check(*args),
        Command::Report(args) => postmortem::run(args),
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
    warn(format_args!("error: {msg}"));
    2
}

/// Print `callint: MSG` on standard error. A standard error that cannot be
/// written to is no reason to stop (nor to panic, as `eprintln!` would).
fn warn(msg: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "callint: {msg}");
}

/// Write `out` to standard output and return `code`, the status the run
/// calls for. A reader that closed the pipe (`| head`) wanted no more: the
/// rest is dropped silently and `code` stands. Any other failure to write
/// (a full disk, a closed descriptor) means the output is lost, so it is
/// said on standard error and the status is 2.
fn emit(out: &[u8], code: u8) -> u8 {
    let mut lock = std::io::stdout().lock();
    match lock.write_all(out).and_then(|()| lock.flush()) {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => fail(format_args!("cannot write the output: {e}")),
    }
}

/// `callint check --follow`: poll the files until Ctrl-C, then sum up on
/// standard error.
fn follow(args: CheckArgs) -> u8 {
    use callint::follow::{Follow, Style};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let style = match args.format.as_slice() {
        [] => Style::Concise,
        [o] if o.path.is_none() && o.format == Format::Concise => Style::Concise,
        [o] if o.path.is_none() && o.format == Format::Jsonl => Style::Jsonl,
        _ => return fail("--follow writes --format concise or jsonl, to standard output"),
    };
    if args.paths.is_empty() {
        return fail("--follow needs the files to follow");
    }
    if let Some(p) = args.paths.iter().find(|p| !callint::follow::followable(p)) {
        return fail(format_args!(
            "--follow follows files; {} is not one",
            file_name(&p.to_string_lossy())
        ));
    }
    let mut config = match Config::in_force(args.no_config, args.config.as_deref(), &args.paths[0])
    {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if args.max_repeats.is_some() {
        config.max_repeats = args.max_repeats;
    }
    let linter = match Linter::new(&config, args.select.as_deref(), &args.ignore) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        return fail(format_args!("cannot catch Ctrl-C: {e}"));
    }
    let mut f = Follow::new(&args.paths, style);
    let pause = std::time::Duration::from_millis(args.poll_ms.max(10));
    while !stop.load(Ordering::SeqCst) {
        let news = f.poll(&linter);
        for n in &news.notes {
            warn(format_args!("{n}"));
        }
        if !news.findings.is_empty() {
            let mut out = String::new();
            for (_, line) in &news.findings {
                out.push_str(line);
                out.push('\n');
            }
            let mut lock = std::io::stdout().lock();
            if lock
                .write_all(out.as_bytes())
                .and_then(|()| lock.flush())
                .is_err()
            {
                // Nobody reads any more (a closed pipe): done.
                break;
            }
        }
        // Sleep in short steps, to answer Ctrl-C at once.
        let mut slept = std::time::Duration::ZERO;
        while slept < pause && !stop.load(Ordering::SeqCst) {
            let step = (pause - slept).min(std::time::Duration::from_millis(20));
            std::thread::sleep(step);
            slept += step;
        }
    }
    let news = f.flush();
    if !news.findings.is_empty() {
        let mut out = String::new();
        for (_, line) in &news.findings {
            out.push_str(line);
            out.push('\n');
        }
        let _ = emit(out.as_bytes(), 0);
    }
    let [info, warnings, errors] = f.counts;
    warn(format_args!(
        "followed {} file{}: {} finding{} ({errors} error{}, {warnings} warning{}, {info} info)",
        f.files(),
        if f.files() == 1 { "" } else { "s" },
        info + warnings + errors,
        if info + warnings + errors == 1 {
            ""
        } else {
            "s"
        },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    ));
    u8::from(errors > 0 && !args.exit_zero)
}

/// The largest hook input read: a pending call with its arguments is a few
/// kilobytes.
const MAX_HOOK_INPUT: u64 = 16 << 20;

/// `callint guard`: exit 0 always; a denial is JSON on standard output,
/// everything else (what would be denied in a dry run, why a call was let
/// through unjudged) goes to standard error.
fn guard(args: GuardArgs) -> u8 {
    use callint::guard::{self, Verdict};
    use std::io::Read;
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin()
        .lock()
        .take(MAX_HOOK_INPUT)
        .read_to_end(&mut input)
    {
        warn(format_args!(
            "guard: allowed: cannot read the hook input: {e}"
        ));
        return 0;
    }
    let hook = match guard::read_hook(&input) {
        Ok(h) => h,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return 0;
        }
    };
    let now = match &args.now {
        Some(t) => match callint::input::ts::parse_rfc3339(t) {
            Some(t) => t,
            None => {
                warn(format_args!(
                    "guard: allowed: --now {} is no RFC 3339 time",
                    one_line(t)
                ));
                return 0;
            }
        },
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
    };
    let dir = hook.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let near = dir.join("callint.toml");
    let config = match Config::in_force(args.no_config, args.config.as_deref(), &near) {
        Ok(c) => c,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return 0;
        }
    };
    let linter = match Linter::new(&config, None, &[]) {
        Ok(l) => l,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return 0;
        }
    };
    let cache = if args.no_cache {
        None
    } else {
        args.cache_dir.clone().or_else(guard::default_cache_dir)
    };
    let keep = cache.as_deref().map(|dir| guard::Keep {
        dir,
        rewrite_after: args.cache_rewrite,
    });
    let findings = match guard::judge_kept(&linter, &hook, now, keep) {
        Verdict::Allow(why) => {
            warn(format_args!("guard: allowed without judging: {why}"));
            return 0;
        }
        Verdict::Judged(f) => f,
    };
    let at = match args.deny {
        DenyAt::Warning => callint::diagnostic::Severity::Warning,
        DenyAt::Error => callint::diagnostic::Severity::Error,
    };
    let denied = guard::denying(&findings, at);
    if denied.is_empty() {
        return 0;
    }
    let reason = guard::reason(&denied);
    if args.dry_run {
        warn(format_args!(
            "guard: would deny {}: {reason}",
            one_line(&hook.tool_name)
        ));
        return 0;
    }
    let mut out = guard::deny_output(&reason);
    out.push('\n');
    // A denial that cannot be written lets the call through: nothing else
    // to do, and no reason to block.
    emit(out.as_bytes(), 0);
    0
}

fn check(mut args: CheckArgs) -> u8 {
    if args.follow {
        return follow(args);
    }
    if let Some(file) = &args.show_settings {
        return match settings::show(&args, file) {
            Ok(out) => emit(out.as_bytes(), 0),
            Err(e) => fail(e),
        };
    }
    if let Some(list) = &args.files_from {
        if list.as_os_str() == "-" && args.paths.iter().any(|p| p.as_os_str() == "-") {
            return fail(
                "standard input cannot be both the list of --files-from and a file to check",
            );
        }
        match adopt::files_from(list) {
            Ok(paths) if paths.is_empty() && args.paths.is_empty() => {
                return fail(format_args!(
                    "{} lists no file to check",
                    file_name(&list.to_string_lossy())
                ))
            }
            Ok(paths) => args.paths.extend(paths),
            Err(e) => return fail(e),
        }
    }
    if args.paths.is_empty() {
        if stdin_is_fed() {
            warn(format_args!(
                "note: standard input is not read without `-` (`callint check -`); checking the current folder"
            ));
        }
        args.paths.push(PathBuf::from("."));
    }
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let outs = match outputs::resolve(&args.format, args.output_file.as_deref(), tty) {
        Ok(o) => o,
        Err(e) => return fail(e),
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

    let tabled = |f: Format| matches!(f, Format::Pretty | Format::Concise | Format::Json);
    if args.statistics && !outs.iter().any(|o| tabled(o.format)) {
        return fail("--statistics prints a table (with --format json: the summary); it does not go with --format sarif, github, jsonl, junit or gitlab alone");
    }
    let walk = callint::walk::Walk {
        no_ignore: args.no_ignore,
    };
    let post = match adopt::Post::new(
        args.baseline.as_deref(),
        args.write_baseline.as_deref(),
        args.prune_baseline,
    ) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };

    // One linter per configuration file in force; every file to read with
    // the linter for it, in the order of the paths given.
    let mut linters: Vec<(Option<PathBuf>, Linter)> = Vec::new();
    let mut todo: Vec<(PathBuf, usize)> = Vec::new();
    let mut failed = false;
    // Each file is linted with the nearest callint.toml above it (found
    // once per folder), unless --config or --no-config says otherwise.
    let mut nearest = settings::Nearest::default();
    for path in &args.paths {
        let config_path = if path.as_os_str() == "-" {
            nearest.config_for(&args, args.stdin_filename.as_deref().unwrap_or(path))
        } else {
            nearest.config_for(&args, path)
        };
        let slot = match settings::slot(&mut linters, config_path, &args) {
            Ok(k) => k,
            Err(e) => return fail(e),
        };
        if path.as_os_str() == "-" {
            todo.push((path.clone(), slot));
            continue;
        }
        let mut files = Vec::new();
        let mut errors = Vec::new();
        walk.files(path, &mut files, &mut errors);
        for e in errors {
            let shown = file_name(&e.path.to_string_lossy());
            if e.fatal {
                warn(format_args!("error: cannot read {shown}: {}", e.error));
                failed = true;
            } else {
                warn(format_args!("warning: {}", one_line(&e.error.to_string())));
            }
        }
        if files.is_empty() && path.is_dir() {
            // A folder with nothing to read is a mistaken path more often
            // than a clean one: never pass it silently. Logs are often
            // git-ignored: say so when that is why.
            let mut all = Vec::new();
            if !args.no_ignore {
                callint::walk::Walk { no_ignore: true }.files(path, &mut all, &mut Vec::new());
            }
            let shown = file_name(&path.to_string_lossy());
            let looked_for = callint::walk::LOG_EXTENSIONS
                .iter()
                .map(|e| format!(".{e}"))
                .collect::<Vec<_>>()
                .join(" ");
            if all.is_empty() {
                warn(format_args!(
                    "error: nothing to check below {shown}: folders are searched for files ending in {looked_for}"
                ));
            } else {
                warn(format_args!(
                    "error: nothing to check below {shown}: the {} file(s) there ending in {looked_for} are hidden or ignored (.gitignore, .ignore); --no-ignore reads them",
                    all.len()
                ));
            }
            failed = true;
        }
        for f in files {
            let slot = if path.is_dir() {
                let c = nearest.config_for(&args, &f);
                match settings::slot(&mut linters, c, &args) {
                    Ok(k) => k,
                    Err(e) => return fail(e),
                }
            } else {
                slot
            };
            todo.push((f, slot));
        }
    }

    // Lint in parallel; every file is rendered by the worker that linted it
    // (its bytes are dropped then), and the pieces are put together in the
    // order of `todo`, whatever the scheduling.
    let threads = args.jobs.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("callint-{i}"))
        .build()
    {
        Ok(p) => p,
        Err(e) => return fail(format_args!("cannot start {threads} threads: {e}")),
    };
    // What each file is rendered in: every output but the tables that
    // --statistics prints instead; colour only on standard output.
    let what: Vec<(Format, report::pretty::Style)> = outs
        .iter()
        .filter(|o| !(args.statistics && matches!(o.format, Format::Pretty | Format::Concise)))
        .map(|o| {
            let color = color && o.path.is_none();
            (o.format, report::pretty::Style { color, width })
        })
        .collect();
    let progress = Progress::new(todo.len(), args.quiet);
    let merge = !args.no_merge;
    let cache = (!args.no_cache)
        .then(|| callint::cache::Cache::open(&args.cache_dir))
        .flatten();
    let described: Vec<String> = linters
        .iter()
        .map(|(p, _)| settings::describe(p.as_deref(), &args))
        .collect();
    let stdin_name = args
        .stdin_filename
        .as_ref()
        .map_or_else(|| "-".to_string(), |p| p.to_string_lossy().into_owned());
    // The two halves of each `tee` capture are linted together, by the
    // task of the input half.
    let mut partner: Vec<Option<(usize, bool)>> = vec![None; todo.len()];
    for (i, o) in tee_pairs(&todo, args.input_format) {
        partner[i] = Some((o, true));
        partner[o] = Some((i, false));
    }
    let slots: Vec<Slot> = pool.install(|| {
        use rayon::prelude::*;
        // One task per file: logs differ a lot in size, and whichever
        // worker is free takes the next one.
        todo.par_iter()
            .enumerate()
            .with_max_len(1)
            .map(|(i, (file, slot))| {
                let linter = &linters[*slot].1;
                let r = match partner[i] {
                    Some((_, false)) => Slot::Partner,
                    Some((o, true)) => {
                        let (a, b) = lint_pair(linter, file, &todo[o].0, &what, &post);
                        Slot::Pair(a, b)
                    }
                    None => Slot::One(lint_one(
                        linter,
                        file,
                        &OneFile {
                            outs: &what,
                            input_format: args.input_format,
                            merge,
                            post: &post,
                            stdin_name: &stdin_name,
                            cache: cache.as_ref().map(|c| (c, described[*slot].as_str())),
                        },
                    )),
                };
                progress.tick();
                r
            })
            .collect()
    });
    progress.finish();
    let mut done: Vec<Result<(FileResult, Piece), String>> = Vec::with_capacity(todo.len());
    let mut seconds: Vec<(usize, Linted)> = Vec::new();
    for (i, s) in slots.into_iter().enumerate() {
        match s {
            Slot::One(r) => done.push(r),
            Slot::Pair(a, b) => {
                done.push(a);
                if let Some((o, _)) = partner[i] {
                    seconds.push((o, b));
                }
            }
            Slot::Partner => done.push(Err(String::new())),
        }
    }
    for (o, b) in seconds {
        done[o] = b;
    }
    if merge {
        rooms(&pool, &linters, &todo, &mut done);
        pool.install(|| {
            use rayon::prelude::*;
            done.par_iter_mut()
                .zip(todo.par_iter())
                .with_max_len(1)
                .for_each(|(d, (file, _))| {
                    if let Ok((r, piece @ Piece::Later)) = d {
                        match render_file(r, file, &what, &post) {
                            Ok(p) => *piece = p,
                            Err(msg) => *d = Err(msg),
                        }
                    }
                });
        });
    }

    let mut summary = Summary::default();
    let mut parts: Vec<Vec<outputs::Part>> = what.iter().map(|_| Vec::new()).collect();
    for d in done {
        match d {
            Ok((r, piece)) => {
                summary.add(&r);
                if let Piece::Parts(ps) = piece {
                    for (k, p) in ps.into_iter().enumerate() {
                        parts[k].push(p);
                    }
                }
            }
            Err(msg) => {
                warn(format_args!("error: {msg}"));
                failed = true;
            }
        }
    }
    let closing = (!args.quiet).then(|| closing(&summary, failed));
    let mut parts = parts.into_iter();
    let mut stdout_doc: Option<String> = None;
    for o in &outs {
        let doc = if args.statistics && matches!(o.format, Format::Pretty | Format::Concise) {
            let mut out = String::new();
            statistics(&summary, failed, args.quiet, &mut out);
            out
        } else {
            let ps = parts.next().unwrap_or_default();
            outputs::document(o.format, ps, &summary, closing.as_deref())
        };
        match &o.path {
            None => stdout_doc = Some(doc),
            Some(p) => {
                if let Err(e) = std::fs::write(p, doc) {
                    let shown = file_name(&p.to_string_lossy());
                    warn(format_args!("error: cannot write {shown}: {e}"));
                    failed = true;
                }
            }
        }
    }
    let linted: Vec<String> = todo
        .iter()
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .collect();
    if let Some(c) = cache {
        c.save(&linted);
    }
    if let Err(e) = post.finish(&linted, !failed, args.quiet) {
        warn(format_args!("error: {e}"));
        failed = true;
    }
    let fails = adopt::fails(&summary, args.fail_on.severity(), args.max_warnings);
    if let (Some(why), false) = (&fails, args.quiet || args.exit_zero) {
        if !why.is_empty() {
            warn(format_args!("{why}"));
        }
    }
    let code = if failed {
        2
    } else if fails.is_some() && !args.exit_zero {
        1
    } else {
        0
    };
    emit(stdout_doc.unwrap_or_default().as_bytes(), code)
}

/// The closing line: the summary's, unless nothing was found in a run that
/// could not read everything it was given (which is no pass).
fn closing(summary: &Summary, failed: bool) -> String {
    if failed && summary.diagnostics == 0 {
        format!(
            "Not every path could be checked; no problems in the {} file{} read.",
            summary.files,
            if summary.files == 1 { "" } else { "s" }
        )
    } else {
        summary.line()
    }
}

/// One file linted and rendered, or why it could not be.
type Linted = Result<(FileResult, Piece), String>;

/// What a worker hands back for one entry of the files to read.
enum Slot {
    One(Linted),
    /// The two halves of a `tee` capture: the input's, the output's.
    Pair(Linted, Linted),
    /// The output half of a capture, linted with its input half.
    Partner,
}

/// The halves of `tee` captures among the files to read: `(input,
/// output)` indices of files under the same configuration. Halves pair by
/// their names (`x.in.jsonl` and `x.out.jsonl`, `stdin` and `stdout` in
/// one folder) when both hold JSON-RPC lines; with `--input-format tee`,
/// the files named pair two by two, in the order given, each pair's
/// halves told apart by content.
fn tee_pairs(
    todo: &[(PathBuf, usize)],
    input_format: Option<callint::input::Format>,
) -> Vec<(usize, usize)> {
    use callint::input::{Format, Recorder};
    let forced = match input_format {
        None => false,
        Some(Format::Recording(Recorder::Tee)) => true,
        Some(_) => return Vec::new(),
    };
    let head = |p: &Path| -> Option<Vec<u8>> {
        use std::io::Read;
        let mut b = Vec::new();
        std::fs::File::open(p)
            .ok()?
            .take(callint::input::HEAD as u64)
            .read_to_end(&mut b)
            .ok()?;
        Some(b)
    };
    let files: Vec<(usize, &Path, usize)> = todo
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| !is_stdin(p))
        .map(|(i, (p, slot))| (i, p.as_path(), *slot))
        .collect();
    if forced {
        return files
            .chunks_exact(2)
            .filter(|c| c[0].2 == c[1].2)
            .map(|c| {
                let requests = |p: &Path| {
                    let h = head(p).unwrap_or_default();
                    h.windows(12).filter(|w| w == b"\"tools/call\"").count()
                };
                if requests(c[1].1) > requests(c[0].1) {
                    (c[1].0, c[0].0)
                } else {
                    (c[0].0, c[1].0)
                }
            })
            .collect();
    }
    let names: Vec<String> = files
        .iter()
        .map(|(_, p, _)| p.to_string_lossy().to_string())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let is_trace = |p: &Path| {
        head(p).is_some_and(|h| {
            callint::input::detect_head(&p.to_string_lossy(), &h) == Some(Format::Mcp)
        })
    };
    callint::input::tee::pairs(&refs)
        .into_iter()
        .map(|(a, b)| (files[a], files[b]))
        .filter(|(a, b)| a.2 == b.2 && is_trace(a.1) && is_trace(b.1))
        .map(|(a, b)| (a.0, b.0))
        .collect()
}

/// Read, lint and render the two halves of a `tee` capture.
fn lint_pair(
    linter: &Linter,
    input: &Path,
    output: &Path,
    outs: &[(Format, report::pretty::Style)],
    post: &adopt::Post,
) -> (Linted, Linted) {
    let read = |p: &Path| std::fs::read(p).map_err(|e| cannot_read(p, &e));
    let (a, b) = match (read(input), read(output)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let why = |r: Result<Vec<u8>, String>, p: &Path| match r {
                Err(e) => Err(e),
                Ok(_) => Err(format!(
                    "{} was not linted: the other half of its capture could not be read",
                    one_line(&p.display().to_string())
                )),
            };
            return (why(a, input), why(b, output));
        }
    };
    let (mut r, mut s) = linter.lint_pair(
        (&input.to_string_lossy(), a),
        (&output.to_string_lossy(), b),
    );
    let first = render_file(&mut r, input, outs, post).map(|p| (r, p));
    let second = render_file(&mut s, output, outs, post).map(|p| (s, p));
    (first, second)
}

/// True when standard input brings something (a pipe, a socket or a
/// non-empty file), so that a `check` without paths says it is not read.
#[cfg(unix)]
fn stdin_is_fed() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
        return false;
    };
    let Ok(meta) = std::fs::File::from(fd).metadata() else {
        return false;
    };
    let t = meta.file_type();
    t.is_fifo() || t.is_socket() || (t.is_file() && meta.len() > 0)
}

#[cfg(not(unix))]
fn stdin_is_fed() -> bool {
    !std::io::stdin().is_terminal()
}

/// What a worker hands back for one file besides its findings.
enum Piece {
    /// The file in each output's format, in the order of the outputs.
    Parts(Vec<outputs::Part>),
    /// Not rendered yet: the file is a native log of a call that other
    /// files may share; it is rendered after the room pass.
    Later,
}

/// How [`lint_one`] reads, lints and renders a file.
#[derive(Clone, Copy)]
struct OneFile<'a> {
    /// The formats to render in (none: counts only).
    outs: &'a [(Format, report::pretty::Style)],
    input_format: Option<callint::input::Format>,
    merge: bool,
    post: &'a adopt::Post,
    /// What standard input is filed under.
    stdin_name: &'a str,
    /// The cache, and the settings its entries are keyed by.
    cache: Option<(&'a callint::cache::Cache, &'a str)>,
}

/// Read, lint and render one file (no `outs`: counts only). The file's
/// bytes are dropped before returning; the findings are kept for the
/// summary. With `merge`, a native log with a call id is rendered later,
/// after the room pass.
fn lint_one(
    linter: &Linter,
    file: &Path,
    how: &OneFile<'_>,
) -> Result<(FileResult, Piece), String> {
    let OneFile {
        outs,
        input_format,
        merge,
        post,
        stdin_name,
        cache,
    } = *how;
    let mut r = if is_stdin(file) {
        let b = read_stdin().map_err(|e| format!("cannot read standard input: {e}"))?;
        lint_bytes(linter, stdin_name, b, input_format)
    } else if let (Some((c, settings)), true) = (cache, is_regular(file)) {
        let key = c.key(file, settings).map_err(|e| cannot_read(file, &e))?;
        match c.get(&key, &file.to_string_lossy()) {
            Some(r) => r,
            None => {
                let r = lint_file(linter, file, input_format).map_err(|e| cannot_read(file, &e))?;
                c.put(&key, &r);
                r
            }
        }
    } else {
        lint_file(linter, file, input_format).map_err(|e| cannot_read(file, &e))?
    };
    if merge && !r.calls.is_empty() {
        // Read again when needed; standard input cannot be.
        if !is_stdin(file) {
            r.source = Vec::new();
        }
        return Ok((r, Piece::Later));
    }
    let piece = render_file(&mut r, file, outs, post)?;
    Ok((r, piece))
}

/// Lint a file from disk. A native log larger than the part that tells
/// its format is read a block at a time and never held whole: its
/// records are all that is kept, and the result's source is left empty
/// (the file is read again to show findings, [`ensure_source`]).
fn lint_file(
    linter: &Linter,
    file: &Path,
    input_format: Option<callint::input::Format>,
) -> std::io::Result<FileResult> {
    use std::io::Read;
    let name = file.to_string_lossy();
    let mut f = std::fs::File::open(file)?;
    let mut head = Vec::with_capacity(callint::input::HEAD);
    (&mut f)
        .take(callint::input::HEAD as u64)
        .read_to_end(&mut head)?;
    // A compressed file is read whole and unpacked by the linter.
    let packed = callint::input::packed::Packing::of(&head).is_some();
    let native = match input_format {
        Some(fmt) => fmt == callint::input::Format::Native,
        None => callint::input::detect_head(&name, &head) == Some(callint::input::Format::Native),
    };
    if native && !packed && head.len() == callint::input::HEAD {
        let lines = callint::input::native::count_lines(std::fs::File::open(file)?)?;
        let stream = std::io::Cursor::new(head).chain(f);
        return linter.lint_native_reader(&name, stream, lines + 1);
    }
    let mut bytes = head;
    f.read_to_end(&mut bytes)?;
    Ok(lint_bytes(linter, &name, bytes, input_format))
}

/// Lint bytes read whole, as `input_format` or the format they show.
fn lint_bytes(
    linter: &Linter,
    name: &str,
    bytes: Vec<u8>,
    input_format: Option<callint::input::Format>,
) -> FileResult {
    match input_format {
        Some(fmt) => linter.lint_as(name, bytes, fmt),
        None => linter.lint(name, bytes),
    }
}

/// All of standard input. A file given as standard input is read into a
/// buffer of its size. A pipe's bytes go into a buffer that doubles when
/// full, and only once more bytes came: one that is full at the end is
/// not copied into one twice its size to learn that nothing follows.
fn read_stdin() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut input = std::io::stdin().lock();
    let mut b = Vec::with_capacity(stdin_file_size().unwrap_or(0).max(1 << 16));
    let mut probe = [0u8; 1 << 12];
    loop {
        // Reads up to the capacity there is: no growth inside.
        let room = (b.capacity() - b.len()) as u64;
        if room > 0 && (&mut input).take(room).read_to_end(&mut b)? == 0 {
            return Ok(b);
        }
        if b.len() < b.capacity() {
            continue;
        }
        match input.read(&mut probe) {
            Ok(0) => return Ok(b),
            Ok(n) => b.extend_from_slice(&probe[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The size of standard input when it is a regular file.
#[cfg(unix)]
fn stdin_file_size() -> Option<usize> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    meta.is_file()
        .then(|| usize::try_from(meta.len()).ok())
        .flatten()
}

#[cfg(not(unix))]
fn stdin_file_size() -> Option<usize> {
    None
}

/// A regular file, which can be read twice (a pipe named on the command
/// line, as `<(cmd)` gives, cannot: it is never cached).
fn is_regular(file: &Path) -> bool {
    std::fs::metadata(file).is_ok_and(|m| m.is_file())
}

fn is_stdin(file: &Path) -> bool {
    file.as_os_str() == "-"
}

fn cannot_read(file: &Path, e: &std::io::Error) -> String {
    format!("cannot read {}: {e}", file_name(&file.to_string_lossy()))
}

/// The bytes of `r`'s file: those it kept, or else the file read again,
/// unpacked when compressed (standard input is always kept whole).
fn source_of<'r>(r: &'r FileResult, file: &Path) -> Result<Cow<'r, [u8]>, String> {
    if r.source.is_empty() && !is_stdin(file) {
        callint::input::packed::read(file)
            .map(Cow::Owned)
            .map_err(|e| cannot_read(file, &e))
    } else {
        Ok(Cow::Borrowed(&r.source))
    }
}

/// Give `r` the bytes of its file when it has findings to show.
fn ensure_source(r: &mut FileResult, file: &Path) -> Result<(), String> {
    if !r.diagnostics.is_empty() {
        if let Cow::Owned(b) = source_of(r, file)? {
            r.source = b;
        }
    }
    Ok(())
}

/// Render one linted file, reading its bytes again if it needs them, and
/// drop them afterwards.
fn render_file(
    r: &mut FileResult,
    file: &Path,
    outs: &[(Format, report::pretty::Style)],
    post: &adopt::Post,
) -> Result<Piece, String> {
    if !outs.is_empty() || post.active() {
        ensure_source(r, file)?;
        post.apply(r);
    }
    let piece = render(r, file, outs);
    r.source = Vec::new();
    Ok(piece)
}

/// The room pass: the native logs of one call (same configuration, same
/// call id, at least two files) are merged, and what the room-scope rules
/// find there is added to the file each finding points into. Deterministic:
/// the groups and their files are in the order of `todo`, and every file's
/// findings are sorted again afterwards.
fn rooms(
    pool: &rayon::ThreadPool,
    linters: &[(Option<PathBuf>, Linter)],
    todo: &[(PathBuf, usize)],
    done: &mut [Result<(FileResult, Piece), String>],
) {
    let groups = callint::room::groups(done.iter().enumerate().flat_map(|(i, d)| {
        let calls: &[callint::engine::CallSeen] = match d {
            Ok((r, Piece::Later)) => &r.calls,
            _ => &[],
        };
        calls.iter().map(move |c| (i, todo[i].1, c))
    }));
    if groups.is_empty() {
        return;
    }
    let found: Vec<Vec<Vec<callint::diagnostic::Diagnostic>>> = pool.install(|| {
        use rayon::prelude::*;
        groups
            .par_iter()
            .with_max_len(1)
            .map(|(slot, id, files)| {
                // The group's logs are read again, for as long as its room
                // takes: a batch never holds the bytes of all its logs. A
                // log that cannot be read again adds nothing to the room;
                // rendering it reports why.
                let logs: Vec<(&FileResult, &Path)> = files
                    .iter()
                    .filter_map(|&i| done[i].as_ref().ok().map(|(r, _)| (r, todo[i].0.as_path())))
                    .collect();
                let Ok(sources) = logs
                    .iter()
                    .map(|&(r, file)| source_of(r, file))
                    .collect::<Result<Vec<_>, _>>()
                else {
                    return vec![Vec::new(); files.len()];
                };
                let members: Vec<callint::room::Member<'_>> = logs
                    .iter()
                    .zip(&sources)
                    .map(|(&(r, _), source)| callint::room::Member {
                        source,
                        ..callint::room::Member::of(r)
                    })
                    .collect();
                callint::room::check(&linters[*slot].1, id, &members)
            })
            .collect()
    });
    let mut touched = Vec::new();
    for ((_, _, files), found) in groups.iter().zip(found) {
        for (&i, new) in files.iter().zip(found) {
            if let (Ok((r, _)), false) = (&mut done[i], new.is_empty()) {
                r.diagnostics.extend(new);
                touched.push(i);
            }
        }
    }
    for i in touched {
        if let Ok((r, _)) = &mut done[i] {
            callint::room::finish(&mut r.diagnostics);
        }
    }
}

/// Render one linted file in every format of `outs` (none: counts only).
fn render(r: &FileResult, file: &Path, outs: &[(Format, report::pretty::Style)]) -> Piece {
    Piece::Parts(
        outs.iter()
            .map(|&(format, style)| outputs::render(r, file, format, style))
            .collect(),
    )
}

/// The progress bar of a long batch: on standard error, only when that is
/// a terminal, not with `--quiet`, not for a handful of files, and only once
/// the batch has run for a moment (a quick one never shows it).
struct Progress {
    bar: indicatif::ProgressBar,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    const MIN_FILES: usize = 10;
    const AFTER: std::time::Duration = std::time::Duration::from_millis(300);

    fn new(files: usize, quiet: bool) -> Progress {
        let wanted = !quiet && files >= Self::MIN_FILES && std::io::stderr().is_terminal();
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(files as u64),
            indicatif::ProgressDrawTarget::hidden(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} files, {rate} files/s, {eta} left",
        ) {
            let rate = |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}", s.per_sec());
            };
            bar.set_style(style.with_key("rate", rate).progress_chars("=> "));
        }
        bar.set_prefix("linting");
        Progress {
            bar,
            shown: std::sync::atomic::AtomicBool::new(!wanted),
        }
    }

    fn tick(&self) {
        use std::sync::atomic::Ordering;
        self.bar.inc(1);
        if !self.shown.load(Ordering::Relaxed)
            && self.bar.elapsed() >= Self::AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `--statistics`: findings per rule and per agent, with rates per 100 says.
fn statistics(s: &Summary, failed: bool, quiet: bool, out: &mut String) {
    use std::fmt::Write;
    let rate = |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{r:.2}"));
    let _ = writeln!(
        out,
        "{:>8}  {:>12}  {:<28} DEFAULT",
        "FINDINGS", "PER 100 SAYS", "RULE"
    );
    for (rule, n, per) in s.rule_rows() {
        let sev = rules::meta(rule)
            .map(|m| m.default_severity.name())
            .unwrap_or("");
        let _ = writeln!(out, "{n:>8}  {:>12}  {rule:<28} {sev}", rate(per));
    }
    let agents = s.agent_rows();
    if !agents.is_empty() {
        let _ = writeln!(out, "\nby agent:");
        let _ = writeln!(
            out,
            "{:>8}  {:>12}  {:>6}  AGENT",
            "FINDINGS", "PER 100 SAYS", "SAYS"
        );
        for (agent, says, n, per) in agents {
            let _ = writeln!(
                out,
                "{n:>8}  {:>12}  {says:>6}  {}",
                rate(per),
                one_line(agent)
            );
        }
    }
    if !quiet {
        let _ = writeln!(
            out,
            "\n{}\nRates are findings per 100 says: {} says by {} agents.",
            closing(s, failed),
            s.total_says(),
            s.says.len()
        );
    }
}

fn list_rules(format: ListFormat) -> u8 {
    let cat = rules::catalogue();
    let mut out = String::new();
    match format {
        ListFormat::Json => {
            let v: Vec<serde_json::Value> = cat
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "name": m.name,
                        "seed": m.seed,
                        "default_severity": m.default_severity.name(),
                        "scope": rules::scope(m.name).name(),
                        "summary": m.summary,
                        "options": m.options.iter().map(|o| serde_json::json!({
                            "name": o.name, "default": o.default.to_string(), "help": o.help
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            out = serde_json::to_string_pretty(&v).unwrap_or_default();
            out.push('\n');
        }
        ListFormat::Text => rules_table(&cat, &mut out),
    }
    emit(out.as_bytes(), 0)
}

/// The catalogue as a table, its columns as wide as their widest entry,
/// and what the SEED and SCOPE columns mean.
fn rules_table(cat: &[&callint::engine::RuleMeta], out: &mut String) {
    use std::fmt::Write as _;
    let width = |head: &str, col: &dyn Fn(&callint::engine::RuleMeta) -> usize| {
        cat.iter()
            .map(|m| col(m))
            .max()
            .unwrap_or(0)
            .max(head.len())
    };
    let name_w = width("RULE", &|m| m.name.len());
    let seed_w = width("SEED", &|m| m.seed.len());
    let sev_w = width("DEFAULT", &|m| m.default_severity.name().len());
    let scope_w = width("SCOPE", &|m| rules::scope(m.name).name().len());
    let _ = writeln!(
        out,
        "{:<name_w$}  {:<seed_w$}  {:<sev_w$}  {:<scope_w$}  SUMMARY",
        "RULE", "SEED", "DEFAULT", "SCOPE"
    );
    for m in cat {
        let _ = writeln!(
            out,
            "{:<name_w$}  {:<seed_w$}  {:<sev_w$}  {:<scope_w$}  {}",
            m.name,
            m.seed,
            m.default_severity.name(),
            rules::scope(m.name).name(),
            m.summary
        );
    }
    out.push_str(
        "\nseed: where in the rulebook the rule comes from: the number of a rule in its list, \
`hard` for its hard rules,\n`checklist` for its checklist before a say, `server` for what \
the server does, `format` for the log format.\n\
scope room: with several logs of one call, `check` also runs the rule on the merged room,\n\
for the agents whose own log is not among the files; own: each agent's own log only.\n",
    );
}

fn explain(name: &str) -> u8 {
    match rules::page(name) {
        Some(p) => emit(p.as_bytes(), 0),
        None => fail(callint::config::ConfigError::unknown_rule(name)),
    }
}

fn addressing(text: &str, labels: &[String], human: Option<&str>, voicebot: &str) -> u8 {
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let roster = callint::addressing::Roster::new(human, voicebot, &labels);
    let who = roster.addressees(text);
    let mut out = String::new();
    if who.is_empty() {
        out.push_str("nobody\n");
    } else {
        for w in who {
            out.push_str(&one_line(w));
            out.push('\n');
        }
    }
    emit(out.as_bytes(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number `main` sets is mimalloc's purge delay: its
    /// default is 1000 ms, between two options whose defaults are 1 and 0.
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: reads mimalloc options; no pointers involved.
        let around = unsafe {
            (
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY - 1),
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY),
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY + 1),
            )
        };
        assert_eq!(around, (1, 1000, 0));
    }
}
