//! `callint guard install`: the command line of [`crate::app::guard::install`].

use std::path::PathBuf;

use clap::Args;

use crate::app::guard::client::Client;
use crate::app::guard::install::{self, Scope};

#[derive(Args)]
#[command(after_help = "Files written (project / --user):
  claude-code  .claude/settings.json        ~/.claude/settings.json
  codex        .codex/hooks.json            $CODEX_HOME/hooks.json (~/.codex)
  gemini       .gemini/settings.json        ~/.gemini/settings.json
  cursor       .cursor/hooks.json           ~/.cursor/hooks.json
  opencode     .opencode/plugins/callint-guard.js
                                            ~/.config/opencode/plugins/callint-guard.js

The hook is merged into what the file holds, once; a changed file is copied
to FILE.bak first. A file that is not JSON is an error (exit 2), and is left
untouched. The hook runs this callint by its whole path (--command PATH for
another); an earlier install's `callint guard` entry is changed to it, never
doubled. --uninstall removes a file left with nothing else in it.

For Claude Code, Codex and Gemini CLI, a second hook is written beside it:
`callint guard feedback` after each MCP call (PostToolUse, AfterTool), which
tells the agent what the call so far shows of the rules that need what follows
a line. --no-feedback leaves it out (and takes it out of an earlier install),
--no-guard leaves out the guard's before a call (likewise); --uninstall takes
out both.")]
pub struct InstallArgs {
    /// The client whose hook to write.
    #[arg(long, value_enum)]
    client: Client,
    /// Into the project's configuration (the default).
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Into the user's configuration, for every project.
    #[arg(long)]
    user: bool,
    /// The project folder [default: the working folder].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Only show what would be written, and where.
    #[arg(long)]
    print: bool,
    /// Take the guard's hook out again.
    #[arg(long)]
    uninstall: bool,
    /// The callint the hook runs [default: this one, by its whole path].
    #[arg(long, value_name = "PATH")]
    command: Option<PathBuf>,
    /// Replace (or remove) an opencode plugin that was edited since it was
    /// installed.
    #[arg(long)]
    force: bool,
    /// Write only the guard's hook before a call, not the one after it that
    /// tells the agent what the call shows (and take that one out).
    #[arg(long)]
    no_feedback: bool,
    /// Write only the hook after a call that tells the agent what the call
    /// shows, not the guard's before a call (and take that one out).
    #[arg(long, conflicts_with = "uninstall")]
    no_guard: bool,
}

/// The callint the hook runs: `--command`, else the running binary, each
/// as a whole path (a client started from a desktop launcher may lack the
/// shell's PATH); a bare `callint` only when neither can be told.
fn program(a: &InstallArgs) -> String {
    let path = match &a.command {
        Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        None => match std::env::current_exe().and_then(std::fs::canonicalize) {
            Ok(p) => p,
            Err(_) => return "callint".into(),
        },
    };
    path.to_string_lossy().into_owned()
}

/// What the user must still do for the client to run the hook, if
/// anything.
fn next_step(client: Client) -> Option<&'static str> {
    match client {
        Client::Codex => Some(
            "Codex runs a hook only once it is trusted: start codex in the project, run /hooks, and trust the callint hook (until then Codex skips it silently)",
        ),
        _ => None,
    }
}

/// The project folder (`--dir`, else the working folder) as a whole path,
/// so that messages tell where things are, and the home folder.
fn places(dir: Option<&PathBuf>) -> (PathBuf, Option<PathBuf>) {
    let project = dir.cloned().unwrap_or_else(|| PathBuf::from("."));
    let project = std::path::absolute(&project).unwrap_or(project);
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    (project, home)
}

