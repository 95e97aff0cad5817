//! `label-too-long`: a label over the server's limit (seed rule 9).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Op, Text};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "label-too-long",
    rulebook: "9, server",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::LABELS.and(Evidence::ROLES),
    instruction: Some("joining with a label of more than 22 characters"),
    default_severity: Severity::Error,
    summary: "a label over 22 characters, which the server refuses with 422",
    options: &[OptionMeta {
        name: "max-chars",
        default: OptValue::Int(22),
        help: "the longest label the server accepts, in characters",
    }],
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
        if !i.has(LABEL) || i.forbids_any(LABEL) {
            return None;
        }
        // a name with no spaces, or one in quotes that stands where a
        // label's value does ("set `label` to \"Kassenbuch Assistant\"");
        // never a message or a path
        let values = value_quotes(i);
        let long = i.quoted.iter().find(|q| {
            q.chars().count() > 22
                && !q.contains(['/', '.', '{', '=', ',', '!', '?'])
                && (!q.contains(char::is_whitespace)
                    || q.split_whitespace().count() <= 5 && values.contains(q))
        })?;
        Some(at_instruction(i, &format!("this instruction gives a label of {} characters; the server refuses labels over 22", long.chars().count()), "give a label of at most 22 characters, such as the agent's short name"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let max = cx.int("max-chars") as usize;
        for (r, f) in cx.call.fn_calls() {
            let label = match &f.op {
                Op::Join(j) => j.label.as_ref(),
                Op::Status(b) => b.label.as_ref(),
                _ => None,
            };
            let Some(label) = label else { continue };
            let n = label.value.chars().count();
            let refused = f
                .error
                .as_ref()
                .filter(|e| e.status == Some(422) && mentions_label(e.message.as_deref()));
            if n <= max && refused.is_none() {
                continue;
            }
            let mut finding = if n > max {
                Finding::new(
                    r.text(label),
                    format!(
                        "label {} is {n} characters long; the server accepts at most {max}",
                        quote(&label.value, 40)
                    ),
                )
                .here(format!("{n} characters"))
            } else {
                Finding::new(
                    r.text(label),
                    format!("the server refused label {}", quote(&label.value, 40)),
                )
            };
            if let Some(e) = refused {
                let msg = e.message.as_deref().unwrap_or("refused");
                finding = finding.label(
                    r.at(crate::model::Path::ROOT.key("error").key("status")),
                    format!("refused by the server: {}", quote(msg, 60)),
                );
            }
            cx.report(finding.help(suggestion(label, max)));
        }
    }
}

fn mentions_label(message: Option<&str>) -> bool {
    message.is_none_or(|m| m.to_lowercase().contains("label"))
}

/// Parts of a label that say nothing about who the agent is.
const NOISE: &[&str] = &[
    "session",
    "instance",
    "agent",
    "assistant",
    "worker",
    "run",
    "test",
    "tmp",
];

/// A shorter label to suggest: the label's words without dates, numbers,
/// versions and filler, as many as fit.
fn shorter(label: &str, max: usize) -> String {
    let words: Vec<&str> = label
        .split(['-', '_', ' ', '.', '/', ':'])
        .filter(|w| !w.is_empty())
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| {
            !(w.len() > 1
                && w.starts_with(['v', 'V'])
                && w[1..].chars().all(|c| c.is_ascii_digit()))
        })
        .filter(|w| !NOISE.contains(&w.to_lowercase().as_str()))
        .collect();
    let mut out = String::new();
    for w in words {
        let next = if out.is_empty() {
            w.to_string()
        } else {
            format!("{out}-{w}")
        };
        if next.chars().count() > max {
            break;
        }
        out = next;
    }
    if out.is_empty() {
        out = label.chars().take(max).collect();
    }
    out
}

/// Help text with a shorter label to use instead.
fn suggestion(label: &Text, max: usize) -> String {
    format!(
        "pick a label of at most {max} characters that people can say, such as {}; it is shown on the chip and is how others address you",
        quote(&shorter(&label.value, max), 30)
    )
}

/// The quoted speech of `i` that stands as a label's value: right after
/// "label", "to", "as", "like", a colon or an example's "e.g.".
fn value_quotes(i: &crate::text::instructions::Instruction) -> Vec<&String> {
    let words: Vec<&str> = i.words.split(' ').collect();
    let mut said = i.said.iter();
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        if *w != "\"…\"" {
            continue;
        }
        let Some(q) = said.next() else { break };
        let before = if k > 0 { words[k - 1] } else { "" };
        if matches!(
            before,
            "label"
                | "to"
                | "as"
                | "like"
                | ":"
                | "e.g."
                | "eg"
                | "als"
                | "lautet"
                | "heißt"
                | "z.b."
        ) {
            out.push(q);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shorter;

    #[test]
    fn suggests_a_sayable_label() {
        assert_eq!(shorter("opencode-session-2026-10-10", 22), "opencode");
        assert_eq!(shorter("release-notes-assistant", 22), "release-notes");
        assert_eq!(shorter("release-notes-agent-v2", 22), "release-notes");
        assert_eq!(shorter("2026-10-10", 22), "2026-10-10");
        assert_eq!(
            shorter("averyveryverylonglabelwithoutbreaks", 22)
                .chars()
                .count(),
            22
        );
    }
}
