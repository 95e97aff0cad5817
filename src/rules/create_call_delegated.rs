//! `create-call-delegated`: `create_call` run from a subagent, a fork or a
//! background job instead of the main thread (hard rule).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Op, Path};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "create-call-delegated",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::THREADS,
    instruction: Some("creating the call in a subagent, a fork or a background job"),
    default_severity: Severity::Error,
    summary: "`create_call` recorded from a thread other than `main` (a subagent, a fork, a background job)",
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
        let off_main = i.tells_both(CREATE_CALL, SIDE_THREAD)
            || i.tells()
                .any(|c| c.has(CREATE) && c.has(CALL) && c.has(SIDE_THREAD))
            || i.tells_both(
                &["delegat*", "delegier*", "hand off", "übergib"],
                CREATE_CALL,
            );
        if !off_main {
            return None;
        }
        Some(at_instruction(i, "this instruction has the call created off the main thread; its link would never reach the user", "say to create the call in the main thread, the one the user talks to, and to end that turn with share_text"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        for (r, f) in cx.call.fn_calls() {
            let Op::CreateCall(c) = &f.op else { continue };
            if r.is_main() {
                continue;
            }
            let thread = r.thread().name();
            let mut finding = Finding::new(
                r.at(Path::ROOT.key("thread")),
                format!("`create_call` ran in a {thread} thread, not in the main thread"),
            )
            .here(format!("created from the {thread} thread"))
            .help("create the call in the main thread, the one your user talks to, and end that thread's turn with share_text; a link made in a side thread does not reach your user");
            if let Some(s) = &c.share_text {
                finding = finding.label(
                    r.text(s),
                    format!("this link went to the {thread} thread, not to your user"),
                );
            }
            cx.report(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lint::engine::fired;

    #[test]
    fn fires_off_the_main_thread_only() {
        let log = r#"{"ts":"2026-10-10T09:00:01.000Z","thread":"subagent","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","share_text":"Join: https://voicehook.ai/c/a"}}
{"ts":"2026-10-10T09:00:02.000Z","thread":"fork","fn":"create_call","args":{"lang":"en"},"error":{"status":500,"message":"busy"}}
{"ts":"2026-10-10T09:00:03.000Z","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","share_text":"Join: https://voicehook.ai/c/a"}}
{"ts":"2026-10-10T09:00:04.000Z","thread":"main","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","share_text":"Join: https://voicehook.ai/c/a"}}
{"ts":"2026-10-10T09:00:05.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}
"#;
        assert_eq!(fired("create-call-delegated", log), [1, 2]);
    }
}
