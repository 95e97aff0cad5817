//! The rule catalogue. One module per rule; one line per rule below.

use crate::diagnostic::Severity;
use crate::engine::{Rule, RuleMeta};

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
    seed: "format",
    default_severity: Severity::Error,
    summary:
        "a line that breaks the log format (not JSON, not an object, a value of the wrong type)",
    options: &[],
};

/// An input without times: reported once by the engine, listed here so it
/// can be selected, ignored and explained like a rule.
pub static NO_TIMES: RuleMeta = RuleMeta {
    name: "no-times",
    seed: "format",
    default_severity: Severity::Info,
    summary:
        "an input whose records carry no times, so the rules that measure time could not judge it",
    options: &[],
};

/// An inline suppression that suppressed nothing: reported by the engine,
/// listed here so it can be selected, ignored and explained like a rule.
pub static UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    name: "unused-suppression",
    seed: "format",
    default_severity: Severity::Warning,
    summary: "a `callint: ignore[rule]` comment in a prompt or helper code that suppressed no finding, or names no rule",
    options: &[],
};

/// The rules that cannot judge a call without the times of its records:
/// each measures how long something took.
pub const NEEDS_TIMES: &[&str] = &["slow-ack", "unanswered-agent"];

/// Where a rule can judge an agent: from its own log only, or also from the
/// room that other agents' logs show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The rule needs the agent's own records: its joins, boards, decisions,
    /// messages to its user, tools, say outcomes, or the events it received.
    Own,
    /// The rule judges what an agent said against what was said in the
    /// room. With several logs of one call it also judges, on the merged
    /// room timeline, the agents whose own log is not among them
    /// ([`crate::room`]).
    Room,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Own => "own",
            Scope::Room => "room",
        }
    }
}

/// The rules in [`Scope::Room`]: each judges a line by its text and by the
/// lines around it in the room (who was addressed, who spoke before), which
/// every agent's log holds alike. The others need the agent's own records.
pub const ROOM_SCOPE: &[&str] = &[
    "ack-not-addressed",
    "answered-agent",
    "answered-human-question",
    "asked-delta",
    "long-say",
    "participant-offered-action",
    "repeated-say",
    "spoke-for-addressed",
    "spoke-over-delta",
    "unaddressed-request",
    "unanswered-agent",
    "wrong-language",
];

/// The rules that can judge a record an agent is about to send (`callint
/// guard`, [`crate::engine::Linter::judge_pending`]): each decides from the
/// record itself and what came before it, so its verdict on the last record
/// of a call cannot change with what follows.
///
/// - by the record alone: `board-bundle`, `board-missing-emoji`,
///   `question-on-board`, `decision-not-yes-no`, `label-too-long`,
///   `create-call-delegated`, `long-say`;
/// - by the record against the room so far (who was addressed, who spoke,
///   asked or answered last, the call language, the labels of the peers
///   already in): `ack-not-addressed`, `ambiguous-labels`, `answered-agent`,
///   `answered-human-question`, `asked-delta`, `repeated-say`,
///   `spoke-for-addressed`, `spoke-over-delta`, `unaddressed-request`,
///   `wrong-language`, `participant-offered-action`;
/// - by what the agent's own events had delivered before it: `missed-line`,
///   `contradicted-claim`, `resent-dropped-say` (a say the server dropped
///   before, sent again).
///
/// The others cannot, and are left out:
///
/// - they judge what did or did not come after a record, which a pending
///   record has not had yet: `join-sequence` and `no-greeting` (what follows
///   a join), `unanswered-agent` (no answer to a line), `link-not-last` and
///   `link-missing-until-joined` (what ends the turn), `foreground-wait-before-link`
///   (whether the link reached the user before the wait);
/// - `slow-ack` measures a delay: holding back the late acknowledgement
///   would only make it later;
/// - `participant-acted` judges the agent's other tools, and
///   `timeout-events-dropped` its helper code, neither of which is a call
///   of voicehook.
pub const PENDING: &[&str] = &[
    "ack-not-addressed",
    "ambiguous-labels",
    "answered-agent",
    "answered-human-question",
    "asked-delta",
    "board-bundle",
    "board-missing-emoji",
    "contradicted-claim",
    "create-call-delegated",
    "decision-not-yes-no",
    "label-too-long",
    "long-say",
    "missed-line",
    "participant-offered-action",
    "question-on-board",
    "repeated-say",
    "resent-dropped-say",
    "spoke-for-addressed",
    "spoke-over-delta",
    "unaddressed-request",
    "wrong-language",
];

