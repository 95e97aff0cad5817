//! The `callint` command line.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::core::escape::{file_name, one_line};
use crate::lint::engine::FileResult;
use crate::report::{self, Format, Summary};
use crate::rules;

mod adopt;
mod audit;
pub use audit::{audit_document, audit_folder};
mod guard_install;
mod outputs;
mod postmortem;
mod proxy;
mod settings;

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
    /// Audit a folder of calls as `check` lints it: a self-contained HTML overview (rates by rule and agent, trend, the calls to open first with their post-mortems, filters) with --html DIR, the numbers with --format json.
    Audit(Box<audit::AuditArgs>),
    /// Post-mortem of one call from its logs: who spoke when, latencies, findings (--html for a page); exits 1 when a finding is an error, as `check` does.
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
    /// Judge a voicehook call before it is made: a hook for Claude Code, Codex, Gemini CLI, Cursor or opencode (hook input on standard input, the client's denial on standard output); `guard install` writes the hook's configuration.
    Guard(GuardArgs),
    /// Sit between an MCP client and the voicehook MCP server (stdio child, streamable HTTP, or a stdio front for a remote server): judge every voicehook call before the server gets it, and record the traffic as an MCP trace.
    Proxy(Box<proxy::ProxyArgs>),
    /// A language server over standard input and output: the findings of `check` in the editor as you type, the rule's page on hover, and actions that silence a finding or add it to the baseline.
    Server(ServerArgs),
    /// A fake voicehook MCP server for the proxy's tests and bench.
    #[command(hide = true)]
    FakeMcp {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
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
struct ServerArgs {
    /// Accepted for editors that start every language server with it;
    /// standard input and output is the only transport.
    #[arg(long)]
    stdio: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// Files or folders to lint [default: .]; `-` reads standard input.
    /// Folders are searched for files ending in .jsonl, .ndjson, .log, .txt,
    /// .vtt, .srt, .md, .markdown, .mdx, .mdc, .py, .js, .mjs, .ts and .sh
    /// (each also as .gz or .zst), `stdin`/`stdout` halves of a capture,
    /// .json files that hold a log, a trace, a board or a session, and the
    /// hidden places of agent instructions (.cursor, .claude, .github,
    /// .cursorrules, ...); other hidden entries are skipped.
    paths: Vec<PathBuf>,
    /// Read every input as this format instead of telling it by content and name: native, mcp, claude-desktop, mcp-debug, inspector, tee (pairs the files named, two by two), transcript, vtt, srt, board, prompt, python, javascript, shell, claude-code, codex, opencode, gemini. Compressed files (.gz, .zst) are unpacked first.
    #[arg(long, value_name = "FORMAT", value_parser = crate::input::Format::parse_name)]
    input_format: Option<crate::input::Format>,
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
    #[arg(long, value_name = "DIR", default_value = crate::app::cache::DIR)]
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
#[command(args_conflicts_with_subcommands = true)]
#[command(
    after_help = "The hook input is read from standard input, as the client writes it. A call
that breaks a rule is denied in the client's own way (Claude Code and Codex:
hookSpecificOutput.permissionDecision \"deny\"; Gemini CLI and opencode:
{\"decision\": \"deny\", \"reason\"}; Cursor: {\"permission\": \"deny\"}), with a reason
that lists every rule the line breaks. The guard always exits 0: whatever it
cannot read or judge, it lets through and says why on standard error.

Claude Code, Codex and Gemini CLI calls are judged from the session so far
(the transcript, the rollout file, the session recording); opencode's plugin
hands the session's messages over. Cursor names no session callint can read
the calls' answers from: there the call is judged by itself, by the rules that
need nothing before it (board-bundle, board-missing-emoji,
create-call-delegated, decision-not-yes-no, label-too-long, long-say,
question-on-board), and standard error names the rules left unjudged (once a
session; nothing is said of another server's tools).

Examples:
  callint guard install --client codex       write the hook into .codex/hooks.json
  callint guard install --client cursor --user --print
  callint guard --client gemini < input.json   judge one hook input by hand"
)]
struct GuardArgs {
    #[command(subcommand)]
    action: Option<GuardAction>,
    /// The client that runs the hook: how its input reads and how it is
    /// answered.
    #[arg(long, value_enum, default_value_t = crate::app::guard::client::Client::ClaudeCode)]
    client: crate::app::guard::client::Client,
    /// The lowest severity that denies a call. Findings of severity info
    /// never deny.
    #[arg(long, value_enum, default_value_t = DenyAt::Warning)]
    deny: DenyAt,
    /// Deny nothing: say on standard error what would have been denied.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    hook: HookArgs,
}

/// The options the hooks before and after a call share.
#[derive(Args)]
pub(crate) struct HookArgs {
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
    /// Keep what was read of each session (and, after calls, what was
    /// told) in this folder, so that the next call reads only what the
    /// session grew by [default: $XDG_CACHE_HOME/callint/guard, else
    /// ~/.cache/callint/guard].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Read the session afresh on every call, keeping nothing.
    #[arg(long)]
    no_cache: bool,
    /// Write the kept state again once this many bytes more of the session
    /// were read since it (0: after every call).
    #[arg(long, value_name = "BYTES", default_value_t = crate::app::guard::REWRITE_AFTER, hide = true)]
    cache_rewrite: u64,
}

impl HookArgs {
    /// When the call is judged, in milliseconds since the epoch: `--now`,
    /// else now.
    pub(crate) fn now(&self) -> Result<i64, String> {
        match &self.now {
            Some(t) => crate::input::ts::parse_rfc3339(t)
                .ok_or_else(|| format!("--now {} is no RFC 3339 time", one_line(t))),
            None => Ok(std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))),
        }
    }

    /// The configuration in force in the hook's working folder `dir`, as a
    /// batch run there finds it.
    pub(crate) fn config(&self, dir: &Path) -> Result<crate::lint::config::Config, String> {
        let settings = crate::app::batch::Settings {
            config: crate::app::batch::ConfigChoice::from_flags(
                self.no_config,
                self.config.as_deref(),
            ),
            ..crate::app::batch::Settings::default()
        };
        settings.load(settings.config_path(&dir.join("callint.toml")).as_deref())
    }

    /// Where the kept state goes, unless `--no-cache`.
    pub(crate) fn cache(&self) -> Option<PathBuf> {
        if self.no_cache {
            None
        } else {
            self.cache_dir
                .clone()
                .or_else(crate::app::guard::default_cache_dir)
        }
    }

    pub(crate) fn rewrite_after(&self) -> u64 {
        self.cache_rewrite
    }
}

