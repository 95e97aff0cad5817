//! `callint guard doctor`: is the guard installed in each client, and would
//! it work? For each client, the configuration files it reads (the
//! project's and the user's), the guard's hook entry in each, whether its
//! command resolves to an executable, and whether it answers a sample hook
//! input as the client needs (a bad `say` denied in the client's form, a
//! clean one answered with nothing). A hook whose command is missing, not
//! executable, or answers wrongly would let every call pass without a
//! word: that is what makes the doctor fail.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::client::Client;
use super::install::{self, Scope};

/// The clients the doctor looks at, in order.
const CLIENTS: [Client; 5] = [
    Client::ClaudeCode,
    Client::Codex,
    Client::Gemini,
    Client::Cursor,
    Client::Opencode,
];

/// How long a sample run of the hook may take.
const LIMIT: Duration = Duration::from_secs(20);

/// A `say` that breaks a rule judged by the call alone (`long-say`: more
/// than 40 words), whatever the session.
const BAD: &str = "I have looked at the build and the tests and everything seems fine so far. I will now start on the release notes and then tag the release. After that I will post the link in the channel so that everybody can see it and check it.";

/// What the doctor found: the report, and whether an installed hook would
/// silently pass everything.
pub struct Report {
    pub text: String,
    pub broken: bool,
}

/// Look at every client's configuration, for the project in `project` and
/// the user whose home is `home`; `env` reads the environment (`PATH`,
/// `CODEX_HOME`, `XDG_CONFIG_HOME`).
pub fn run(project: &Path, home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Report {
    let mut text = String::new();
    let mut broken = false;
    for client in CLIENTS {
        let _ = writeln!(text, "{}:", client.name());
        let mut installed = false;
        for (scope, which) in [(Scope::Project, "project"), (Scope::User, "user")] {
            let file = match install::file(client, scope, project, home, env) {
                Ok(f) => f,
                Err(e) => {
                    let _ = writeln!(text, "  {which}: {e}");
                    continue;
                }
            };
            let shown = file.display();
            let content = match std::fs::read(&file) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let _ = writeln!(text, "  {which}: {shown}: no file");
                    continue;
                }
                Err(e) => {
                    let _ = writeln!(text, "  {which}: {shown}: cannot read it: {e}");
                    continue;
                }
            };
            let found = match install::find(client, &content) {
                Ok(f) => f,
                Err(e) => {
                    let _ = writeln!(text, "  {which}: {shown}: {e}");
                    continue;
                }
            };
            if install::has_feedback(client) {
                match install::find_of(client, &content, install::Kind::After) {
                    Ok(after) if after.is_empty() => {
                        let _ = writeln!(
                            text,
                            "  {which}: {shown}: no feedback hook after calls (`install` writes it; --no-feedback leaves it out)"
                        );
                    }
                    Ok(after) => {
                        for f in after {
                            let _ = writeln!(
                                text,
                                "  {which}: {shown}: after calls runs `{}`",
                                f.command
                            );
                            match check_after(client, &f.command, env) {
                                Ok(ok) => {
                                    let _ = writeln!(text, "    ok: {ok}");
                                }
                                Err(e) => {
                                    broken = true;
                                    let _ = writeln!(
                                        text,
                                        "    BROKEN: {e}; the agent is never told what the call shows after it"
                                    );
                                }
                            }
                        }
                    }
                    Err(_) => {}
                }
            }
            if found.is_empty() {
                let _ = writeln!(text, "  {which}: {shown}: no callint guard hook");
                continue;
            }
            installed = true;
            for f in found {
                let _ = writeln!(text, "  {which}: {shown}: runs `{}`", f.command);
                match check(client, &f.command, env) {
                    Ok(ok) => {
                        let _ = writeln!(text, "    ok: {ok}");
                    }
                    Err(e) => {
                        broken = true;
                        let _ = writeln!(
                            text,
                            "    BROKEN: {e}; the client lets every call through unjudged"
                        );
                    }
                }
                if f.fail_closed {
                    let _ = writeln!(
                        text,
                        "    warning: `failClosed: true`: Cursor refuses every MCP call the guard answers with nothing (every call it does not deny); remove it"
                    );
                }
            }
        }
        if installed && client == Client::Codex {
            let _ = writeln!(
                text,
                "  trust: Codex runs a hook only once it is trusted: start codex in the project, run /hooks and trust the callint hook (until then Codex skips it without a word)"
            );
        }
    }
    let _ = writeln!(
        text,
        "{}",
        if broken {
            "an installed hook would let every call through: see BROKEN above"
        } else {
            "no installed hook is broken"
        }
    );
    Report { text, broken }
}