/// The rules that judge a record by what follows it in the log (a greeting
/// or the steps due after a join, an answer to a line, the end of a turn,
/// a delay): a log still being written has not shown it yet, so
/// `check --follow` holds their findings until the log has moved on, and
/// none of them is in [`PENDING`].
pub const LOOKS_AHEAD: &[&str] = &[
    "join-sequence",
    "no-greeting",
    "unanswered-agent",
    "link-not-last",
    "link-missing-until-joined",
    "foreground-wait-before-link",
    "slow-ack",
];

/// The rules of [`PENDING`] that judge a pending record by itself: its
/// own text, board or arguments, and whether a subagent sends it. When
/// the client names no session callint can read (the guard of a client
/// whose hook input carries no transcript), only these are judged: the
/// others need the call so far (who spoke last, who was addressed, which
/// language the call is in, what was said before), and judged without it
/// they would guess. An "On it." looks unaddressed when the question
/// that addressed the agent is not there to see.
pub const ALONE: &[&str] = &[
    "board-bundle",
    "board-missing-emoji",
    "create-call-delegated",
    "decision-not-yes-no",
    "label-too-long",
    "long-say",
    "question-on-board",
];

/// True when rule `name` can judge a record before it is sent ([`PENDING`]).
pub fn judges_pending(name: &str) -> bool {
    PENDING.contains(&name)
}

/// The scope of a rule.
pub fn scope(name: &str) -> Scope {
    if ROOM_SCOPE.contains(&name) {
        Scope::Room
    } else {
        Scope::Own
    }
}

/// The rules that can never fire on `format`: its records do not carry
/// what they look at ([`crate::input::Format::evidence`]).
pub fn cannot_show(format: crate::input::Format) -> Vec<&'static str> {
    use crate::input::Evidence;
    match format.evidence() {
        Evidence::AllBut(not) => not.to_vec(),
        Evidence::Only(only) => all()
            .iter()
            .map(|r| r.meta().name)
            .filter(|n| !only.contains(n))
            .collect(),
    }
}

/// True when findings of `rule` can come from `format` (every name outside
/// the catalogue, as `invalid-record`, can).
pub fn shows(format: crate::input::Format, rule: &str) -> bool {
    !cannot_show(format).contains(&rule)
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
    v.push(&UNUSED_SUPPRESSION);
    v.sort_by_key(|m| m.name);
    v
}

pub fn meta(name: &str) -> Option<&'static RuleMeta> {
    catalogue().into_iter().find(|m| m.name == name)
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
pub(crate) struct Once(std::collections::HashSet<String>);

impl Once {
    pub fn new() -> Once {
        Once(std::collections::HashSet::new())
    }
    /// True the first time `key` is seen.
    pub fn first(&mut self, key: &str) -> bool {
        self.0.insert(key.to_string())
    }
}

/// True when the log shows that `window` ms after the record at `i` have
/// passed: a later record is timed past them. A log that ends sooner (a
/// recording cut short, a log still being written) cannot show what came
/// in the rest of the window, so the rules that wait for something within
/// it stay silent there. An untimed log is judged as far as it goes.
pub(crate) fn window_passed(records: &[crate::model::Record], i: usize, window: i64) -> bool {
    let rest = records.get(i + 1..).unwrap_or_default();
    if rest.is_empty() {
        return false;
    }
    match (records[i].ts, rest.iter().filter_map(|r| r.ts).max()) {
        (Some(start), Some(last)) => last.saturating_sub(start) > window,
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
    fn room_scope_names_real_rules() {
        for name in ROOM_SCOPE {
            assert!(meta(name).is_some(), "{name}");
            assert_eq!(scope(name), Scope::Room);
        }
        assert_eq!(scope("board-bundle"), Scope::Own);
    }

    #[test]
    fn pending_names_real_rules() {
        for name in PENDING {
            assert!(meta(name).is_some(), "{name}");
        }
        for name in ALONE {
            assert!(judges_pending(name), "{name}");
        }
        assert!(judges_pending("long-say"));
        assert!(!judges_pending("unanswered-agent"));
        // a rule that waits for what follows a record cannot judge one
        // before it is sent
        for name in LOOKS_AHEAD {
            assert!(meta(name).is_some(), "{name}");
            assert!(!judges_pending(name), "{name}");
        }
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(closest("board-bundles"), Some("board-bundle"));
        assert_eq!(closest("lable-too-long"), Some("label-too-long"));
        assert_eq!(closest("zzzzzzzzzzzzzzzzzz"), None);
    }
}
