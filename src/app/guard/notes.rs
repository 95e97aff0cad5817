//! Notes said once a session. A client may show everything a hook writes
//! on standard error to its user: Gemini CLI turns the standard error of a
//! hook that exits 0 with nothing on standard output into a message shown
//! in its window, on every call (packages/core/src/hooks/hookRunner.ts,
//! `convertPlainTextToHookOutput`). A note that holds for the whole
//! session (the call is judged by itself there; the server is not known
//! to be voicehook) is therefore written on its first call only: a marker
//! file per session and note, in the guard's cache folder, says it was.

use std::path::Path;

/// Markers older than this are removed when a new one is made.
const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// True when the note `what` is to be written now: the first time it is
/// asked for in `session` of `client`, with markers kept under `dir`. With
/// no folder or no session to tell it by (or a marker that cannot be
/// made), every time.
pub fn first_time(dir: Option<&Path>, client: &str, session: Option<&str>, what: &str) -> bool {
    let (Some(dir), Some(session)) = (dir, session) else {
        return true;
    };
    let dir = dir.join("notes");
    let key = format!("{client}\n{session}\n{what}");
    let file = dir.join(format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(key.as_bytes())
    ));
    if std::fs::create_dir_all(&dir).is_err() {
        return true;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
    {
        Ok(_) => {
            prune(&dir);
            true
        }
        Err(e) => e.kind() != std::io::ErrorKind::AlreadyExists,
    }
}

/// Remove the markers of sessions long over.
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > MAX_AGE);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_said_once_a_session() {
        let dir = crate::app::harness::scratch("notes");
        let d: Option<&Path> = Some(&dir);
        assert!(first_time(d, "gemini", Some("s1"), "alone"));
        assert!(!first_time(d, "gemini", Some("s1"), "alone"));
        // another note, session or client: said
        assert!(first_time(d, "gemini", Some("s1"), "unknown vh"));
        assert!(first_time(d, "gemini", Some("s2"), "alone"));
        assert!(first_time(d, "cursor", Some("s1"), "alone"));
        // nothing to tell sessions apart by: every time
        assert!(first_time(d, "gemini", None, "alone"));
        assert!(first_time(d, "gemini", None, "alone"));
        assert!(first_time(None, "gemini", Some("s1"), "alone"));
    }
}
