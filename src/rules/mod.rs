//! The rule catalogue and the rule API: the [`Rule`] trait and the context
//! [`Cx`] a rule checks one call through. One module per rule; one line per
//! rule in the registry below.

use std::collections::BTreeMap;

use crate::core::diagnostic::{Diagnostic, Finding, Severity};
use crate::core::meta::{Evidence, OptValue, RuleMeta, Scope, When};
use crate::model::{record_at, Call};
use crate::text::instructions::Instruction;

// What a rule is to the engine: the `Rule` trait, and the context `Cx` a
// rule checks one call through. A rule reads the call model and reports
// findings; it never prints and never reads a file.

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    /// Look at the call and report findings through `cx`. Never prints.
    fn check(&self, cx: &mut Cx<'_, '_>);
    /// The rule's instruction form ([`RuleMeta::instruction`]): a finding
    /// at an instruction of a prompt or skill that would make an agent
    /// break the rule, judged with the shared analysis of
    /// [`crate::text::instructions`]. `None` when following it breaks
    /// nothing.
    fn instruction(&self, _ins: &Instruction) -> Option<Finding> {
        None
    }
}

/// The diagnostic of a finding at an instruction (no call, no agent).
pub fn instruction_diagnostic(
    meta: &'static RuleMeta,
    severity: Severity,
    f: Finding,
) -> Diagnostic {
    let mut d = Diagnostic {
        rule: meta.name,
        severity,
        message: f.message,
        agent: None,
        primary: f.primary,
        labels: f.labels,
        help: f.help,
        call: None,
        ts: None,
        fingerprint: None,
        about: None,
    };
    d.bound();
    d
}

/// A finding at instruction `ins`: `message`, and `help` that says how to
/// write the instruction instead.
pub fn at_instruction(ins: &Instruction, message: &str, help: &str) -> Finding {
    Finding::new(
        crate::model::Anchor::bytes(crate::model::Span::new(ins.span.start, ins.span.end)),
        message,
    )
    .help(help)
}

/// What a rule sees while it checks one call.
pub struct Cx<'c, 'a> {
    pub call: &'c Call<'a>,
    pub(crate) meta: &'static RuleMeta,
    pub(crate) severity: Severity,
    pub(crate) options: &'c BTreeMap<&'static str, OptValue>,
    pub(crate) out: &'c mut Vec<Diagnostic>,
    /// In a live judgment, the record judged (an index into the call's
    /// records): only findings on it are kept.
    pub(crate) judged: Option<usize>,
}

impl Cx<'_, '_> {
    /// Can a finding on record `record` (an index into the call's records)
    /// be kept? Always, but in a live judgment of another record: a rule may
    /// skip the work of judging such a record, though not what decides a
    /// finding on the judged one, nor a finding whose `about` key an earlier
    /// one would share.
    pub fn judges(&self, record: usize) -> bool {
        self.judged.is_none_or(|j| j == record)
    }

    pub fn report(&mut self, f: Finding) {
        self.push(f, self.severity);
    }

    fn push(&mut self, f: Finding, severity: Severity) {
        let agent = f.agent.or_else(|| self.call.recorder.map(str::to_string));
        let ts = record_at(self.call.records, f.primary.at.span.start).and_then(|r| r.ts);
        let mut d = Diagnostic {
            rule: self.meta.name,
            severity,
            message: f.message,
            agent,
            primary: f.primary,
            labels: f.labels,
            help: f.help,
            call: self.call.call_id.map(str::to_string),
            ts,
            fingerprint: None,
            about: f.about,
        };
        d.bound();
        self.out.push(d);
    }

    /// Reports what the rule could not judge, and why: always at `info`,
    /// whatever the rule's severity, so that it never fails a run.
    pub fn note(&mut self, f: Finding) {
        self.push(f, Severity::Info);
    }

    fn opt(&self, name: &str) -> &OptValue {
        self.options
            .get(name)
            .or_else(|| {
                self.meta
                    .options
                    .iter()
                    .find(|o| o.name == name)
                    .map(|o| &o.default)
            })
            .unwrap_or_else(|| panic!("rule {} has no option {name}", self.meta.name))
    }

    /// A whole-number option (validated at configuration time).
    pub fn int(&self, name: &str) -> i64 {
        match self.opt(name) {
            OptValue::Int(i) => *i,
            OptValue::Float(f) => *f as i64,
            _ => 0,
        }
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.opt(name) {
            OptValue::Int(i) => *i as f64,
            OptValue::Float(f) => *f,
            _ => 0.0,
        }
    }
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.opt(name), OptValue::Bool(true))
    }
}

macro_rules! registry {
    ($($module:ident => $name:literal),* $(,)?) => {
        $(pub mod $module;)*

        static ALL: &[&dyn Rule] = &[$(&$module::Check),*];

        /// The page of a rule (`rules/<name>.md`), embedded in the binary.
        pub fn page(name: &str) -> Option<&'static str> {
            match name {
                $($name => Some(include_str!(concat!("../../rules/", $name, ".md"))),)*
                "invalid-record" => Some(include_str!("../../rules/invalid-record.md")),
                "no-times" => Some(include_str!("../../rules/no-times.md")),
                "unknown-roles" => Some(include_str!("../../rules/unknown-roles.md")),
                "unused-suppression" => Some(include_str!("../../rules/unused-suppression.md")),
                _ => None,
            }
        }
    };
}