#[derive(Subcommand)]
enum GuardAction {
    /// Write a client's hook configuration so that it runs the guard.
    Install(guard_install::InstallArgs),
    /// For each client: where the guard is installed, whether its command
    /// runs and answers a sample call as the client needs; exit 1 when an
    /// installed hook would let every call through.
    #[command(visible_alias = "status")]
    Doctor(guard_install::DoctorArgs),
    /// After a voicehook call: tell the agent what the call so far shows of
    /// the rules that need what follows a line (a post-tool hook).
    Feedback(guard_install::FeedbackArgs),
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
    fn severity(self) -> crate::core::diagnostic::Severity {
        use crate::core::diagnostic::Severity;
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
    /// The catalogue as a Markdown table (docs/rules.md is this output).
    Markdown,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Run the command line on `args` (the program's name first) and return
/// the exit status. Help, a version or a mistaken argument is printed here
/// too, and never ends the process: the wheel's entry point and the binary
/// both exit with what this returns.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        // A hook that exits with 2 blocks the agent's call: a guard
        // started with a wrong flag says so and lets the call through.
        Err(e)
            if args.get(1).is_some_and(|a| a == "guard")
                && args.get(2).is_none_or(|a| {
                    !["install", "doctor", "status"].contains(&a.to_str().unwrap_or(""))
                })
                && e.use_stderr() =>
        {
            warn(format_args!("guard: {}", e.to_string().trim_end()));
            return 1;
        }
        Err(e) => {
            // What clap's own exit would print and return: usage errors on
            // standard error with status 2, help and version on standard
            // output with 0.
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Guard(args) => guard(args),
        Command::Proxy(args) => proxy::run(*args),
        Command::Server(_) => crate::app::server::run(),
        Command::FakeMcp { args } => crate::app::proxy::fake::main(args),
        Command::Check(args) => check(*args),
        Command::Report(args) => postmortem::run(args),
        Command::Audit(args) => audit::run(*args),
        Command::Rules { format } => list_rules(format),
        Command::Explain { rule } => explain(&rule),
        Command::Addressing {
            text,
            labels,
            human,
            voicebot,
        } => addressing(&text, &labels, human.as_deref(), &voicebot),
    }
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
    use crate::app::follow::{Follow, Style};
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
    if let Some(p) = args
        .paths
        .iter()
        .find(|p| !crate::app::follow::followable(p))
    {
        return fail(format_args!(
            "--follow follows files; {} is not one",
            file_name(&p.to_string_lossy())
        ));
    }
    // The configuration in force where the first file is, as a batch run
    // finds it.
    let linter = match settings::batch(&args).linter_for(&args.paths[0]) {
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

/// `callint guard`: exit 0 always; a denial is the client's JSON on
/// standard output, and a call not denied gets no output at all (never a
/// grant); everything else (what
/// would be denied in a dry run, why a call was let through unjudged, what
/// was not judged) goes to standard error.
fn guard(args: GuardArgs) -> u8 {
    match &args.action {
        Some(GuardAction::Install(a)) => return guard_install::run(a),
        Some(GuardAction::Doctor(a)) => return guard_install::doctor(a),
        Some(GuardAction::Feedback(a)) => return guard_install::feedback(a),
        None => {}
    }
    // Most runs go on from a kept state and live a few milliseconds; one
    // that reads a whole session turns huge pages back on.
    crate::app::alloc::no_huge_pages();
    let client = args.client;
    match guard_reason(&args) {
        Some(reason) => {
            let (mut out, code) = client.deny(&reason);
            out.push('\n');
            // A denial that cannot be written lets the call through:
            // nothing else to do, and no reason to block.
            emit(out.as_bytes(), code)
        }
        // Nothing on standard output: no client takes silence as a grant,
        // so the call goes on to whatever approval the user configured.
        None => 0,
    }
}

/// The reason to deny the call the hook input announces, if it is to be
/// denied.
fn guard_reason(args: &GuardArgs) -> Option<String> {
    use crate::app::guard::{self, Verdict};
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
        return None;
    }
    let pending = match args.client.read(&input) {
        Ok(p) => p,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return None;
        }
    };
    let now = match args.hook.now() {
        Ok(t) => t,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return None;
        }
    };
    let dir = pending
        .hook
        .cwd
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    // The configuration in force in the hook's working folder, as a batch
    // run there finds it; every rule it enables.
    let config = args.hook.config(&dir);
    let linter = config.and_then(|c| {
        crate::lint::engine::Linter::new(&c, None, &[])
            .map(|l| (l, c.guard_servers))
            .map_err(|e| e.to_string())
    });
    let (linter, guard_servers) = match linter {
        Ok(l) => l,
        Err(e) => {
            warn(format_args!("guard: allowed: {e}"));
            return None;
        }
    };
    // A tool of another server (or no voicehook function): nothing to
    // judge and nothing to say, as a client may show what is said.
    if guard::voicehook_tool(&pending.hook).is_err() {
        return None;
    }
    let cache = args.hook.cache();
    // A note that holds for the whole session is said on its first call.
    let once = |what: &str| {
        guard::notes::first_time(
            cache.as_deref(),
            args.client.name(),
            pending.hook.session_id.as_deref(),
            what,
        )
    };
    let keep = cache.as_deref().map(|dir| guard::Keep {
        dir,
        rewrite_after: args.hook.rewrite_after(),
    });
    let (verdict, note) = guard::client::judge_with(&linter, &pending, &guard_servers, now, keep);
    if let Some(note) = note {
        if once("judged by the call alone") {
            warn(format_args!("guard: {note}"));
        }
    }
    let findings = match verdict {
        Verdict::Allow(why) | Verdict::Unread(why) => {
            let server = crate::input::server::split_mcp_name(&pending.hook.tool_name)
                .map_or("", |(s, _)| s);
            if why != guard::not_known(server) || once(&format!("not known: {server}")) {
                warn(format_args!("guard: allowed without judging: {why}"));
            }
            return None;
        }
        Verdict::Judged(f) => f,
    };
    let at = match args.deny {
        DenyAt::Warning => crate::core::diagnostic::Severity::Warning,
        DenyAt::Error => crate::core::diagnostic::Severity::Error,
    };
    let denied = guard::denying(&findings, at);
    if denied.is_empty() {
        return None;
    }
    let reason = guard::reason_within(&denied, args.client.reason_max());
    if args.dry_run {
        warn(format_args!(
            "guard: would deny {}: {reason}",
            one_line(&pending.hook.tool_name)
        ));
        return None;
    }
    Some(reason)
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
    let post = match adopt::Post::new(
        args.baseline.as_deref(),
        args.write_baseline.as_deref(),
        args.prune_baseline,
    ) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };

