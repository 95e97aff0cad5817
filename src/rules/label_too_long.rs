//! `label-too-long`: a label over the server's limit (seed rule 9).

use crate::config::OptValue;
use crate::diagnostic::{Finding, Severity};
use crate::engine::{Cx, OptionMeta, Rule, RuleMeta};
use crate::model::{Op, Text};
use crate::report::escape::quote;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "label-too-long",
    seed: "9, server",
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

/// Help text with a shorter label to use instead.
fn suggestion(label: &Text, max: usize) -> String {
    let first = label
        .value
        .split(['-', '_', ' ', '.', '/'])
        .find(|s| !s.is_empty())
        .unwrap_or("");
    let short: String = if !first.is_empty() && first.chars().count() <= max {
        first.to_string()
    } else {
        label.value.chars().take(max).collect()
    };
    format!(
        "pick a label of at most {max} characters that people can say, such as {}; it is shown on the chip and is how others address you",
        quote(&short, 30)
    )
}