/// Run it: 0 when done (or nothing to do), 2 on an error.
pub fn run(a: &InstallArgs) -> u8 {
    let scope = if a.user { Scope::User } else { Scope::Project };
    let (project, home) = places(a.dir.as_ref());
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let plan = install::file(a.client, scope, &project, home.as_deref(), &env).and_then(|f| {
        install::plan_with(
            a.client,
            &f,
            a.uninstall,
            &program(a),
            a.force,
            install::Hooks {
                guard: !a.no_guard,
                feedback: !a.no_feedback,
            },
        )
    });
    let plan = match plan {
        Ok(p) => p,
        Err(e) => return super::fail(e),
    };
    let file = plan.file.display().to_string();
    let what = if a.no_guard {
        format!("the feedback hook after calls for {}", a.client.name())
    } else {
        format!("the guard hook for {}", a.client.name())
    };
    if a.print {
        let mut out = match (&plan.after, plan.unchanged()) {
            (_, true) => format!("{file}: nothing to change for {what}\n"),
            (Some(text), false) => format!("would write {file}:\n{text}"),
            (None, false) => format!("would remove {file}\n"),
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        return super::emit(out.as_bytes(), 0);
    }
    if plan.unchanged() {
        let msg = if a.uninstall {
            format!("{what} is not in {file}: nothing changed\n")
        } else {
            let step = next_step(a.client).map_or(String::new(), |s| format!("{s}\n"));
            format!("{what} is already in {file}: nothing changed\n{step}")
        };
        return super::emit(msg.as_bytes(), 0);
    }
    match plan.apply() {
        Ok(backup) => {
            let done = match (a.uninstall, plan.after.is_some()) {
                (false, _) => format!("wrote {what} to {file}"),
                (true, true) => format!("removed {what} from {file}"),
                (true, false) => format!("removed {file}"),
            };
            let bak = backup.map_or(String::new(), |b| {
                format!(" (the file before: {})", b.display())
            });
            let step = match next_step(a.client) {
                Some(s) if !a.uninstall => format!("{s}\n"),
                _ => String::new(),
            };
            super::emit(format!("{done}{bak}\n{step}").as_bytes(), 0)
        }
        Err(e) => super::fail(e),
    }
}

#[derive(Args)]
pub struct DoctorArgs {
    /// The project folder [default: the working folder].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// `callint guard doctor`: 1 when an installed hook would let every call
/// through, else 0.
pub fn doctor(a: &DoctorArgs) -> u8 {
    let (project, home) = places(a.dir.as_ref());
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let report = crate::app::guard::doctor::run(&project, home.as_deref(), &env);
    super::emit(report.text.as_bytes(), u8::from(report.broken))
}

#[derive(Args)]
#[command(
    after_help = "The hook input is read from standard input, as the client writes it after a
tool call: Claude Code's and Codex's PostToolUse, Gemini CLI's AfterTool. What
the call so far shows of the rules that judge a line only once what follows it
is known (no-greeting, join-sequence, slow-ack, link-not-last, ...) is passed
to the model with the tool's answer (hookSpecificOutput.additionalContext),
each finding once a session. Nothing is written when there is nothing new to
say. It never blocks or undoes anything, and always exits 0."
)]
pub struct FeedbackArgs {
    /// The client that runs the hook: claude-code, codex or gemini.
    #[arg(long, value_enum, default_value_t = Client::ClaudeCode)]
    client: Client,
    #[command(flatten)]
    hook: super::HookArgs,
}

/// The largest hook input read: a call done with its answer.
const MAX_FEEDBACK_INPUT: u64 = 16 << 20;

/// `callint guard feedback`: always 0; what to tell the agent is the
/// client's JSON on standard output, nothing when there is nothing new.
pub fn feedback(a: &FeedbackArgs) -> u8 {
    match feedback_text(a) {
        Some(out) => super::emit(format!("{out}\n").as_bytes(), 0),
        None => 0,
    }
}

fn feedback_text(a: &FeedbackArgs) -> Option<String> {
    use crate::app::guard::{self, feedback};
    use std::io::Read;
    let warn = |m: String| super::warn(format_args!("guard feedback: {m}"));
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin()
        .lock()
        .take(MAX_FEEDBACK_INPUT)
        .read_to_end(&mut input)
    {
        warn(format!("cannot read the hook input: {e}"));
        return None;
    }
    let done = match feedback::read(a.client, &input) {
        Ok(d) => d,
        Err(e) => {
            warn(e);
            return None;
        }
    };
    // Another server's tool: nothing to say, before anything is read.
    guard::voicehook_tool(&done.pending.hook).ok()?;
    let now = match a.hook.now() {
        Ok(t) => t,
        Err(e) => {
            warn(e);
            return None;
        }
    };
    let dir = done
        .pending
        .hook
        .cwd
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let config = a.hook.config(&dir);
    let loaded = config.and_then(|c| {
        crate::lint::engine::Linter::new(&c, None, &[])
            .map(|l| (l, c.guard_servers, c.guard_feedback != Some(false)))
            .map_err(|e| e.to_string())
    });
    let (linter, guard_servers, on) = match loaded {
        Ok(l) => l,
        Err(e) => {
            warn(e);
            return None;
        }
    };
    if !on {
        // `[guard] feedback = false`: turned off in callint.toml.
        return None;
    }
    let cache = a.hook.cache();
    let keep = cache.as_deref().map(|dir| guard::Keep {
        dir,
        rewrite_after: a.hook.rewrite_after(),
    });
    let session = done.pending.hook.session_id.as_deref();
    let once =
        |what: &str| guard::notes::first_time(cache.as_deref(), a.client.name(), session, what);
    let told = match feedback::judge(&linter, &done, &guard_servers, now, keep) {
        feedback::Feedback::Unjudged(why) => {
            if let Some(why) = why {
                if once(&format!("feedback unjudged: {why}")) {
                    warn(format!("nothing judged: {why}"));
                }
            }
            return None;
        }
        feedback::Feedback::Found(t) => t,
    };
    let new: Vec<&crate::core::diagnostic::Diagnostic> = told
        .iter()
        .filter(|t| once(&t.key))
        .map(|t| &t.finding)
        .collect();
    if new.is_empty() {
        return None;
    }
    let mut new = new;
    new.sort_by_key(|d| (std::cmp::Reverse(d.severity), d.rule));
    let text = feedback::message(&new, a.client.reason_max());
    feedback::output(a.client, &text)
}