    // Every file to read, each with the linter of the configuration in
    // force for it, in the order of the paths given.
    let mut batch = crate::app::batch::Batch::new(settings::batch(&args));
    for path in &args.paths {
        if let Err(e) = batch.add(path) {
            return fail(e);
        }
    }
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
    if batch.len() == 1 {
        // The process ends when this one file is done.
        crate::lint::engine::leave_records_to_exit();
    }
    let progress = Progress::new(batch.len(), args.quiet);
    let render = Rendered {
        outs: &what,
        post: &post,
        progress: Some(&progress),
    };
    let run = match batch.run(&render) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    progress.finish();
    let mut failed = false;
    for p in &run.problems {
        if p.fatal {
            warn(format_args!("error: {}", p.message));
            failed = true;
        } else {
            warn(format_args!("warning: {}", p.message));
        }
    }
    let summary = &run.summary;
    let mut parts: Vec<Vec<outputs::Part>> = what.iter().map(|_| Vec::new()).collect();
    let mut linted = Vec::with_capacity(run.files.len());
    let mut results = Vec::new();
    for (path, d) in run.files {
        linted.push(path.to_string_lossy().into_owned());
        match d {
            Ok((r, ps)) => {
                results.push(r);
                for (k, p) in ps.into_iter().enumerate() {
                    parts[k].push(p);
                }
            }
            Err(msg) => {
                warn(format_args!("error: {msg}"));
                failed = true;
            }
        }
    }
    // The results of a large batch take a while to free: beside writing
    // the document, not before it.
    let freeing = std::thread::spawn(move || drop(results));
    let closing = (!args.quiet).then(|| closing(summary, failed));
    let mut parts = parts.into_iter();
    let mut stdout_doc: Option<String> = None;
    for o in &outs {
        let doc = if args.statistics && matches!(o.format, Format::Pretty | Format::Concise) {
            let mut out = String::new();
            statistics(summary, failed, args.quiet, &mut out);
            out
        } else {
            let ps = parts.next().unwrap_or_default();
            outputs::document(o.format, ps, summary, closing.as_deref())
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
    if let Err(e) = post.finish(&linted, !failed, args.quiet) {
        warn(format_args!("error: {e}"));
        failed = true;
    }
    let fails = adopt::fails(summary, args.fail_on.severity(), args.max_warnings);
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
    let code = emit(stdout_doc.unwrap_or_default().as_bytes(), code);
    let _ = freeing.join();
    code
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

/// How `check` renders each file: in every output's format (none: counts
/// only), after the baseline had its say.
struct Rendered<'a> {
    outs: &'a [(Format, report::pretty::Style)],
    post: &'a adopt::Post,
    /// The bar of a long batch (none: a library call shows none).
    progress: Option<&'a Progress>,
}

impl crate::app::batch::Render for Rendered<'_> {
    type Piece = Vec<outputs::Part>;

    fn needs(&self) -> crate::app::batch::Needs {
        use crate::app::batch::Needs;
        // Every output, the pretty one too (it shows no lines around a
        // finding's), and the fingerprints read the lines of the findings.
        if !self.outs.is_empty() || self.post.active() {
            Needs::Lines
        } else {
            Needs::Nothing
        }
    }

    fn render(&self, r: &mut FileResult, file: &Path) -> Result<Self::Piece, String> {
        self.post.apply(r);
        Ok(self
            .outs
            .iter()
            .map(|&(format, style)| outputs::render(r, file, format, style))
            .collect())
    }

    fn tick(&self) {
        if let Some(p) = self.progress {
            p.tick();
        }
    }
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
            out = rules_json();
            out.push('\n');
        }
        ListFormat::Text => rules_table(&cat, &mut out),
        ListFormat::Markdown => rules_markdown(&cat, &mut out),
    }
    emit(out.as_bytes(), 0)
}