/// Check one hook command: it resolves to an executable and answers the
/// sample inputs as `client` needs. What was seen, or what is wrong.
fn check(
    client: Client,
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let program = install::program_of(command)
        .ok_or_else(|| format!("cannot read the command `{command}`"))?;
    let path = resolve(&program, env).ok_or_else(|| {
        format!("`{program}` is not found (the command exits 127 and runs nothing)")
    })?;
    if !executable(&path) {
        return Err(format!("{} is not executable", path.display()));
    }
    let (bad, good) = samples(client);
    let denied = sample(client, command, &program, &bad)?;
    let reason = denial(client, &denied).ok_or_else(|| {
        format!(
            "a say that breaks long-say is not denied as {} reads a denial (it answered {:?})",
            client.name(),
            cut(&denied)
        )
    })?;
    let quiet = sample(client, command, &program, &good)?;
    if !quiet.trim().is_empty() {
        return Err(format!(
            "a clean say got an answer, where it must get none: {:?}",
            cut(&quiet)
        ));
    }
    Ok(format!(
        "{} runs; a bad say is denied ({}), a clean one passes with no answer",
        path.display(),
        cut(&reason)
    ))
}

/// Check the feedback hook's command: it resolves to an executable, runs,
/// and answers a call done with no session to read with nothing (exit 0).
fn check_after(
    client: Client,
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let program = install::program_of(command)
        .ok_or_else(|| format!("cannot read the command `{command}`"))?;
    let path = resolve(&program, env).ok_or_else(|| {
        format!("`{program}` is not found (the command exits 127 and runs nothing)")
    })?;
    if !executable(&path) {
        return Err(format!("{} is not executable", path.display()));
    }
    let (mut input, _) = samples(client);
    if let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(&input) {
        let (after, _) = super::feedback::events(client).unwrap_or(("PostToolUse", ""));
        o.insert("hook_event_name".into(), json!(after));
        o.insert(
            "tool_response".into(),
            json!({"content": [{"type": "text", "text": "{\"say_id\":\"s1\"}"}]}),
        );
        input = Value::Object(o).to_string();
    }
    let out = sample(client, command, &program, &input)?;
    if !out.trim().is_empty() {
        return Err(format!(
            "a call with no session to read got an answer, where it must get none: {:?}",
            cut(&out)
        ));
    }
    Ok(format!(
        "{} runs, and says nothing of a call it cannot judge",
        path.display()
    ))
}

fn cut(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(60) {
        Some((k, _)) => format!("{}...", &s[..k]),
        None => s.to_string(),
    }
}

/// The program's file: a path as it is, a bare name searched in `PATH`.
fn resolve(program: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    let path = env("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file() && executable(p))
}

#[cfg(unix)]
fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(p: &Path) -> bool {
    p.is_file()
}

/// A bad and a clean pending `say` to a server named voicehook, as
/// `client` hands them to its hook, with no session to read (so that the
/// answer does not depend on one).
fn samples(client: Client) -> (String, String) {
    let cwd = std::env::temp_dir();
    let make = |text: &str| {
        let say = json!({"text": text});
        match client {
            Client::ClaudeCode | Client::Codex => json!({
                "session_id": "callint-doctor", "cwd": cwd,
                "transcript_path": cwd.join("callint-doctor-no-such-session.jsonl"),
                "hook_event_name": "PreToolUse", "tool_name": "mcp__voicehook__say",
                "tool_input": say,
            }),
            Client::Gemini => json!({
                "session_id": "callint-doctor", "cwd": cwd, "hook_event_name": "BeforeTool",
                "tool_name": "mcp_voicehook_say", "tool_input": say,
                "mcp_context": {"server_name": "voicehook", "tool_name": "say"},
            }),
            Client::Cursor => json!({
                "conversation_id": "callint-doctor", "workspace_roots": [cwd],
                "hook_event_name": "beforeMCPExecution", "tool_name": "say",
                "mcp_server_name": "voicehook", "tool_input": say.to_string(),
            }),
            Client::Opencode => json!({
                "hook_event_name": "tool.execute.before", "tool": "voicehook_say",
                "session_id": "callint-doctor", "call_id": "call_1", "cwd": cwd,
                "tool_input": say,
            }),
        }
        .to_string()
    };
    (make(BAD), make("Done."))
}

/// Run the hook `command` (through a shell, as the clients run it; the
/// opencode plugin runs the program itself) with `input`; its standard
/// output.
fn sample(client: Client, command: &str, program: &str, input: &str) -> Result<String, String> {
    let mut cmd = if client == Client::Opencode {
        let mut c = Command::new(program);
        c.args(["guard", "--client", "opencode"]);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    let mut child = cmd
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("it did not answer within {} s", LIMIT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot run it: {e}")),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    match out.status.code() {
        Some(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Some(c) => Err(format!("it exits {c}")),
        None => Err("it was stopped by a signal".into()),
    }
}

/// The reason of `out` when it is a denial as `client` reads one.
fn denial(client: Client, out: &str) -> Option<String> {
    let v: Value = serde_json::from_str(out.trim()).ok()?;
    let reason = match client {
        Client::ClaudeCode | Client::Codex => {
            let h = v.get("hookSpecificOutput")?;
            (h.get("permissionDecision")? == "deny").then(|| h.get("permissionDecisionReason"))?
        }
        Client::Gemini | Client::Opencode => {
            (v.get("decision")? == "deny").then(|| v.get("reason"))?
        }
        Client::Cursor => (v.get("permission")? == "deny").then(|| v.get("agent_message"))?,
    };
    reason?.as_str().map(str::to_string)
}