registry! {
    ack_not_addressed => "ack-not-addressed",
    ambiguous_labels => "ambiguous-labels",
    answered_agent => "answered-agent",
    answered_human_question => "answered-human-question",
    asked_delta => "asked-delta",
    board_bundle => "board-bundle",
    board_missing_emoji => "board-missing-emoji",
    contradicted_claim => "contradicted-claim",
    create_call_delegated => "create-call-delegated",
    decision_not_yes_no => "decision-not-yes-no",
    foreground_wait_before_link => "foreground-wait-before-link",
    join_sequence => "join-sequence",
    label_too_long => "label-too-long",
    link_missing_until_joined => "link-missing-until-joined",
    link_not_last => "link-not-last",
    long_say => "long-say",
    missed_line => "missed-line",
    no_greeting => "no-greeting",
    participant_acted => "participant-acted",
    participant_offered_action => "participant-offered-action",
    question_on_board => "question-on-board",
    repeated_say => "repeated-say",
    resent_dropped_say => "resent-dropped-say",
    slow_ack => "slow-ack",
    spoke_for_addressed => "spoke-for-addressed",
    spoke_over_delta => "spoke-over-delta",
    timeout_events_dropped => "timeout-events-dropped",
    unaddressed_request => "unaddressed-request",
    unanswered_agent => "unanswered-agent",
    wrong_language => "wrong-language",
}

/// Parse problems: reported by the engine, listed here so they can be
/// selected, ignored and explained like rules.
pub static INVALID_RECORD: RuleMeta = RuleMeta {
    name: "invalid-record",
    rulebook: "format",
    scope: Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::NONE,
    instruction: None,
    default_severity: Severity::Error,
    summary:
        "a line that breaks the log format (not JSON, not an object, a value of the wrong type)",
    options: &[],
};

/// An input without times: reported once by the engine, listed here so it
/// can be selected, ignored and explained like a rule.
pub static NO_TIMES: RuleMeta = RuleMeta {
    name: "no-times",
    rulebook: "format",
    scope: Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::NONE,
    instruction: None,
    default_severity: Severity::Info,
    summary:
        "an input whose records carry no times, so the rules that measure time could not judge it",
    options: &[],
};

/// Heard speech that does not say who is who: reported once by the
/// engine, listed here so it can be selected, ignored and explained like
/// a rule.
pub static UNKNOWN_ROLES: RuleMeta = RuleMeta {
    name: "unknown-roles",
    rulebook: "format",
    scope: Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::NONE,
    instruction: None,
    default_severity: Severity::Info,
    summary: "a transcript or captions that do not say who the human is, so the rules that need to know who is who could not judge it",
    options: &[],
};

/// An inline suppression that suppressed nothing: reported by the engine,
/// listed here so it can be selected, ignored and explained like a rule.
pub static UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    name: "unused-suppression",
    rulebook: "format",
    scope: Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::NONE,
    instruction: None,
    default_severity: Severity::Warning,
    summary: "a `callint: ignore[rule]` comment in a prompt or helper code that suppressed no finding, or names no rule",
    options: &[],
};

/// The rules that need `evidence` of their input, by name, in catalogue
/// order (`Evidence::TIMES`: the rules that measure how long something
/// took, which an untimed input cannot show).
pub fn needing(evidence: Evidence) -> impl Iterator<Item = &'static str> {
    ALL.iter()
        .map(|r| r.meta())
        .filter(move |m| m.needs.covers(evidence))
        .map(|m| m.name)
}

/// True when rule `name` can judge a record before it is sent
/// ([`RuleMeta::judges_pending`]).
pub fn judges_pending(name: &str) -> bool {
    meta(name).is_some_and(RuleMeta::judges_pending)
}

/// True when rule `name` judges a pending record by itself ([`When::Record`]):
/// its own text, board or arguments, and whether a subagent sends it. When a
/// client names no session callint can read, only these are judged: the
/// others need the call so far (who spoke last, who was addressed, the call
/// language), and without it they would guess: an "On it." looks unaddressed
/// when the question that addressed the agent is not there to see.
pub fn judges_alone(name: &str) -> bool {
    meta(name).is_some_and(|m| m.when == When::Record)
}

/// True when rule `name` judges a record only once what follows it is
/// known ([`When::After`]).
pub fn looks_ahead(name: &str) -> bool {
    meta(name).is_some_and(|m| m.when == When::After)
}

/// The scope of a rule.
pub fn scope(name: &str) -> Scope {
    meta(name).map_or(Scope::Own, |m| m.scope)
}