/// The catalogue as `callint rules --format json` prints it.
pub fn rules_json() -> String {
    let v: Vec<serde_json::Value> = rules::catalogue()
        .iter()
        .map(|m| {
            serde_json::json!({
                "name": m.name,
                "seed": m.rulebook,
                "default_severity": m.default_severity.name(),
                "scope": m.scope.name(),
                "judges": m.when.name(),
                "needs": m.needs.names().collect::<Vec<_>>(),
                "summary": m.summary,
                "options": m.options.iter().map(|o| serde_json::json!({
                    "name": o.name, "default": o.default.to_string(), "help": o.help
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// A rule's page, as `callint explain` prints it, or why there is none.
pub fn explain_page(name: &str) -> Result<&'static str, String> {
    rules::page(name)
        .ok_or_else(|| crate::lint::config::ConfigError::unknown_rule(name).to_string())
}

/// The document of a `check --format FORMAT` run over `paths` and the
/// `data` given as (name, bytes), with what could not be checked.
pub struct CheckRun {
    /// `check --format FORMAT`'s document, byte for byte (the concise one
    /// ends with its summary line, as without `--quiet`).
    pub document: String,
    /// The findings reported.
    pub findings: usize,
    /// What the command line prints as warnings (files it skipped and why).
    pub warnings: Vec<String>,
    /// What makes the command line exit 2: inputs that could not be read
    /// or linted. The document holds the findings of all the others.
    pub errors: Vec<String>,
}

/// `check --format FORMAT`, as a library call: the same batch, the same
/// rendering, the same document. No paths and no data check the current
/// folder, as the command line does. The error is a configuration or rule
/// name that stops the run before anything is linted.
pub fn check_document(
    settings: crate::app::batch::Settings,
    paths: &[PathBuf],
    data: Vec<(PathBuf, Vec<u8>)>,
    format: Format,
) -> Result<CheckRun, String> {
    let mut batch = crate::app::batch::Batch::new(settings);
    if paths.is_empty() && data.is_empty() {
        batch.add(Path::new("."))?;
    }
    for p in paths {
        batch.add(p)?;
    }
    for (name, bytes) in data {
        batch.add_bytes(&name, bytes)?;
    }
    let post = adopt::Post::new(None, None, false)?;
    let style = report::pretty::Style {
        color: false,
        width: 120,
    };
    let outs = [(format, style)];
    let render = Rendered {
        outs: &outs,
        post: &post,
        progress: None,
    };
    let run = batch.run(&render)?;
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    for p in run.problems {
        if p.fatal {
            errors.push(p.message);
        } else {
            warnings.push(p.message);
        }
    }
    let mut parts = Vec::with_capacity(run.files.len());
    for (_, d) in run.files {
        match d {
            Ok((_, ps)) => parts.extend(ps),
            Err(msg) => errors.push(msg),
        }
    }
    let closing = closing(&run.summary, !errors.is_empty());
    Ok(CheckRun {
        document: outputs::document(format, parts, &run.summary, Some(&closing)),
        findings: run.summary.diagnostics,
        warnings,
        errors,
    })
}

/// The catalogue as a Markdown page: every fact each rule declares.
fn rules_markdown(cat: &[&crate::core::meta::RuleMeta], out: &mut String) {
    use std::fmt::Write as _;
    out.push_str(
        "# Rules\n\n\
This page is written by `callint rules --format markdown` from the rules' own declarations \
(a test keeps it so). Each rule's page in `rules/` (`callint explain NAME`) says what it \
checks, why, and when it stays silent.\n\n\
- **rulebook**: the rule of the multi-agent rulebook it enforces: its number, `hard` for \
the hard rules, `checklist` for the checklist before a say, `server` for what the server \
does, `format` for the input itself.\n\
- **scope**: `room` rules judge a line against the room, which every agent's log holds \
alike, so with several logs of one call they also judge the agents without a log of their \
own; `own` rules need the agent's own records.\n\
- **judges a pending call by**: what `guard` and the proxy can judge before a call is made \
(the record alone, or the record and what came before it); the others wait for what \
follows, or look at tools and code.\n\
- **needs**: what an input must carry for the rule to fire on it; an input shape that \
lacks it (a transcript has no boards) is not judged by the rule.\n\n\
| rule | rulebook | default | scope | judges a pending call by | needs | finds |\n\
|---|---|---|---|---|---|---|\n",
    );
    for m in cat {
        let needs: Vec<&str> = m.needs.names().collect();
        let pending = if m.judges_pending() {
            m.when.name()
        } else {
            "no"
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            m.name,
            m.rulebook,
            m.default_severity.name(),
            m.scope.name(),
            pending,
            if needs.is_empty() {
                "-".to_string()
            } else {
                needs.join(", ")
            },
            m.summary.replace('|', "\\|")
        );
    }
}

/// The catalogue as a table, its columns as wide as their widest entry,
/// and what the SEED and SCOPE columns mean.
fn rules_table(cat: &[&crate::core::meta::RuleMeta], out: &mut String) {
    use std::fmt::Write as _;
    let width = |head: &str, col: &dyn Fn(&crate::core::meta::RuleMeta) -> usize| {
        cat.iter()
            .map(|m| col(m))
            .max()
            .unwrap_or(0)
            .max(head.len())
    };
    let name_w = width("RULE", &|m| m.name.len());
    let seed_w = width("SEED", &|m| m.rulebook.len());
    let sev_w = width("DEFAULT", &|m| m.default_severity.name().len());
    let scope_w = width("SCOPE", &|m| m.scope.name().len());
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
            m.rulebook,
            m.default_severity.name(),
            m.scope.name(),
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
    match explain_page(name) {
        Ok(p) => emit(p.as_bytes(), 0),
        Err(e) => fail(e),
    }
}

fn addressing(text: &str, labels: &[String], human: Option<&str>, voicebot: &str) -> u8 {
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let roster = crate::text::addressing::Roster::new(human, voicebot, &labels);
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
