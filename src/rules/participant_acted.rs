//! `participant-acted`: a participant runs tools in someone else's call
//! without being asked (rulebook rule 7).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::one_line;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Body, Call, Op, Tool, Who};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "participant-acted",
    rulebook: "7",
    scope: Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::TOOLS,
    instruction: Some(
        "acting (editing, deploying, forwarding) on what is heard in a call, unasked",
    ),
    default_severity: Severity::Warning,
    summary: "a participant ran tools (edit, shell, deploy, forward) it was not asked for by name",
    options: &[],
};

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn instruction(
        &self,
        i: &crate::text::instructions::Instruction,
    ) -> Option<crate::core::diagnostic::Finding> {
        use crate::rules::at_instruction;
        use crate::text::instructions::concept::*;
        // the agent's own act, not one it leaves to someone ("so Oliver
        // can fix it")
        let hands_on = |c: &crate::text::instructions::Clause| {
            c.has(&["send*", "hand*", "pass*", "schick*", "gib"])
                && c.has(&["task*", "work", "aufgabe*"])
                && c.has(OTHER_AGENT)
        };
        let acts = i
            .tells()
            .any(|c| c.has(ACT) && c.main().has(ACT) || hands_on(c));
        let heard = i.if_any(HEARS)
            || i.tells()
                .any(|c| (c.has(ACT) || hands_on(c)) && c.has(HEARS));
        if !acts || !heard || i.has(ASKED_EXPLICITLY) || i.tells_any(OFFER) || i.has(ADDRESSED_ME) {
            return None;
        }
        Some(at_instruction(i, "this instruction has a participant act on what it hears, unasked", "say to note such work on the board and to act only when the human asks the agent by name"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        if !call.recorder_is_participant() {
            return;
        }
        let lex = Lexicon::get();
        let human = call.human.unwrap_or("the human");
        let mut in_call = false;
        let mut asked_by_user = false;
        let mut out = Vec::new();
        for (i, r) in call.records.iter().enumerate() {
            match &r.body {
                Body::Fn(f) => match &f.op {
                    Op::Join(j) if f.ok() && j.joined() => in_call = true,
                    Op::Leave => in_call = false,
                    _ => {}
                },
                // The agent's own user may hand it work during the call.
                Body::Chat(c) if in_call && !c.is_assistant() => asked_by_user = true,
                Body::Tool(t) if in_call && !asked_by_user && acts(lex, t) => {
                    let turns = human_turns_before(call, i);
                    if asked_by_name(call, me, &turns) {
                        continue;
                    }
                    let mut f = Finding::new(
                        r.head(),
                        format!(
                            "participant {me} ran `{}` in someone else's call without being asked",
                            one_line(&t.name)
                        ),
                    )
                    .here("not asked for by name");
                    if let Some(&k) = turns.first() {
                        let u = &call.utterances[k];
                        let whom = if u.addressed_to.is_empty() {
                            "nobody in particular".to_string()
                        } else {
                            u.addressed_to.join(", ")
                        };
                        f = f.label(u.anchor(), format!("{human}'s last turn addressed {whom}"));
                    }
                    out.push(f.help(format!(
                        "as a participant, leave changes to the agent in charge: note the idea on your board, and act only when {human} asks you by name"
                    )));
                }
                _ => {}
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// Utterance indices of the human's lines that came before record `i`,
/// latest first.
fn human_turns_before(call: &Call<'_>, i: usize) -> Vec<usize> {
    call.utterances
        .iter()
        .enumerate()
        .filter(|(_, u)| u.who == Who::Human && u.record() < i)
        .map(|(k, _)| k)
        .rev()
        .take(2)
        .collect()
}

/// The human asked the recorder by name in the current or the previous
/// turn (`turns`: the human's lines, latest first), and gave no work to
/// anyone else since: a line that addresses others and not the recorder
/// ends the permission of the one before it.
fn asked_by_name(call: &Call<'_>, me: &str, turns: &[usize]) -> bool {
    for &k in turns.iter().take(2) {
        let to = &call.utterances[k].addressed_to;
        if to.iter().any(|n| crate::model::turns::same_name(n, me)) {
            return true;
        }
        if !to.is_empty() {
            return false;
        }
    }
    false
}

/// The tool changes something (it does more than look): see
/// [`crate::model::tools`]. A tool nothing tells about is not judged.
fn acts(lex: &Lexicon, t: &Tool) -> bool {
    crate::model::tools::effect(lex, t) == crate::model::tools::Effect::Acts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, command: &str) -> Tool {
        Tool {
            name: name.into(),
            args: Some(serde_json::json!({ "command": command })),
            at: None,
        }
    }

    fn run(lines: &[&str]) -> usize {
        let join = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Tarn","greet":true},"result":{"status":"joined","role":"participant","context":{"lang":"en"}}}"#;
        let mut log = vec![join.to_string()];
        log.extend(lines.iter().map(|l| l.to_string()));
        crate::lint::engine::fired("participant-acted", &log.join("\n")).len()
    }

    const TO_TARN: &str = r#"{"ts":"2026-10-10T10:01:00.000Z","fn":"next","result":{"type":"user","speaker":"Ines","text":"Tarn, restart the mailer.","addressed_to":["Tarn"],"addressed_to_you":true}}"#;
    const TO_QUILL: &str = r#"{"ts":"2026-10-10T10:01:10.000Z","fn":"next","result":{"type":"user","speaker":"Ines","text":"Quill, restart the mailer.","addressed_to":["Quill"],"addressed_to_you":false}}"#;
    const OPEN: &str = r#"{"ts":"2026-10-10T10:01:10.000Z","fn":"next","result":{"type":"user","speaker":"Ines","text":"Thanks.","addressed_to":[],"addressed_to_you":false}}"#;
    const RESTART: &str = r#"{"ts":"2026-10-10T10:01:12.000Z","tool":"shell","args":{"command":"systemctl restart mailer"}}"#;

    #[test]
    fn work_given_to_someone_else_is_no_permission() {
        assert_eq!(run(&[TO_QUILL, RESTART]), 1);
        // Asked by name in the previous turn, then the human handed the
        // work to Quill: the permission ended there.
        assert_eq!(run(&[TO_TARN, TO_QUILL, RESTART]), 1);
        // Asked in this turn or the one before, nothing given away since.
        assert_eq!(run(&[TO_TARN, RESTART]), 0);
        assert_eq!(run(&[TO_TARN, OPEN, RESTART]), 0);
        let quill_before = TO_QUILL.replace("10:01:10", "10:00:50");
        assert_eq!(run(&[&quill_before, TO_TARN, RESTART]), 0);
    }

    #[test]
    fn looking_is_not_acting() {
        let lex = Lexicon::get();
        assert!(!acts(lex, &tool("read_file", "")));
        assert!(!acts(lex, &tool("shell", "git log --oneline | head -5")));
        assert!(!acts(lex, &tool("bash", "ls -la && cat README.md")));
        assert!(acts(lex, &tool("shell", "git tag v1 && git push --tags")));
        assert!(acts(lex, &tool("shell", "ls > files.txt")));
        assert!(acts(lex, &tool("shell", "cat a; rm -rf b")));
        assert!(acts(lex, &tool("edit_file", "")));
        // no command recorded: cannot tell, so not judged
        assert!(!acts(lex, &tool("shell", "")));
    }
}
