//! What rules report.

use std::fmt;

use crate::core::span::{Anchor, Ms};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A place a finding points at, with what to say there.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub at: Anchor,
    pub text: Option<String>,
}

/// One finding of one rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    /// The agent whose behaviour the finding is about.
    pub agent: Option<String>,
    pub primary: Label,
    /// Secondary places: the line the rule was broken against, and so on.
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// The id of the call the finding is about, when the input names one.
    pub call: Option<String>,
    /// The time of the record the finding points at, when it has one.
    pub ts: Option<Ms>,
    /// What the finding is about, as a stable key ([`crate::lint::fingerprint`]);
    /// set once the file's findings are final.
    pub fingerprint: Option<String>,
    /// What the finding is about, for a finding about the call rather than
    /// one record ([`Finding::about`]): of the findings of one rule with the
    /// same key in one call of a file, the engine keeps the first.
    pub about: Option<String>,
}

impl Diagnostic {
    /// Every place the finding points at: the primary one, then the
    /// secondary ones.
    pub fn places(&self) -> impl Iterator<Item = &Label> {
        std::iter::once(&self.primary).chain(&self.labels)
    }

    /// [`Diagnostic::places`], to change them.
    pub fn places_mut(&mut self) -> impl Iterator<Item = &mut Label> {
        std::iter::once(&mut self.primary).chain(&mut self.labels)
    }

    /// Every text the finding carries (message, labels, help, agent, call)
    /// cut to a bounded window ([`crate::core::escape::window`]), so that a name
    /// or text of megabytes from a log costs each output a few hundred
    /// characters, not a copy. The engine does it to every finding it
    /// makes.
    pub fn bound(&mut self) {
        use crate::core::escape::{window, MAX_NAME, MAX_TEXT};
        window(&mut self.message, MAX_TEXT);
        for l in std::iter::once(&mut self.primary).chain(&mut self.labels) {
            if let Some(t) = &mut l.text {
                window(t, MAX_TEXT);
            }
        }
        if let Some(h) = &mut self.help {
            window(h, MAX_TEXT);
        }
        for name in [&mut self.agent, &mut self.call].into_iter().flatten() {
            window(name, MAX_NAME);
        }
    }
}

/// What a rule hands to the engine; the engine adds rule name, severity and
/// agent.
#[derive(Clone, Debug)]
pub struct Finding {
    pub message: String,
    pub primary: Label,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub agent: Option<String>,
    pub about: Option<String>,
}

impl Finding {
    pub fn new(at: Anchor, message: impl Into<String>) -> Finding {
        Finding {
            message: message.into(),
            primary: Label { at, text: None },
            labels: Vec::new(),
            help: None,
            agent: None,
            about: None,
        }
    }
    /// What the finding is about when that is the call itself, not a record
    /// (a pair of names): one finding per key, rule and call. An input read
    /// as several logs of one call (a transcript is linted from every
    /// agent's side) shows such a thing in each of them, each log in its own
    /// words; the engine keeps the first, in file order.
    pub fn about(mut self, key: impl Into<String>) -> Finding {
        self.about = Some(key.into());
        self
    }
    /// The text under the primary underline.
    pub fn here(mut self, text: impl Into<String>) -> Finding {
        self.primary.text = Some(text.into());
        self
    }
    /// A secondary place.
    pub fn label(mut self, at: Anchor, text: impl Into<String>) -> Finding {
        self.labels.push(Label {
            at,
            text: Some(text.into()),
        });
        self
    }
    pub fn help(mut self, text: impl Into<String>) -> Finding {
        self.help = Some(text.into());
        self
    }
    /// The agent at fault, when it is not the recorder.
    pub fn agent(mut self, agent: impl Into<String>) -> Finding {
        self.agent = Some(agent.into());
        self
    }
}
/// Sorted findings ([`sort`]) without repeats: the same finding once (one
/// input can yield several views of the same lines: a transcript is linted
/// from every agent's side), and of the findings of one rule about the same
/// thing in one call ([`Finding::about`]) the first.
pub fn dedup(d: &mut Vec<Diagnostic>) {
    d.dedup_by(|a, b| a == b);
    let mut about = crate::core::hash::HashSet::default();
    d.retain(|x| match &x.about {
        Some(key) => about.insert((x.rule, x.call.clone(), key.clone())),
        None => true,
    });
}

/// Findings in file order; ties by rule name.
pub fn sort(d: &mut [Diagnostic]) {
    d.sort_by(|a, b| {
        (a.primary.at.span.start, a.rule, &a.message).cmp(&(
            b.primary.at.span.start,
            b.rule,
            &b.message,
        ))
    });
}
