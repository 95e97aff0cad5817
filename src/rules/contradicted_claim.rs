//! `contradicted-claim`: a claim about the call or the agent itself that
//! the agent's own data contradicts (rulebook rule 8).

use crate::addressing::sentences;
use crate::diagnostic::{Finding, Severity};
use crate::engine::{Cx, Rule, RuleMeta};
use crate::language::{claimed_language, Lang};
use crate::lexicon::Lexicon;
use crate::model::{Call, Utterance, Via, Who};
use crate::report::escape::quote;
use crate::text::{find_phrase, lower_words};
use crate::words::Words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "contradicted-claim",
    seed: "8",
    default_severity: Severity::Warning,
    summary: "a claim about the call or itself that its own data contradicts",
    options: &[],
};

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let lex = Lexicon::get();
        let checking = lex.phrases("conduct.checking");
        let mut w = Words::default();
        let mut out = Vec::new();
        for (k, u) in call.utterances.iter().enumerate() {
            if u.who != Who::Me || u.via != Via::Say {
                continue;
            }
            for r in sentences(u.text) {
                let sentence = &u.text[r];
                w.fill(sentence);
                if checking.occurs(&w) {
                    continue;
                }
                if let Some(f) = language_claim(call, u, sentence) {
                    out.push(f);
                    break;
                }
                if let Some((speaker, at)) = reception_claim(lex, call, me, k, &w) {
                    out.push(
                        Finding::new(u.anchor, format!("{me} claims lines from {speaker} do not reach it, but its own events carry them"))
                            .here("contradicted by the log")
                            .label(call.utterances[at].anchor, format!("{speaker}'s line reached {me} here"))
                            .help("look at `operators_said` of your recent events (of every type, `timeout` included) before saying what you receive; if you have not checked, say that you will"),
                    );
                    break;
                }
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// "German is spoken here" while the call language is English.
fn language_claim(call: &Call<'_>, u: &Utterance<'_>, sentence: &str) -> Option<Finding> {
    let claimed = claimed_language(sentence)?;
    let setting = call.lang_at(u.record)?;
    let actual = Lang::from_code(setting.lang)?;
    if claimed == actual {
        return None;
    }
    Some(
        Finding::new(u.anchor, format!("claims the call is in {} but the call language is {}", claimed.name(), actual.name()))
            .here(format!("says {} is spoken", claimed.name()))
            .label(setting.anchor, format!("the call language was set to {} here", quote(setting.lang, 8)))
            .help("take the call language from `context.lang` of the join answer and of `context` events, never from your own user's chat"),
    )
}

/// "I receive nothing from Promo" / "the agents can't hear each other":
/// the speaker meant, and the latest line of theirs that had arrived.
fn reception_claim(
    lex: &Lexicon,
    call: &Call<'_>,
    me: &str,
    k: usize,
    w: &Words,
) -> Option<(String, usize)> {
    if !lex.phrases("conduct.no-reception-claims").occurs(w) {
        return None;
    }
    // A claim: rare enough to look at its words one by one.
    let w = &w.to_vec();
    let named: Vec<&str> = call
        .agents
        .iter()
        .map(|a| a.label.as_str())
        .filter(|l| !l.eq_ignore_ascii_case(me))
        .filter(|l| {
            let lw = lower_words(l);
            !lw.is_empty() && find_phrase(w, &lw.join(" ")).is_some()
        })
        .collect();
    let everyone = named.is_empty() && lex.phrases("conduct.all-agents").occurs(w);
    if named.is_empty() && !everyone {
        return None;
    }
    let at = call.utterances[..k].iter().rposition(|p| {
        p.who == Who::Agent
            && matches!(p.via, Via::OperatorsSaid | Via::OperatorEvent)
            && (everyone || named.iter().any(|n| n.eq_ignore_ascii_case(p.speaker)))
    })?;
    let speaker = if everyone {
        "the other agents".to_string()
    } else {
        named.join(", ")
    };
    Some((speaker, at))
}
