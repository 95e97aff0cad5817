//! Which server a pending call goes to, and whether it is voicehook: one
//! decision, [`is_voicehook`], for every client.
//!
//! Each client says what it knows of the server in its hook input: its
//! name (in the tool's name, `mcp__<server>__<tool>`, or apart: Gemini
//! CLI's `mcp_context.server_name`, Cursor's `mcp_server_name`), how it is
//! reached (a URL: Gemini CLI's `mcp_context.url`, Cursor's
//! `mcp_server_url` or `url`; a command: Gemini CLI's `mcp_context.command`
//! and `args`, Cursor's `command`) and the tool's own name. A server is
//! voicehook's when
//!
//! 1. `callint.toml` names it: an entry of its `servers` or of `[guard]
//!    servers` is the server's name, its URL (a final `/` aside), its
//!    command line, or one word of that command line (the program, a
//!    script, a package); or
//! 2. its name, its URL, its command line or the tool's own name holds
//!    `voicehook` (in any case).
//!
//! Otherwise it is not known to be: a client whose session the guard reads
//! (Claude Code, Codex, opencode) may still show it by the shape of its
//! calls there ([`crate::input::server`]); a call judged by itself is then
//! let through.

/// What the client says of the server a pending call goes to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Server {
    /// The server's name, as the client's configuration names it.
    pub name: String,
    /// The address the client reaches it at.
    pub url: Option<String>,
    /// The command line the client starts it with (the command, then its
    /// arguments, separated by spaces).
    pub command: Option<String>,
    /// The tool's own name, as the client gave it.
    pub tool: Option<String>,
}

/// True when the server `s` is voicehook's, by what the client said of it
/// and the names, URLs and commands `configured` lists (`servers` and
/// `[guard] servers` of `callint.toml`).
pub fn is_voicehook(s: &Server, configured: &[String]) -> bool {
    let url = s.url.as_deref().map(|u| u.trim().trim_end_matches('/'));
    let command = s.command.as_deref().map(str::trim);
    let listed = configured.iter().map(|c| c.trim()).any(|c| {
        !c.is_empty()
            && (c == s.name
                || url.is_some_and(|u| !u.is_empty() && u == c.trim_end_matches('/'))
                || command.is_some_and(|m| m == c || m.split_whitespace().any(|w| w == c)))
    });
    let says = |t: &str| t.to_ascii_lowercase().contains("voicehook");
    listed
        || says(&s.name)
        || url.is_some_and(says)
        || command.is_some_and(says)
        || s.tool.as_deref().is_some_and(says)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, url: Option<&str>, command: Option<&str>) -> Server {
        Server {
            name: name.into(),
            url: url.map(Into::into),
            command: command.map(Into::into),
            tool: Some("say".into()),
        }
    }

    #[test]
    fn every_thing_the_client_says_counts() {
        let none: &[String] = &[];
        // by its name, URL or command holding voicehook
        assert!(is_voicehook(&server("VoiceHook", None, None), none));
        assert!(is_voicehook(
            &server("calls", Some("https://voicehook.example/mcp"), None),
            none
        ));
        assert!(is_voicehook(
            &server("calls", None, Some("npx -y @acme/voicehook-mcp")),
            none
        ));
        let mut by_tool = server("calls", None, None);
        by_tool.tool = Some("voicehook_say".into());
        assert!(is_voicehook(&by_tool, none));
        // nothing says so
        let bare = server(
            "vh",
            Some("http://127.0.0.1:7001/mcp"),
            Some("node server.js"),
        );
        assert!(!is_voicehook(&bare, none));
        // the configuration names it: by name, URL (a final / aside), the
        // command line, or one word of it
        for c in [
            "vh",
            "http://127.0.0.1:7001/mcp/",
            "node server.js",
            "server.js",
        ] {
            assert!(is_voicehook(&bare, &[c.to_string()]), "{c}");
        }
        for c in ["v", "http://127.0.0.1:7001", "server", "", " "] {
            assert!(!is_voicehook(&bare, &[c.to_string()]), "{c:?}");
        }
    }
}
