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

/// The program a hook command runs, and where it is found: an error when
/// the command cannot be read, its program is not found (the client then
/// gets exit 127 and runs nothing) or is not executable.
fn runnable(
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, std::path::PathBuf), String> {
    let program = install::program_of(command)
        .ok_or_else(|| format!("cannot read the command `{command}`"))?;
    let path = resolve(&program, env).ok_or_else(|| {
        format!("`{program}` is not found (the command exits 127 and runs nothing)")
    })?;
    if !executable(&path) {
        return Err(format!("{} is not executable", path.display()));
    }
    Ok((program, path))
}

/// Check one hook command: it resolves to an executable and answers the
/// sample inputs as `client` needs. What was seen, or what is wrong.
fn check(
    client: Client,
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let (program, path) = runnable(command, env)?;
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

/// Check the feedback hook's command: it resolves to an executable, and
/// tells what a session shows after a call: a join 20 s ago that greeted
/// no one, then a `status`, must be told as `no-greeting` in the client's
/// form. The session is written, in the client's shape, to a file of its
/// own in the temporary folder (a session id of its own, so that the
/// finding was never told before), and removed after with what the hook
/// kept of it.
fn check_after(
    client: Client,
    command: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let (program, path) = runnable(command, env)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let session = format!("callint-doctor-{}-{now}", std::process::id());
    // A folder of its own for the session and for what the hook keeps
    // (`XDG_CACHE_HOME`), so that nothing of the sample stays behind.
    let folder = std::env::temp_dir().join(&session);
    let file = folder.join("session.jsonl");
    let (input, lines) = after_sample(client, &session, &file, now);
    std::fs::create_dir_all(&folder)
        .and_then(|()| std::fs::write(&file, lines))
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let answered = sample_with(client, command, &program, &input, Some(&folder));
    let _ = std::fs::remove_dir_all(&folder);
    let out = answered?;
    let told = serde_json::from_str::<Value>(out.trim())
        .ok()
        .and_then(|v| {
            v.get("hookSpecificOutput")?
                .get("additionalContext")?
                .as_str()
                .map(str::to_string)
        })
        .filter(|t| t.contains("no-greeting"));
    match told {
        Some(t) => Ok(format!(
            "{} runs; a join that greeted no one is told after the next call ({})",
            path.display(),
            cut(&t)
        )),
        None => Err(format!(
            "a join that greeted no one is not told after the next call as {} reads it (it answered {:?})",
            client.name(),
            cut(&out)
        )),
    }
}

/// The post-tool hook input of a `status` made at `now` in session
/// `session`, whose file `file` holds (the lines returned) a join 20 s
/// before that did not greet, as `client` records them.
fn after_sample(client: Client, session: &str, file: &Path, now: i64) -> (String, String) {
    let at = |ms: i64| crate::input::ts::format_rfc3339(ms);
    let (joined, answered) = (at(now - 20_000), at(now - 19_000));
    let join = json!({"call_id": "c-doctor", "label": "Doctor", "greet": false});
    let answer = r#"{"status":"joined","call_id":"c-doctor","context":{"lang":"en"}}"#;
    let status = json!({"doing": "🔧 Checking the hooks"});
    let done = json!({"content": [{"type": "text", "text": "{\"ok\":true}"}]});
    let cwd = std::env::temp_dir();
    let lines: Vec<Value> = match client {
        Client::Codex => vec![
            json!({"timestamp": joined, "type": "response_item", "payload": {"type": "function_call",
                "name": "mcp__voicehook__join", "arguments": join.to_string(), "call_id": "call_j"}}),
            json!({"timestamp": answered, "type": "event_msg", "payload": {"type": "mcp_tool_call_end",
                "call_id": "call_j", "invocation": {"server": "voicehook", "tool": "join", "arguments": join},
                "result": {"Ok": {"content": [{"type": "text", "text": answer}]}}}}),
        ],
        Client::Gemini => vec![
            json!({"id": "m1", "timestamp": joined, "type": "gemini", "content": "",
            "toolCalls": [{"id": "j1", "name": "mcp_voicehook_join", "args": join, "status": "success",
            "timestamp": answered, "result": [{"functionResponse": {"id": "j1", "name": "mcp_voicehook_join",
            "response": {"output": answer}}}]}]}),
        ],
        _ => vec![
            json!({"type": "assistant", "timestamp": joined, "message": {"role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_j", "name": "mcp__voicehook__join", "input": join}]}}),
            json!({"type": "user", "timestamp": answered, "message": {"role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_j",
                "content": [{"type": "text", "text": answer}]}]}}),
        ],
    };
    let input = match client {
        Client::Gemini => json!({"session_id": session, "transcript_path": file, "cwd": cwd,
            "hook_event_name": "AfterTool", "tool_name": "mcp_voicehook_status", "tool_input": status,
            "mcp_context": {"server_name": "voicehook", "tool_name": "status"},
            "tool_response": {"llmContent": [{"text": "{\"ok\":true}"}], "returnDisplay": "{\"ok\":true}"}}),
        _ => json!({"session_id": session, "transcript_path": file, "cwd": cwd,
            "hook_event_name": "PostToolUse", "tool_name": "mcp__voicehook__status", "tool_input": status,
            "tool_use_id": "call_status", "tool_response": done}),
    };
    let text = lines.iter().map(|l| format!("{l}\n")).collect();
    (input.to_string(), text)
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
    sample_with(client, command, program, input, None)
}

/// [`sample`], with `XDG_CACHE_HOME` set to `cache` when given.
fn sample_with(
    client: Client,
    command: &str,
    program: &str,
    input: &str,
    cache: Option<&Path>,
) -> Result<String, String> {
    let mut cmd = if client == Client::Opencode {
        let mut c = Command::new(program);
        c.args(["guard", "--client", "opencode"]);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    if let Some(cache) = cache {
        cmd.env("XDG_CACHE_HOME", cache);
    }
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