/// The rules that can never fire on `format`: its records do not carry
/// what they need ([`crate::input::Format::evidence`]), in catalogue order.
pub fn cannot_show(format: crate::input::Format) -> Vec<&'static str> {
    let carried = format.evidence();
    ALL.iter()
        .map(|r| r.meta())
        .filter(|m| !carried.covers(m.needs))
        .map(|m| m.name)
        .collect()
}

/// True when findings of `rule` can come from `format` (every name outside
/// the catalogue, as `invalid-record`, can).
pub fn shows(format: crate::input::Format, rule: &str) -> bool {
    meta(rule).is_none_or(|m| format.evidence().covers(m.needs))
}

/// Every rule, in catalogue order.
pub fn all() -> &'static [&'static dyn Rule] {
    ALL
}

/// Metadata of every rule and of `invalid-record`, sorted by name.
pub fn catalogue() -> Vec<&'static RuleMeta> {
    let mut v: Vec<&'static RuleMeta> = ALL.iter().map(|r| r.meta()).collect();
    v.push(&INVALID_RECORD);
    v.push(&NO_TIMES);
    v.push(&UNKNOWN_ROLES);
    v.push(&UNUSED_SUPPRESSION);
    v.sort_by_key(|m| m.name);
    v
}

pub fn meta(name: &str) -> Option<&'static RuleMeta> {
    ALL.iter()
        .map(|r| r.meta())
        .chain([
            &INVALID_RECORD,
            &NO_TIMES,
            &UNKNOWN_ROLES,
            &UNUSED_SUPPRESSION,
        ])
        .find(|m| m.name == name)
}

/// The known rule name closest to a misspelt one.
pub fn closest(name: &str) -> Option<&'static str> {
    catalogue()
        .into_iter()
        .map(|m| (edit_distance(name, m.name), m.name))
        .filter(|(d, n)| *d <= 3.max(n.len() / 4))
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Report each distinct item text once per call: a board is sent again and
/// again with the same items, and one mistake is one finding.
pub(crate) struct Once(crate::core::hash::HashSet<String>);

impl Once {
    pub fn new() -> Once {
        Once(crate::core::hash::HashSet::default())
    }
    /// True the first time `key` is seen.
    pub fn first(&mut self, key: &str) -> bool {
        self.0.insert(key.to_string())
    }
}

/// True when the log shows that `window` ms after the record at `i` have
/// passed: a later record is timed at their end or past it (a record a
/// whole minute after a join shows that minute; what was due within it
/// is due by then). A log that ends sooner (a
/// recording cut short, a log still being written) cannot show what came
/// in the rest of the window, so the rules that wait for something within
/// it stay silent there. An untimed log is judged as far as it goes.
pub(crate) fn window_passed(records: &[crate::model::Record], i: usize, window: i64) -> bool {
    let rest = records.get(i + 1..).unwrap_or_default();
    if rest.is_empty() {
        return false;
    }
    match (records[i].ts, rest.iter().filter_map(|r| r.ts).max()) {
        (Some(start), Some(last)) => last.saturating_sub(start) >= window,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_page_and_a_unique_name() {
        let cat = catalogue();
        for m in &cat {
            let page = page(m.name).unwrap();
            assert!(page.starts_with(&format!("# {}\n", m.name)), "{}", m.name);
        }
        let mut names: Vec<_> = cat.iter().map(|m| m.name).collect();
        names.dedup();
        assert_eq!(names.len(), cat.len());
    }

    #[test]
    fn every_rule_can_fire_on_some_input_and_a_native_log_shows_them_all() {
        use crate::input::Format;
        assert!(cannot_show(Format::Native).is_empty());
        let formats = [
            Format::Native,
            Format::Mcp,
            Format::Transcript,
            Format::Board,
            Format::Prompt,
            Format::Code(crate::input::CodeLang::Python),
        ];
        for r in all() {
            let m = r.meta();
            assert!(
                formats.iter().any(|f| shows(*f, m.name)),
                "{} fires on no input",
                m.name
            );
        }
    }

    #[test]
    fn what_a_rule_declares_decides_where_and_when_it_judges() {
        assert!(judges_pending("long-say"));
        assert!(!judges_pending("unanswered-agent"));
        assert!(looks_ahead("no-greeting"));
        assert!(judges_alone("board-bundle") && judges_pending("board-bundle"));
        assert!(!judges_alone("ack-not-addressed"));
        assert_eq!(scope("board-bundle"), Scope::Own);
        assert_eq!(scope("wrong-language"), Scope::Room);
        // a rule that waits for what follows a record cannot judge one
        // before it is sent
        for r in all() {
            let m = r.meta();
            assert!(!(m.when == When::After && m.judges_pending()), "{}", m.name);
        }
        assert_eq!(
            needing(Evidence::TIMES).collect::<Vec<_>>(),
            ["slow-ack", "unanswered-agent"]
        );
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(closest("board-bundles"), Some("board-bundle"));
        assert_eq!(closest("lable-too-long"), Some("label-too-long"));
        assert_eq!(closest("zzzzzzzzzzzzzzzzzz"), None);
    }
}
