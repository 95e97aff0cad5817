//! What a prompt, skill or instruction file tells an agent to do: its
//! instruction sentences, found in the prose of a markdown or text
//! document, each split into clauses with their polarity and conditions.
//!
//! The analysis is shared: each rule that an instruction can break asks it
//! what a sentence tells the agent ([`Instruction::tells`]) and decides with
//! its own words whether following that would break the rule. What is not
//! an instruction is left out here, once for every rule:
//!
//! - everything under a heading or a label that presents examples or
//!   mistakes ("Bad", "Don't", "Avoid", "Anti-patterns", "Falsch",
//!   "Schlecht", "Nicht so", "Examples", "Beispiel", "What happened" ...),
//!   up to the next heading of the same level or a label that presents the
//!   right way;
//! - lines of an example transcript (`Oliver: "..."`), blockquotes that an
//!   example label or a colon introduces, and quoted speech inside a
//!   sentence (it is what someone says, not what the agent is told);
//! - sentences that tell nobody anything (a description, a narrative in
//!   the past tense): an instruction is an imperative, a modal said to the
//!   agent ("you must", "du sollst", "agents should"), or a sentence with
//!   "always", "never", "immer", "nie", "grundsätzlich" and the like;
//! - YAML front matter, HTML comments, fenced blocks (the fenced payloads
//!   and helper code are read by the prompt reader as before; those in an
//!   example section are left out the same way, see [`Doc::examples`]).

use std::ops::Range;

use crate::text::patterns::Memo;

/// A document's instructions, and the parts of it that are examples.
#[derive(Debug, Default)]
pub struct Doc {
    pub instructions: Vec<Instruction>,
    /// Byte ranges of the document that present examples or mistakes:
    /// nothing in them is an instruction, fenced blocks included.
    pub examples: Vec<Range<usize>>,
}

impl Doc {
    /// True when byte `at` of the document lies in an example section.
    pub fn in_example(&self, at: usize) -> bool {
        // sorted by start, none inside another ([`read`])
        let k = self.examples.partition_point(|r| r.start <= at);
        k > 0 && self.examples[k - 1].contains(&at)
    }
}

/// One sentence that tells the agent something.
#[derive(Clone, Debug)]
pub struct Instruction {
    /// Where it is in the document, in bytes.
    pub span: Range<usize>,
    /// German rather than English.
    pub german: bool,
    /// Its clauses, in order.
    pub clauses: Vec<Clause>,
    /// The quoted and code parts of the sentence, as written (without
    /// their quotes or backticks).
    pub quoted: Vec<String>,
    /// The quoted speech of the sentence alone ("say \"got it\""), code
    /// spans left out.
    pub said: Vec<String>,
    /// The whole sentence in lower case, words separated by one space,
    /// quoted speech replaced by `"…"` (code spans are kept: a function
    /// name is an instruction's word).
    pub words: String,
    /// The word lists found in `words`.
    memo: Memo,
}

/// A clause of an instruction.
#[derive(Clone, Debug)]
pub struct Clause {
    /// Lower case, words separated by one space, with a space at each end
    /// (so that a word is found as ` word `).
    pub words: String,
    /// It holds a negation ("never", "don't", "no", "nicht", "kein"),
    /// two negations ("never ... without") cancelling out.
    pub negated: bool,
    /// It states a condition ("when you are addressed", "wenn ...",
    /// "unless ...") rather than what to do.
    pub condition: bool,
    /// It says what someone else does ("Delta answers", "der Mensch
    /// entscheidet"), not what the agent is told to do.
    pub about_other: bool,
    /// It starts a statement of its own: the sentence's first clause, one
    /// after `;`, `:` or a dash, after a condition, or one that opens with
    /// "so", "then", "and then" ("..., so skip them"). The other clauses
    /// after a comma continue a list ("answer, react to or comment on").
    pub opens: bool,
    /// The word lists found in `words`.
    memo: Memo,
}

impl Clause {
    /// True when the clause holds any of `pats` ([`mentions`]).
    pub fn has(&self, pats: &'static [&'static str]) -> bool {
        self.find(pats).is_some()
    }

    /// The clause up to a purpose ("so that ...", "damit ..."): what the
    /// clause itself tells, not what it is for.
    pub fn main(&self) -> Clause {
        let cut = self.find(&["so", "so that", "damit", "in order to", "um", "sodass"]);
        match cut {
            Some(k) if k > 1 => Clause {
                words: format!("{} ", self.words[..k].trim_end()),
                ..self.clone()
            },
            _ => Clause {
                memo: self.memo.same(),
                ..self.clone()
            },
        }
    }

    /// Where in the clause the first of `pats` stands, if any.
    pub fn find(&self, pats: &'static [&'static str]) -> Option<usize> {
        self.memo.find(&self.words, pats)
    }
}

impl Instruction {
    /// The clauses that tell the agent to do something (neither a
    /// condition nor negated).
    pub fn tells(&self) -> impl Iterator<Item = &Clause> {
        self.told().map(|(_, c)| c)
    }

    /// [`Self::tells`], each clause with its place in the sentence.
    pub fn told(&self) -> impl Iterator<Item = (usize, &Clause)> {
        self.clauses
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.condition && !c.negated && !c.about_other)
    }

    /// The clauses that tell the agent not to do something.
    pub fn forbids(&self) -> impl Iterator<Item = &Clause> {
        self.clauses
            .iter()
            .filter(|c| !c.condition && c.negated && !c.about_other)
    }

    /// The conditions the sentence sets.
    pub fn conditions(&self) -> impl Iterator<Item = &Clause> {
        self.clauses.iter().filter(|c| c.condition)
    }

    /// True when the whole sentence holds any of `pats`.
    pub fn has(&self, pats: &'static [&'static str]) -> bool {
        self.find(pats).is_some()
    }

    /// True when a clause that tells the agent to do something holds any of
    /// `pats`.
    pub fn tells_any(&self, pats: &'static [&'static str]) -> bool {
        self.tells().any(|c| c.has(pats))
    }

    /// True when a clause that forbids something holds any of `pats`.
    pub fn forbids_any(&self, pats: &'static [&'static str]) -> bool {
        self.forbids().any(|c| c.has(pats))
    }

    /// True when one clause that tells the agent to do something holds one
    /// of `a` and one of `b`.
    /// One of them may be a pronoun that refers back to it ([`Self::tells_of`]).
    pub fn tells_both(&self, a: &'static [&'static str], b: &'static [&'static str]) -> bool {
        self.tells_of(a, b) || self.tells_of(b, a)
    }

    /// True when a clause that tells the agent to do something holds one of
    /// `verb` and, as its object, one of `object` or a pronoun that refers
    /// back to one of `object` elsewhere in the sentence ("emoji are noise,
    /// so skip them").
    pub fn tells_of(&self, verb: &'static [&'static str], object: &'static [&'static str]) -> bool {
        self.told()
            .any(|(k, c)| c.has(verb) && self.names(k, object))
    }

    /// True when clause `k` names one of `pats`, itself or by a pronoun
    /// that a clause before it lets stand for one ("when you need a
    /// decision, add it to ...").
    pub fn names(&self, k: usize, pats: &'static [&'static str]) -> bool {
        let Some(c) = self.clauses.get(k) else {
            return false;
        };
        c.has(pats) || c.has(concept::PRONOUN) && self.clauses[..k].iter().any(|b| b.has(pats))
    }

    /// True when a condition holds any of `pats`.
    pub fn if_any(&self, pats: &'static [&'static str]) -> bool {
        self.conditions().any(|c| c.has(pats))
    }

    /// Where the first of `pats` stands in the sentence's words.
    pub fn find(&self, pats: &'static [&'static str]) -> Option<usize> {
        self.memo.find(&self.words, pats)
    }
}

pub use crate::text::patterns::{find, mentions};

/// Words of what instructions speak of, English and German (lower case,
/// [`mentions`] patterns): the vocabulary the rules' instruction forms
/// share.
pub mod concept {
    /// Words that refer back to a thing named before in the sentence.
    pub const PRONOUN: &[&str] = &[
        "it",
        "them",
        "those",
        "these",
        "one",
        "ones",
        "es",
        "sie",
        "ihn",
        "diese",
        "davon",
        "the field",
        "that field",
        "das feld",
        "dieses feld",
    ];
    /// Creating the call.
    pub const CREATE_CALL: &[&str] = &[
        "create_call",
        "create the call",
        "create a call",
        "creating the call",
        "start the call",
        "start a call",
        "open the call",
        "open a call",
        "set up the call",
        "make the call",
        "call erstellen",
        "call anlegen",
        "call starten",
        "call eröffnen",
        "erstelle den call",
        "erstelle einen call",
        "lege den call",
        "starte den call",
        "den call erstellen",
        "einen call erstellen",
        "call is created",
        "call gets created",
        "call wird",
        "calls werden",
        "call von",
        "call über",
        "create the voicehook call",
        "create a voicehook call",
        "start the voicehook call",
    ];
    /// A thread other than the one the user talks to.
    pub const SIDE_THREAD: &[&str] = &[
        "subagent*",
        "sub-agent*",
        "background",
        "background job*",
        "background task*",
        "in the background",
        "fork*",
        "worker*",
        "side thread",
        "separate thread",
        "another thread",
        "parallel agent*",
        "task tool",
        "helper agent*",
        "hintergrund*",
        "unteragent*",
        "nebenthread*",
        "delegat*",
        "delegier*",
        "hilfsagent*",
    ];
    /// The call's link for the user.
    pub const LINK: &[&str] = &[
        "share_text",
        "share text",
        "link",
        "call link",
        "invite link",
        "the invite",
        "einladungslink",
        "call-link",
    ];
    /// Going on after something.
    pub const THEN: &[&str] = &[
        "then",
        "afterwards",
        "after that",
        "followed by",
        "and then",
        "next",
        "danach",
        "anschließend",
        "dann",
        "hinterher",
        "im anschluss",
        "below it",
        "below",
        "underneath",
        "after it",
        "darunter",
    ];
    /// Text after the link.
    pub const TRAILER: &[&str] = &[
        "summar*",
        "recap*",
        "explain*",
        "list*",
        "describe*",
        "report*",
        "add a note",
        "add notes",
        "follow up",
        "keep working",
        "continue",
        "next steps",
        "what you did",
        "zusammenfass*",
        "fasse",
        "erkläre*",
        "beschreib*",
        "berichte*",
        "liste*",
        "weiterarbeit*",
        "mach weiter",
        "nächsten schritte",
        "was du getan",
        "tell*",
        "mention*",
        "add*",
        "ergänz*",
    ];
    /// Waiting in the foreground for the call.
    pub const WAIT: &[&str] = &[
        "wait*",
        "call join",
        "calling join",
        "run join",
        "join and next",
        "call next",
        "poll*",
        "block*",
        "warte*",
        "join aufrufen",
        "rufe join",
        "ruf join",
        "rufe next",
    ];
    /// Joining.
    pub const JOIN: &[&str] = &[
        "join*",
        "joined",
        "after joining",
        "beitreten",
        "beigetreten",
        "beitritt",
        "dem beitritt",
        "nach dem join",
        "reinkommen",
        "tritt",
        "trittst",
        "enter the call",
        "enter a call",
        "come in",
        "betrittst",
        "betritt",
        "reinkommst",
    ];
    /// Greeting.
    pub const GREET: &[&str] = &[
        "greet*",
        "say hello",
        "say hi",
        "introduce yourself",
        "introduce",
        "begrüß*",
        "begrüss*",
        "grüß*",
        "grüss*",
        "stell dich vor",
        "vorstellen",
        "hallo sagen",
        "hello",
        "hallo",
    ];
    /// Keeping silent.
    pub const SILENT: &[&str] = &[
        "stay silent",
        "stay quiet",
        "remain silent",
        "remain quiet",
        "keep quiet",
        "keep silent",
        "wait quietly",
        "wait silently",
        "say nothing",
        "silently",
        "quietly",
        "until the human speaks",
        "until someone speaks",
        "until oliver speaks",
        "until the user speaks",
        "until you are spoken to",
        "speaks first",
        "talks first",
        "schweig*",
        "sag nichts",
        "bis der mensch spricht",
        "bis jemand spricht",
        "bis der nutzer spricht",
        "zuerst spricht",
        "abwarten",
        "stumm",
        "go first",
        "let the human start",
        "let the human begin",
        "let oliver start",
        "lass oliver anfangen",
        "lass den menschen anfangen",
        "just listen",
        "only listen",
        "listen only",
        "nur zuhören",
        "hör nur zu",
        "hör zu",
        "wait for the human",
        "wait for the user",
        "wait for oliver",
        "wait for someone",
        "wait for others",
        "wait to be",
        "warte auf",
        "warte bis",
    ];
    /// Speaking in the call.
    pub const SPEAK: &[&str] = &[
        "greet*",
        "speak*",
        "talk*",
        "say",
        "says",
        "answer*",
        "reply",
        "replies",
        "respond*",
        "begrüß*",
        "grüß*",
        "sprich",
        "sprechen",
        "sprichst",
        "rede*",
        "antworte*",
        "sag",
        "sage",
        "formulier*",
        "spoken",
        "gesprochen*",
        "voice",
        "speech",
        "utterance*",
    ];
    /// A language named.
    pub const LANGUAGE: &[&str] = &[
        "german",
        "english",
        "french",
        "spanish",
        "italian",
        "dutch",
        "deutsch",
        "englisch",
        "französisch",
        "spanisch",
        "italienisch",
        "niederländisch",
        "auf deutsch",
        "auf englisch",
    ];
    /// The call's own language.
    pub const CALL_LANGUAGE: &[&str] = &[
        "context.lang",
        "lang",
        "call language",
        "call's language",
        "language of the call",
        "call-sprache",
        "callsprache",
        "sprache des calls",
        "sprache des gesprächs",
        "gesprächssprache",
        "anrufsprache",
        "context",
    ];
    /// A concession: what follows does not matter ("whatever the call
    /// language", "no matter what", "egal welche Sprache").
    pub const CONCESSIVE: &[&str] = &[
        "whatever",
        "whichever",
        "regardless",
        "no matter",
        "irrespective",
        "even if",
        "even when",
        "even though",
        "egal",
        "unabhängig",
        "ganz gleich",
        "gleich welche*",
        "auch wenn",
        "selbst wenn",
        "trotzdem",
    ];
    /// The language of the agent's own user.
    pub const USER_LANGUAGE: &[&str] = &[
        "user's language",
        "users language",
        "language of the user",
        "language your user",
        "language the user",
        "your user's language",
        "their language",
        "user writes",
        "user speaks",
        "language of your chat",
        "chat language",
        "sprache des nutzers",
        "sprache des users",
        "sprache deines nutzers",
        "sprache des benutzers",
        "sprache deines users",
        "in der dein nutzer",
        "in der der nutzer",
    ];
    /// Inside the call (not the chat with the agent's own user).
    pub const IN_CALL: &[&str] = &[
        "call",
        "calls",
        "greet*",
        "say",
        "says",
        "voice",
        "speak*",
        "aloud",
        "out loud",
        "im call",
        "begrüß*",
        "grüß*",
        "sprich",
        "laut",
        "spoken",
        "speech",
        "utterance*",
    ];
    /// Events the agent reads.
    pub const EVENTS: &[&str] = &["event*", "next", "ereignis*", "type", "types", "typ"];
    /// Leaving something out.
    pub const SKIP: &[&str] = &[
        "skip*",
        "ignore*",
        "discard*",
        "drop*",
        "filter out",
        "filter* them out",
        "throw away",
        "throw* out",
        "disregard*",
        "pass over",
        "überspring*",
        "ignorier*",
        "verwirf",
        "verwerfen",
        "wegwerfen",
        "aussortier*",
        "herausfilter*",
        "rausfilter*",
    ];
    /// Answering.
    pub const ANSWER: &[&str] = &[
        "answer*",
        "reply",
        "replies",
        "respond*",
        "beantworte*",
        "antworte*",
        "react*",
        "reagier*",
        "chime in",
        "jump in",
        "step in",
        "weigh in",
        "comment*",
        "kommentier*",
        "spring ein",
        "springe ein",
        "misch dich ein",
        "übernimm",
        "add your*",
        "give your view",
        "give your opinion",
        "share your view",
        "share your opinion",
        "gib deine meinung",
        "sag deine meinung",
        "correct it",
        "correct them",
        "contradict*",
        "widersprich*",
        "korrigiere",
        "ergänze*",
        "expand on",
        "build on",
        "add to what",
        "take the question",
        "take it yourself",
        "übernimm die frage",
        "follow up",
        "follow-up",
        "your thoughts",
        "your take",
        "give the answer",
        "give your answer",
        "provide the answer",
        "share the answer",
    ];
    /// All of something.
    pub const EVERY: &[&str] = &[
        "every",
        "all",
        "any",
        "each",
        "everything",
        "whatever",
        "jede",
        "jeden",
        "jeder",
        "jedes",
        "alle",
        "alles",
        "sämtliche",
        "whenever",
        "anyone",
        "anybody",
        "everyone",
        "everybody",
        "immer wenn",
        "jedes mal",
        "wer auch immer",
    ];
    /// Lines meant for somebody else.
    pub const OTHERS: &[&str] = &[
        "someone else",
        "somebody else",
        "another agent*",
        "other agent*",
        "others",
        "another participant",
        "meant for",
        "not for you",
        "not addressed",
        "not meant for you",
        "even if",
        "even when",
        "no matter who",
        "whoever it",
        "jemand anderen",
        "jemand anders",
        "andere agent*",
        "anderen",
        "nicht an dich",
        "auch wenn",
        "selbst wenn",
        "egal an wen",
        "egal wer",
        "für wen",
    ];
    /// The agent itself is addressed.
    pub const ADDRESSED_ME: &[&str] = &[
        "addressed to you",
        "addressed to them",
        "addressed to it",
        "you are addressed",
        "you're addressed",
        "addressed_to_you",
        "your label",
        "by name",
        "by your name",
        "asks you",
        "speaks to you",
        "talks to you",
        "an dich",
        "dich anspricht",
        "angesprochen wirst",
        "du angesprochen",
        "mit namen",
        "beim namen",
        "dein label",
        "deinen namen",
        "dich fragt",
        "dich direkt",
        "addresses you",
        "addressed you",
        "names you",
    ];
    /// The human.
    pub const HUMAN: &[&str] = &[
        "human",
        "the user",
        "user",
        "oliver",
        "person",
        "mensch*",
        "nutzer*",
        "benutzer*",
        "user",
        // the human named by a role
        "team lead",
        "tech lead",
        "support lead",
        "backend lead",
        "frontend lead",
        "project lead",
        "product lead",
        "dev lead",
        "the lead",
        "your lead",
        "product owner",
        "product manager",
        "project manager",
        "engineering manager",
        "the manager",
        "your manager",
        "maintainer*",
        "stakeholder*",
        "leitung",
        "teamleitung",
        "projektleitung",
        "teamleiter*",
        "projektleiter*",
        "abteilungsleiter*",
        "chef",
        "chefin",
    ];
    /// Another agent.
    pub const OTHER_AGENT: &[&str] = &[
        "another agent*",
        "other agent*",
        "an agent",
        "agents",
        "peer*",
        "anderer agent",
        "andere agent*",
        "anderen agent*",
        "ein agent",
        "agenten",
        "fellow agent*",
        "*-agent",
        "*-agenten",
        "the other agent*",
        "teammate*",
        "other bot*",
        "colleague*",
        "kolleg*",
        "different agent*",
        "anderer agent",
        "andere agent",
    ];
    /// Asking.
    pub const QUESTION: &[&str] = &[
        "question*",
        "asks",
        "ask",
        "asked",
        "frage*",
        "fragt",
        "gefragt",
    ];
    /// The voicebot.
    pub const DELTA: &[&str] = &[
        "delta",
        "delta's",
        "data",
        "della",
        "delter",
        "voicebot",
        "voice bot",
        "voice-bot",
    ];
    /// Addressing someone.
    pub const ADDRESSED: &[&str] = &[
        "address*",
        "asked",
        "asks",
        "ask",
        "spoken to",
        "speaks to",
        "talks to",
        "called",
        "angesprochen",
        "gefragt",
        "fragt",
        "anspricht",
        "redet",
    ];
    /// Making something.
    pub const CREATE: &[&str] = &[
        "creat*", "start*", "open*", "set up", "spin up", "make", "erstell*", "anleg*", "eröffn*",
        "aufsetz*",
    ];
    /// A call.
    pub const CALL: &[&str] = &["call", "create_call", "anruf", "voice call", "calls"];
    /// Speaking at all.
    pub const SPEAK_ANY: &[&str] = &[
        "say anything",
        "say a word",
        "speak*",
        "talk*",
        "etwas sagen",
        "sprich",
        "sprechen",
        "reden",
        "rede",
        "saying anything",
        "saying a word",
        "a word",
        "ein wort",
        "etwas zu sagen",
        "sagen",
    ];
    /// Doing something as well as someone else.
    pub const TOO: &[&str] = &["too", "as well", "also", "ebenfalls", "auch", "gleichfalls"];
    /// Acting on the code or the call's work.
    pub const ACT: &[&str] = &[
        "edit*",
        "change the code",
        "change code",
        "change the file",
        "change files",
        "change the skill",
        "modify*",
        "fix it",
        "fix the code",
        "fix the bug",
        "fix",
        "commit*",
        "push*",
        "deploy*",
        "forward*",
        "hand it to",
        "hand them to",
        "hand the task",
        "send the task",
        "send it to",
        "delegate it",
        "open a pull request",
        "create a pull request",
        "rewrite*",
        "update the skill",
        "update the file",
        "bearbeite*",
        "ändere*",
        "ändern",
        "änderst",
        "deploye*",
        "leite*",
        "weiterleit*",
        "committe*",
        "pushe*",
        "behebe*",
        "korrigier*",
        "schreib* um",
        "überarbeite*",
        "make the change",
        "make changes",
        "apply the change",
        "apply changes",
        "implement*",
        "umsetzen",
        "setz* um",
        "weitergeb*",
        "schicken",
        "zu schicken",
        "übergeben",
        "zu übergeben",
        "anpass*",
        "restart*",
        "neu start*",
        "neustart*",
        "neu zu starten",
        "starte neu",
        "startest neu",
        "gib weiter",
        "gibst weiter",
        "nimm die änderung vor",
        "take care of",
        "take it on",
        "kümmer*",
    ];
    /// Hearing of something, not being asked for it.
    pub const HEARS: &[&str] = &[
        "mention*",
        "hear*",
        "suggest*",
        "talk* about",
        "discuss*",
        "bring* up",
        "notice*",
        "comes up",
        "says",
        "spot*",
        "see*",
        "erwähn*",
        "hörst",
        "hört",
        "vorschläg*",
        "spricht über",
        "sprechen über",
        "bemerk*",
        "siehst",
        "auffällt",
        "ansprichst",
        "pick* up",
        "in the call",
        "im call",
        "comes up",
        "receiv*",
        "bekommst",
        "empfängst",
        "erhältst",
        "answer*",
        "respond*",
        "reply",
        "replies",
        "antwortet",
        "meldet sich",
    ];
    /// Asked for explicitly.
    pub const ASKED_EXPLICITLY: &[&str] = &[
        "by name",
        "explicitly",
        "asks you",
        "tells you to",
        "asked you",
        "you are asked",
        "you're asked",
        "ausdrücklich",
        "beim namen",
        "dich bittet",
        "dich auffordert",
        "darum bittet",
        "explizit",
        "gebeten",
        "namentlich",
        "bittet dich",
        "fordert dich",
    ];
    /// Offering.
    pub const OFFER: &[&str] = &[
        "offer*",
        "propose*",
        "volunteer*",
        "suggest that you",
        "biete*",
        "anbieten",
        "vorschlagen",
        "schlag* vor",
    ];
    /// Telling everyone something.
    pub const ANNOUNCE: &[&str] = &[
        "tell*",
        "say",
        "announce*",
        "report*",
        "declare*",
        "state*",
        "inform*",
        "let everyone",
        "let everybody",
        "let the others",
        "sag",
        "sage",
        "melde*",
        "verkünde*",
        "erkläre*",
        "teile*",
        "informier*",
        "berichte*",
        "let the human know",
        "let the user know",
        "let oliver know",
        "let them know",
        "let everyone know",
        "let everybody know",
    ];
    /// A claim about the call's working.
    pub const CALL_FAULT: &[&str] = &[
        "relay",
        "one-way",
        "one way",
        "can't hear",
        "cannot hear",
        "don't hear",
        "not receiving",
        "receive nothing",
        "doesn't work",
        "does not work",
        "is broken",
        "broken",
        "a bug",
        "no messages",
        "not reaching",
        "isn't reaching",
        "not getting",
        "kaputt",
        "defekt",
        "funktioniert nicht",
        "kommt nicht an",
        "kommen nicht an",
        "hört nichts",
        "hören sich nicht",
        "nicht hören",
        "nicht hört",
        "can't hear each other",
        "cannot hear each other",
        "don't hear each other",
        "einseitig",
        "ein bug",
        "bug",
        "nichts ankommt",
        "kommt nichts an",
        "nichts durchkommt",
        "nothing reaches",
        "nothing gets through",
        "eine richtung",
        "in eine richtung",
        "one direction",
        "nicht ankommen",
        "nicht ankommt",
        "nicht durchkommen",
        "nicht durchkommt",
        "can't reach",
        "cannot reach",
        "not working",
        "isn't working",
    ];
    /// At once, before looking.
    pub const AT_ONCE: &[&str] = &[
        "right away",
        "immediately",
        "at once",
        "straight away",
        "without checking",
        "as fact",
        "as a fact",
        "seems",
        "appears",
        "looks",
        "sofort",
        "gleich",
        "umgehend",
        "ohne zu prüfen",
        "ohne nachzusehen",
        "scheint",
        "wirkt",
        "aussieht",
        "in doubt",
        "im zweifel",
        "unsure",
        "not sure",
        "unsicher",
        "silent",
        "quiet",
        "schweigend ist",
        "ruhig ist",
        "nobody answers",
        "no one answers",
        "niemand antwortet",
        "suspect*",
        "vermut*",
        "verdacht",
    ];
    /// Checking first.
    pub const CHECK_FIRST: &[&str] = &[
        "check*",
        "verify*",
        "look at",
        "confirm",
        "prüf*",
        "überprüf*",
        "nachsehen",
        "nachschauen",
        "kontrollier*",
        "sieh nach",
        "schau nach",
    ];
    /// The board.
    pub const BOARD: &[&str] = &[
        "board",
        "status",
        "open",
        "`open`",
        "done",
        "item*",
        "entry",
        "entries",
        "todo*",
        "eintrag",
        "einträge",
        "punkt",
        "offen",
    ];
    /// Putting several things together.
    pub const BUNDLE: &[&str] = &[
        "summar*",
        "bundle*",
        "group*",
        "combine*",
        "collapse*",
        "lump*",
        "one item",
        "a single item",
        "single entry",
        "one entry",
        "one line",
        "zusammenfass*",
        "fasse",
        "bündel*",
        "sammle*",
        "einem punkt",
        "einen punkt",
        "einem eintrag",
        "einen eintrag",
        "zusammen",
        "together",
        "in one",
        "into one",
        "in a single",
        "into a single",
        "in einem",
        "in einen",
        "one board item",
        "one board entry",
        "a single board item",
        "single status line",
        "one status line",
        "one status",
    ];
    /// Several things.
    pub const THINGS: &[&str] = &[
        "decisions",
        "questions",
        "tasks",
        "todos",
        "items",
        "points",
        "issues",
        "things",
        "entscheidungen",
        "fragen",
        "aufgaben",
        "punkte",
        "themen",
        "dinge",
        "everything",
        "alles",
        "all of it",
    ];
    /// Putting something somewhere.
    pub const PUT: &[&str] = &[
        "put*",
        "add*",
        "list*",
        "write*",
        "place*",
        "keep*",
        "track*",
        "note*",
        "park*",
        "trag*",
        "schreib*",
        "setz*",
        "pack*",
        "führe*",
        "notier*",
        "leg* ab",
        "leave*",
        "go in",
        "goes in",
        "go into",
        "goes into",
        "go on",
        "goes on",
        "belong in",
        "belongs in",
        "belong on",
        "belongs on",
        "gehört in*",
        "gehören in*",
        "gehört auf*",
        "gehören auf*",
    ];
    /// Where questions for the human belong.
    pub const DECIDE: &[&str] = &[
        "decide",
        "decision board",
        "entscheidungsboard",
        "decision-board",
    ];
    /// The board's `open` list.
    pub const OPEN_LIST: &[&str] = &[
        "open",
        "status",
        "board",
        "offen",
        "open list",
        "the open field",
    ];
    /// The board's emoji.
    pub const EMOJI: &[&str] = &["emoji", "emojis"];
    /// Leaving something out.
    pub const OMIT: &[&str] = &[
        "skip*",
        "omit*",
        "leave out",
        "leave it out",
        "leave off",
        "ignore*",
        "optional",
        "no need",
        "don't bother",
        "weglassen",
        "lass*",
        "verzichte*",
        "überspring*",
        "brauchst du nicht",
        "empty",
        "blank",
        "leer",
        "*-free",
        "*-frei",
        "plain text",
        "nur text",
        "greet false",
        "greet: false",
    ];
    /// Choosing an emoji.
    pub const SET: &[&str] = &[
        "set*",
        "use*",
        "choose*",
        "pick*",
        "add*",
        "include*",
        "setz*",
        "wähl*",
        "nutze*",
        "verwende*",
        "gib",
    ];
    /// A label.
    pub const LABEL: &[&str] = &[
        "label*",
        "join as",
        "join with",
        "name yourself",
        "call yourself",
        "nenn dich",
        "nenne dich",
        "als label",
    ];
    /// Acknowledging.
    pub const ACK: &[&str] = &["acknowledge*", "confirm*", "quittier*", "bestätig*"];
    /// Lines heard.
    pub const LINES: &[&str] = &[
        "line*",
        "message*",
        "utterance*",
        "turn*",
        "sentence*",
        "request*",
        "instruction*",
        "zeile*",
        "nachricht*",
        "aussage*",
        "satz",
        "anfrage*",
        "äußerung*",
        "was gesagt",
        "what is said",
        "what the human says",
        "everything you hear",
        "speaks",
        "talks",
        "says something",
        "spricht",
        "redet",
        "etwas sagt",
        "you heard",
        "heard them",
        "are listening",
        "zuhörst",
        "gehört hast",
        "what was said",
        "what's said",
        "what others say",
        "what they say",
        "what you hear",
        "everything said",
    ];
    /// Speaking at length.
    pub const NARRATE: &[&str] = &[
        "narrate*",
        "describe*",
        "explain*",
        "read out",
        "read aloud",
        "spell out",
        "walk through",
        "walk the human through",
        "erzähl*",
        "beschreib*",
        "erklär*",
        "lies vor",
        "vorlesen",
        "talk* through",
        "keep talking",
        "talk about",
        "commentate*",
        "sprich über",
        "red* über",
        "through your",
        "through the whole",
        "through each",
        "through every",
        "go through",
        "go over",
        "detailed report",
        "full report",
        "spoken report",
        "ausführlichen bericht",
        "commentary",
        "play-by-play",
        "keep the human informed",
        "keep everyone informed",
        "keep oliver informed",
        "auf dem laufenden",
        "rundown",
        "summary",
        "overview",
        "walkthrough",
        "zusammenfassung",
        "überblick",
    ];
    /// At length.
    pub const AT_LENGTH: &[&str] = &[
        "every step",
        "each step",
        "all steps",
        "everything",
        "all details",
        "every detail",
        "in detail",
        "in full",
        "at length",
        "step by step",
        "jeden schritt",
        "alle schritte",
        "ausführlich",
        "detailliert",
        "im detail",
        "schritt für schritt",
        "alles",
        "full",
        "whole",
        "entire",
        "complete",
        "each change",
        "every change",
        "all changes",
        "vollständig*",
        "ganze*",
        "komplett*",
        "detailed",
        "thorough*",
        "verbose*",
        "comprehensive*",
        "exhaustive*",
        "elaborate*",
        "lengthy",
        "all the details",
        "in depth",
        "ausführliche*",
        "genau*",
        "running",
        "constant*",
        "continuous*",
        "ständig*",
        "laufend*",
        "everything you do",
        "much detail",
        "more detail",
        "as much as",
        "so ausführlich",
        "so viel wie",
    ];
}

// ---------------------------------------------------------------------------
// Reading a document.

/// Headings and labels that present examples or mistakes, not
/// instructions (lower case, matched as words).
const EXAMPLE_WORDS: &[&str] = &[
    "bad",
    "bad example*",
    "don't",
    "dont",
    "do not",
    "avoid",
    "anti-pattern*",
    "antipattern*",
    "anti pattern*",
    "wrong",
    "incorrect",
    "mistake*",
    "pitfall*",
    "example*",
    "e.g",
    "for instance",
    "what happened",
    "what went wrong",
    "incident*",
    "post-mortem",
    "postmortem",
    "retro*",
    "history",
    "background",
    "why",
    "falsch",
    "schlecht*",
    "nicht so",
    "vermeide*",
    "fehler",
    "beispiel*",
    "negativbeispiel*",
    "so nicht",
    "hintergrund",
    "warum",
    "was passiert ist",
    "vorfall",
    "❌",
    "🚫",
    "✗",
];

/// Words of a line that introduces an example or a mistake shown below
/// it ("for example:", "the wrong way:").
const INTRO_WORDS: &[&str] = &[
    "bad",
    "don't",
    "do not",
    "avoid",
    "anti-pattern*",
    "antipattern*",
    "wrong",
    "incorrect",
    "mistake*",
    "example*",
    "e.g",
    "for instance",
    "falsch",
    "schlecht*",
    "nicht so",
    "so nicht",
    "vermeide*",
    "beispiel*",
    "z.b",
    "fehler",
];

/// Labels that present the right way, ending an example label's reach.
const RIGHT_WORDS: &[&str] = &[
    "good",
    "do",
    "right",
    "correct",
    "instead",
    "gut",
    "richtig",
    "besser",
    "stattdessen",
    "✅",
    "✓",
];

/// The longest sentence read as an instruction, in bytes.
const MAX_SENTENCE: usize = 4096;

/// Read a document (markdown or plain text) into its instructions.
pub fn read(doc: &str) -> Doc {
    let mut out = Doc::default();
    let lines = split_lines(doc);
    // only the parts about a call are read for instructions
    let scope = call_sections(doc, &lines);
    // The example section in force: the level of the heading that opened
    // it (0 for a label), and where it started.
    let mut heading_example: Option<(usize, usize)> = None;
    let mut label_example: Option<(usize, usize)> = None; // (indent, start)
    let mut i = 0;
    // YAML front matter
    if lines.first().is_some_and(|l| l.text.trim_end() == "---") {
        if let Some(end) = lines.iter().skip(1).position(|l| {
            let t = l.text.trim_end();
            t == "---" || t == "..."
        }) {
            i = end + 2;
        }
    }
    let mut para: Vec<Piece> = Vec::new();
    // What frames the text being read: the headings above it, each with
    // the lead it gives (a condition or a topic), and the lead-in line a
    // list hangs from (its indent, whether it was a list item, its lead).
    let mut heads: Vec<(usize, Option<Lead>)> = Vec::new();
    let mut lead_in: Option<(usize, bool, Lead)> = None;
    let mut lead: Option<Lead> = None;
    // a table whose first column says when its row applies
    let mut table_when: Option<bool> = None;
    let mut in_comment = false;
    let mut prev_intro_example = false;
    let mut prev_colon = false;
    let mut fence: Option<(char, usize)> = None;
    let mut fence_start = 0;
    let mut fence_example = false;
    while i < lines.len() {
        let line = &lines[i];
        let t = line.text;
        let trimmed = t.trim();
        let indent = t.len() - t.trim_start().len();
        i += 1;
        // fenced blocks
        if let Some((ch, n)) = fence {
            let close = trimmed.chars().take_while(|c| *c == ch).count();
            if close >= n && trimmed.chars().all(|c| c == ch) {
                fence = None;
                prev_intro_example = false;
                if fence_example {
                    out.examples.push(fence_start..line.start + t.len());
                }
            }
            continue;
        }
        if let Some((ch, n)) = opening_fence(trimmed) {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            fence = Some((ch, n));
            fence_start = line.start;
            fence_example =
                heading_example.is_some() || label_example.is_some() || prev_intro_example;
            continue;
        }
        // HTML comments
        if in_comment {
            if trimmed.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if trimmed.starts_with("<!--") {
            if !trimmed.contains("-->") {
                in_comment = true;
            }
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            continue;
        }
        // headings
        if let Some(level) = heading_level(trimmed) {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            let title = trimmed[level..].trim().trim_end_matches('#').trim();
            if let Some((l, start)) = heading_example {
                if level <= l {
                    out.examples.push(start..line.start);
                    heading_example = None;
                }
            }
            if let Some((_, start)) = label_example.take() {
                out.examples.push(start..line.start);
            }
            prev_intro_example = false;
            prev_colon = false;
            while heads.last().is_some_and(|(l, _)| *l >= level) {
                heads.pop();
            }
            heads.push((level, Lead::of_heading(title, level)));
            lead_in = None;
            lead = heads.iter().rev().find_map(|(_, l)| l.clone());
            if heading_example.is_none() && is_example_label(title) {
                heading_example = Some((level, line.start));
            }
            continue;
        }
        // a label's reach ends at a line as little indented that is not a
        // list item under it, or at a label of the right way
        let (body, marker) = strip_marker(t);
        let label = leading_label(body);
        if let Some((li, start)) = label_example {
            let ends = label.is_some_and(|(w, _)| is_right_label(w))
                || (indent <= li && marker.is_none() && !trimmed.starts_with('>'))
                || (indent < li)
                || (indent == li && label.is_some_and(|(w, _)| !is_example_label(w)));
            if ends {
                out.examples.push(start..line.start);
                label_example = None;
            }
        }
        if let Some((word, rest)) = label {
            if is_example_label(word) && mentions(&lower_words(word), INTRO_WORDS) {
                flush(&mut para, &mut out, &scope, lead.as_ref());
                label_example = Some((indent, line.start));
                prev_intro_example = rest.trim().is_empty();
                continue;
            }
        }
        let quote = trimmed.starts_with('>');
        let example_here = heading_example.is_some() || label_example.is_some();
        if example_here {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            continue;
        }
        if quote && (prev_intro_example || prev_colon) {
            // a blockquote that an example label or a colon introduces
            flush(&mut para, &mut out, &scope, lead.as_ref());
            continue;
        }
        if is_transcript_line(body) {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            continue;
        }
        // a table: its separator row is no text; a row is read as one
        // sentence whose cells are clauses ("| `timeout` | ignore it |")
        if !trimmed.starts_with('|') {
            table_when = None;
        }
        if trimmed.starts_with('|') {
            flush(&mut para, &mut out, &scope, lead.as_ref());
            if trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                continue;
            }
            // the header row: is its first column the situation?
            let first = table_when.is_none();
            if first {
                let head = trimmed
                    .trim_start_matches('|')
                    .split('|')
                    .next()
                    .unwrap_or("");
                table_when = Some(mentions(&lower_words(head), SITUATION_COLUMNS));
            }
            if !scope.iter().any(|r| r.contains(&line.start)) {
                continue;
            }
            let inner = trimmed.trim_start_matches('|').trim_end_matches('|');
            // a row of facts ("| `join` | hard | error |") tells nothing;
            // one whose cell opens with an imperative is an instruction
            let tells = inner.split('|').any(|cell| {
                let cell = cell.trim_start();
                // a cell of one word is a value ("chat", "hard"), not an order
                !cell.starts_with('`')
                    && cell.split_whitespace().count() >= 2
                    && opens_imperative(&lower_words(cell))
            });
            if !tells {
                continue;
            }
            let skipped = t.len() - t.trim_start().len()
                + (trimmed.len() - trimmed.trim_start_matches('|').len());
            if !inner.trim().is_empty() {
                para.push(Piece {
                    start: line.start + skipped,
                    text: inner,
                });
                let row_lead = match (first, table_when, &lead) {
                    (false, Some(true), _) => Some(Lead::Condition("when".into())),
                    (_, _, l) => l.clone(),
                };
                flush(&mut para, &mut out, &scope, row_lead.as_ref());
            }
            continue;
        }
        // list items start pieces of their own
        if marker.is_some() || quote {
            flush(&mut para, &mut out, &scope, lead.as_ref());
        }
        // a lead-in line frames the list items under it, until a line as
        // little indented that is not one of them
        if let Some((li, item, _)) = &lead_in {
            let under = marker.is_some() && (!*item || indent > *li);
            if !under && (marker.is_some() || indent <= *li) {
                lead_in = None;
            }
        }
        lead = lead_in
            .as_ref()
            .map(|(_, _, l)| l.clone())
            .or_else(|| heads.iter().rev().find_map(|(_, l)| l.clone()));
        let offset = t.len() - body.len();
        let body = body.trim_start_matches('>').trim_start();
        let offset = offset + (t.len() - offset - body.len());
        para.push(Piece {
            start: line.start + offset,
            text: body,
        });
        prev_intro_example = false;
        prev_colon = trimmed.ends_with(':');
        if prev_colon {
            // the last sentence of the paragraph so far, when it states a
            // condition ("When the human asks another agent:")
            let last = para.last().map_or("", |p| p.text);
            if let Some(l) = Lead::of_lead_in(last) {
                lead_in = Some((indent, marker.is_some(), l));
            }
        }
        if trimmed.ends_with(':') && mentions(&lower_words(trimmed), INTRO_WORDS) {
            prev_intro_example = true;
        }
    }
    flush(&mut para, &mut out, &scope, lead.as_ref());
    let end = doc.len();
    if let Some((_, start)) = heading_example {
        out.examples.push(start..end);
    }
    if let Some((_, start)) = label_example {
        out.examples.push(start..end);
    }
    if let Some(_f) = fence {
        if fence_example {
            out.examples.push(fence_start..end);
        }
    }
    // in order, a range inside another one taken into it
    out.examples.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(out.examples.len());
    for r in out.examples.drain(..) {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    out.examples = merged;
    out
}

/// Words that show a text speaks of a voicehook call (lower case).
const CALL_WORDS: &[&str] = &[
    "voicehook",
    "share_text",
    "operators_said",
    "agent_said",
    "create_call",
    "context.lang",
    "addressed_to",
    "addressed_to_you",
    "voicebot",
    "voice call",
    "voice calls",
    "call language",
    "callsprache",
];

/// The parts of a document whose instructions are about a voicehook
/// call: all of it when its opening (front matter, text before the first
/// heading below the title, the title) speaks of one; else each section
/// that does, with the sections under it.
fn call_sections(doc: &str, lines: &[Line<'_>]) -> Vec<Range<usize>> {
    // headings outside fences: (level, start of line)
    let mut heads: Vec<(usize, usize)> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for l in lines {
        let t = l.text.trim();
        if let Some((ch, n)) = fence {
            if t.chars().take_while(|c| *c == ch).count() >= n && t.chars().all(|c| c == ch) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = opening_fence(t) {
            fence = Some(f);
            continue;
        }
        if let Some(level) = heading_level(t) {
            heads.push((level, l.start));
        }
    }
    let speaks = |r: Range<usize>| mentions(&lower_words(&doc[r]), CALL_WORDS);
    // the opening: up to the first heading that is not the first line's title
    let open_end = heads
        .iter()
        .find(|(lvl, at)| *at > 0 && !(*lvl == 1 && doc[..*at].trim().is_empty()))
        .map_or(doc.len(), |(_, at)| *at);
    let first_h2 = heads.iter().map(|(_, at)| *at).find(|at| *at >= open_end);
    if speaks(0..first_h2.unwrap_or(doc.len()).max(open_end)) {
        return std::iter::once(0..doc.len()).collect();
    }
    let mut out = Vec::new();
    for (k, (level, start)) in heads.iter().enumerate() {
        // the section runs to the next heading of its level or above
        let end = heads[k + 1..]
            .iter()
            .find(|(l, _)| l <= level)
            .map_or(doc.len(), |(_, at)| *at);
        let own_end = heads.get(k + 1).map_or(doc.len(), |(_, at)| *at);
        if speaks(*start..own_end) {
            out.push(*start..end);
        }
    }
    out
}

struct Line<'a> {
    start: usize,
    text: &'a str,
}

/// The document's lines (LF, CRLF or CR ends), with their starts.
fn split_lines(doc: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let b = doc.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' || b[i] == b'\r' {
            out.push(Line {
                start,
                text: &doc[start..i],
            });
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < b.len() {
        out.push(Line {
            start,
            text: &doc[start..],
        });
    }
    out
}

fn opening_fence(t: &str) -> Option<(char, usize)> {
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|c| *c == ch).count();
    (n >= 3 && !(ch == '`' && t[n..].contains('`'))).then_some((ch, n))
}

fn heading_level(t: &str) -> Option<usize> {
    let n = t.bytes().take_while(|b| *b == b'#').count();
    if !((1..=6).contains(&n) && t[n..].starts_with([' ', '\t'])) {
        return None;
    }
    // a `#` line that reads as a sentence is a comment of a plain-text
    // prompt ("# loop: skip nothing, read every event"), not a heading
    let text = t[n..].trim();
    let words = text.split_whitespace().count();
    let lower = text.chars().next().is_some_and(char::is_lowercase);
    let comment = words > 10 || text.ends_with(',') || lower && words > 4;
    (!comment).then_some(n)
}

/// A list marker (`-`, `*`, `+`, `1.`, `1)`) at the start of a line: the
/// text after it, and the marker.
fn strip_marker(line: &str) -> (&str, Option<&str>) {
    let t = line.trim_start();
    for m in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return (rest, Some(m));
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return (r, Some(&t[..digits + 1]));
        }
    }
    (t, None)
}

/// A label at the start of a line: `Bad:`, `**Bad**:`, `**Bad:**`,
/// `❌ ...`: the label's words and the rest of the line.
fn leading_label(body: &str) -> Option<(&str, &str)> {
    let b = body.trim_start();
    for sym in ["❌", "🚫", "✗", "✅", "✓"] {
        if let Some(rest) = b.strip_prefix(sym) {
            return Some((sym, rest));
        }
    }
    let inner = b.trim_start_matches(['*', '_']);
    let colon = inner.find(':')?;
    let word = inner[..colon].trim_end_matches(['*', '_']).trim();
    if word.is_empty() || word.split_whitespace().count() > 4 || word.contains('`') {
        return None;
    }
    let rest = inner[colon + 1..].trim_start_matches(['*', '_']);
    Some((word, rest))
}

fn is_example_label(words: &str) -> bool {
    let w = lower_words(words);
    mentions(&w, EXAMPLE_WORDS) && !mentions(&w, &["good", "gut", "richtig", "right", "correct"])
}

fn is_right_label(words: &str) -> bool {
    let w = lower_words(words);
    w.split(' ').count() <= 3 && mentions(&w, RIGHT_WORDS) && !mentions(&w, EXAMPLE_WORDS)
}

/// A line of an example transcript: `Name: "..."` or `Name: „...“`, or
/// `[hh:mm:ss] Name: ...`.
fn is_transcript_line(body: &str) -> bool {
    let b = body.trim_start_matches(['*', '_']);
    let b = if b.starts_with('[') {
        match b.find(']') {
            Some(i) if b[1..i].bytes().all(|c| c.is_ascii_digit() || c == b':') => {
                return b[i + 1..].trim_start().contains(':');
            }
            _ => b,
        }
    } else {
        b
    };
    let Some(colon) = b.find(':') else {
        return false;
    };
    let name = b[..colon].trim_end_matches(['*', '_']);
    let rest = b[colon + 1..].trim_start_matches(['*', '_', ' ']);
    !name.is_empty()
        && name.split_whitespace().count() <= 2
        && name.chars().next().is_some_and(char::is_alphabetic)
        && !name.contains('`')
        && rest.starts_with(['"', '„', '“', '«', '\''])
}

/// A run of text pieces (a paragraph's lines, a list item, a table cell):
/// its instruction sentences go to `out`.
/// What frames a sentence from outside it: a heading or lead-in that
/// states a condition ("## When another agent is addressed"), or a short
/// heading that names a topic ("### Language").
#[derive(Clone, Debug)]
enum Lead {
    /// Read before the sentence, as written (with its own separator).
    Condition(String),
    /// Read before the sentence as its label.
    Topic(String),
}

/// First columns of a table whose rows say when they apply.
const SITUATION_COLUMNS: &[&str] = &[
    "situation",
    "when",
    "if",
    "case",
    "trigger",
    "event",
    "condition",
    "wenn",
    "fall",
    "auslöser",
    "ereignis",
    "lage",
];

impl Lead {
    fn of_heading(title: &str, level: usize) -> Option<Lead> {
        let title = title
            .trim()
            .trim_matches(['*', '_'])
            .trim_end_matches([':', '?', '.']);
        let words = lower_words(title);
        // "When to speak" names a topic, it states no condition
        let infinitive = words.split(' ').nth(1) == Some("to");
        if starts_condition(&words) && !infinitive {
            return Some(Lead::Condition(format!("{title},")));
        }
        // a topic below the document's title: one to three words, no verb
        let n = words.split(' ').count();
        (level >= 2
            && n <= 3
            && !opens_imperative(&words)
            && !title.contains(|c: char| c.is_ascii_digit()))
        .then(|| Lead::Topic(format!("{title}:")))
    }

    fn of_lead_in(text: &str) -> Option<Lead> {
        let s = sentences(text).last().map(|r| &text[r.clone()])?;
        let s = s.trim().trim_end_matches(':').trim();
        starts_condition(&lower_words(s)).then(|| Lead::Condition(format!("{s},")))
    }
}

/// Words a note under a topic opens with ("English only.", "One item per
/// task.", "Nur Deutsch."), where a sentence would open with its subject.
const FRAGMENT_STARTS: &[&str] = &[
    "only",
    "always",
    "never",
    "no",
    "none",
    "one",
    "each",
    "every",
    "per",
    "max",
    "maximum",
    "short",
    "brief",
    "nur",
    "immer",
    "nie",
    "niemals",
    "kein",
    "keine",
    "ein",
    "eine",
    "einen",
    "jeder",
    "jede",
    "jedes",
    "pro",
    "höchstens",
    "maximal",
    "kurz",
];

/// True when `words` open with a condition ("when", "if", "wenn", ...).
fn starts_condition(words: &str) -> bool {
    CONDITION_WORDS.iter().any(|c| {
        words
            .strip_prefix(c)
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    })
}

/// The number of words of the longest condition ([`CONDITION_WORDS`])
/// that `toks` start with, if any.
fn condition_at(toks: &[&str]) -> Option<usize> {
    // each condition's words, by its first word
    static BY_FIRST: std::sync::OnceLock<
        crate::core::hash::HashMap<&'static str, Vec<Vec<&'static str>>>,
    > = std::sync::OnceLock::new();
    let by_first = BY_FIRST.get_or_init(|| {
        let mut m: crate::core::hash::HashMap<&'static str, Vec<Vec<&'static str>>> =
            crate::core::hash::HashMap::default();
        for c in CONDITION_WORDS {
            let words: Vec<&'static str> = c.split(' ').collect();
            m.entry(words[0]).or_default().push(words);
        }
        m
    });
    by_first
        .get(toks.first()?)?
        .iter()
        .filter(|c| toks.len() >= c.len() && c.iter().zip(toks).all(|(a, b)| a == b))
        .map(Vec::len)
        .max()
}

/// True when `word` is one of `list`: a long list is looked up in a set
/// made once per list (kept by the list's address, as [`find`] keeps its
/// automata).
fn one_of(list: &'static [&'static str], word: &str) -> bool {
    if list.len() <= 16 {
        return list.contains(&word);
    }
    thread_local! {
        static SETS: std::cell::RefCell<
            crate::core::hash::HashMap<usize, std::rc::Rc<crate::core::hash::HashSet<&'static str>>>,
        > = std::cell::RefCell::new(crate::core::hash::HashMap::default());
    }
    let key = list.as_ptr() as usize ^ (list.len() << 48);
    let set = SETS.with(|m| {
        std::rc::Rc::clone(
            m.borrow_mut()
                .entry(key)
                .or_insert_with(|| std::rc::Rc::new(list.iter().copied().collect())),
        )
    });
    set.contains(word)
}

/// [`analyse`] of a sentence read under its lead: a condition is read as
/// the sentence's own; a topic labels it, and makes a short fragment under
/// it an instruction ("### Language" over "English only.").
fn analyse_under(raw: &str, lead: Option<&Lead>) -> Option<Instruction> {
    let own = analyse(raw);
    match lead {
        None => own,
        Some(Lead::Condition(c)) => {
            own.as_ref()?;
            analyse(&format!("{c} {raw}")).or(own)
        }
        Some(Lead::Topic(t)) => {
            // a fragment: a few words with no auxiliary ("English only.",
            // "One item per task."), not a sentence of its own
            let words = lower_words(raw);
            let first = words.split(' ').next().unwrap_or("");
            let short = words.split(' ').count() <= 5
                && (one_of(FRAGMENT_STARTS, first)
                    || first.bytes().all(|b| b.is_ascii_digit())
                    || mentions(&format!(" {first} "), concept::LANGUAGE))
                && !words.split(' ').any(|w| {
                    matches!(
                        w,
                        "is" | "are"
                            | "was"
                            | "were"
                            | "has"
                            | "have"
                            | "had"
                            | "will"
                            | "can"
                            | "ist"
                            | "sind"
                            | "war"
                            | "hat"
                            | "haben"
                            | "wird"
                            | "kann"
                    )
                });
            if own.is_none() && !short {
                return None;
            }
            // a sentence of its own keeps its opening (its subject, its
            // verb)
            match own {
                None => analyse_inner(&format!("{t} {raw}"), true),
                Some(_) if short => analyse(&format!("{t} {raw}")).or(own),
                // the topic counts for the sentence as a whole, its
                // clauses stay as written
                Some(mut ins) => {
                    ins.words.push(' ');
                    ins.words.push_str(&lower_words(t.trim_end_matches(':')));
                    ins.memo = Memo::default();
                    Some(ins)
                }
            }
        }
    }
}

struct Piece<'a> {
    start: usize,
    text: &'a str,
}

fn flush(para: &mut Vec<Piece<'_>>, out: &mut Doc, scope: &[Range<usize>], lead: Option<&Lead>) {
    if para.is_empty() {
        return;
    }
    // a paragraph outside the call's sections tells the agent nothing here
    if !para
        .iter()
        .any(|p| scope.iter().any(|r| r.contains(&p.start)))
    {
        para.clear();
        return;
    }
    // Sentences run across the lines of a paragraph: each is read from
    // the pieces joined by spaces, with a map back to the document.
    let mut text = String::new();
    let mut map: Vec<(usize, usize)> = Vec::new(); // (offset in text, offset in doc)
    for p in para.drain(..) {
        if !text.is_empty() {
            text.push(' ');
        }
        map.push((text.len(), p.start));
        text.push_str(p.text);
    }
    let to_doc = |at: usize| -> usize {
        let k = map.partition_point(|(t, _)| *t <= at).saturating_sub(1);
        let (t0, d0) = map[k];
        d0 + (at - t0)
    };
    for s in sentences(&text) {
        // a "sentence" of pages is no instruction anybody follows
        if s.len() > MAX_SENTENCE {
            continue;
        }
        let raw = &text[s.clone()];
        let start = to_doc(s.start);
        if !scope.iter().any(|r| r.contains(&start)) {
            continue;
        }
        if let Some(ins) = analyse_under(raw, lead) {
            let end = to_doc(s.end.saturating_sub(1)) + 1;
            out.instructions.push(Instruction {
                span: start..end.max(start),
                ..ins
            });
        }
    }
}

/// The sentences of a run of text, as byte ranges: split after `.`, `!`
/// or `?` followed by a space and not inside quotes, code or a
/// parenthesis, nor after a common abbreviation.
fn sentences(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut code = false;
    let mut depth = 0usize;
    let mut quote = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'`' => code = !code,
            b'(' if !code => depth += 1,
            b')' if !code => depth = depth.saturating_sub(1),
            b'"' if !code => quote = !quote,
            b'.' | b'!' | b'?'
                if !code && depth == 0 && !quote && {
                    // a stop, past closing emphasis, then a space or the end
                    let mut j = i + 1;
                    while b.get(j).is_some_and(|c| matches!(c, b'*' | b'_')) {
                        j += 1;
                    }
                    b.get(j).is_none_or(|n| *n == b' ')
                } =>
            {
                let word_start = text[..i].rfind(' ').map_or(0, |k| k + 1);
                let word = text[word_start..i].to_ascii_lowercase();
                let abbrev = matches!(
                    word.as_str(),
                    "e.g"
                        | "i.e"
                        | "z.b"
                        | "z"
                        | "b"
                        | "d.h"
                        | "u.a"
                        | "bzw"
                        | "ca"
                        | "etc"
                        | "vs"
                        | "usw"
                        | "max"
                        | "min"
                        | "evtl"
                        | "ggf"
                        | "inkl"
                        | "bspw"
                        | "nr"
                        | "s"
                        | "dr"
                        | "mr"
                        | "mrs"
                        | "ms"
                        | "prof"
                        | "hr"
                        | "fr"
                ) || word.len() == 1
                    && word.bytes().all(|x| x.is_ascii_alphanumeric());
                if !abbrev {
                    if text[start..=i].trim().len() > 1 {
                        out.push(trim_range(text, start..i + 1));
                    }
                    start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() && !text[start..].trim().is_empty() {
        out.push(trim_range(text, start..b.len()));
    }
    out
}

fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    r.start + lead..r.end - trail
}

// ---------------------------------------------------------------------------
// One sentence.

/// Words that start a condition clause.
const CONDITION_WORDS: &[&str] = &[
    "if",
    "when",
    "whenever",
    "unless",
    "once",
    "until",
    "while",
    "as soon as",
    "before",
    "after",
    "except",
    "in case",
    "wenn",
    "falls",
    "sobald",
    "solange",
    "bis",
    "bevor",
    "nachdem",
    "außer",
    "ausser",
    "es sei denn",
    "sofern",
    // a concession is a condition too ("answer, even when it was meant for
    // someone else"), and so is a time given more closely ("right after")
    "even when",
    "even if",
    "even though",
    "auch wenn",
    "selbst wenn",
    "right after",
    "right before",
    "right when",
    "just after",
    "just before",
    "directly after",
    "immediately after",
    "shortly after",
    "soon after",
    "gleich nach",
    "direkt nach",
    "sofort nach",
    "kurz nach",
];

/// Words that negate what their clause tells.
const NEGATIONS: &[&str] = &[
    "never",
    "not",
    "don't",
    "dont",
    "doesn't",
    "no",
    "none",
    "nothing",
    "neither",
    "nor",
    "mustn't",
    "shouldn't",
    "can't",
    "cannot",
    "won't",
    "without",
    "avoid",
    "avoiding",
    "refrain",
    "vermeide",
    "vermeiden",
    "nie",
    "niemals",
    "nicht",
    "nichts",
    "kein",
    "keine",
    "keinen",
    "keinem",
    "keiner",
    "keines",
    "ohne",
    "weder",
];

/// Words that mark an instruction anywhere in a sentence.
const DIRECTIVE_WORDS: &[&str] = &[
    "always",
    "never",
    "must",
    "mustn't",
    "should",
    "shouldn't",
    "make sure",
    "be sure",
    "remember to",
    "your job",
    "your task",
    "you need to",
    "you have to",
    "you will",
    "you'll",
    "you can",
    "you may",
    "you are to",
    "immer",
    "stets",
    "grundsätzlich",
    "nie",
    "niemals",
    "jedes mal",
    "sollst",
    "musst",
    "darfst",
    "kannst",
    "sollen",
    "müssen",
    "sollte",
    "solltest",
    "sollt",
    "achte darauf",
    "denk daran",
    "bitte",
    "your label",
    "your name is",
    "you are",
    "dein label",
    "du bist",
    "yours to",
    "soll",
    "muss",
    "darf",
    "dürfen",
    "is expected to",
    "are expected to",
    "is supposed to",
    "are supposed to",
    "need to",
    "needs to",
    "has to",
    "have to",
    "is required to",
    "are required to",
    "is optional",
    "are optional",
    "not needed",
    "unnecessary",
    "not necessary",
    "nicht nötig",
    "nicht notwendig",
    "überflüssig",
    "ist optional",
    "up to you",
    "deine aufgabe",
    "go in",
    "goes in",
    "go into",
    "goes into",
    "go on the",
    "goes on the",
    "belong in",
    "belongs in",
    "belong on",
    "belongs on",
    "gehört in*",
    "gehören in*",
    "gehört auf*",
    "gehören auf*",
    "it is fine to",
    "it's fine to",
    "it is ok to",
    "it's ok to",
    "feel free",
    "you are allowed",
    "is allowed to",
    "ruhig",
    "gern",
    // a norm of enough ("one line is enough", "ein Eintrag reicht") and
    // the agent as the doer of a passive ("can be answered by you")
    "is enough",
    "are enough",
    "suffices",
    "is sufficient",
    "reicht",
    "genügt",
    "by you",
    "von dir",
];

/// Words of an instruction's subject that make "is"/"are" statements
/// about the agent instructions too ("the agent answers ...").
const IMPERATIVE_STARTS: &[&str] = &[
    "answer",
    "reply",
    "respond",
    "greet",
    "say",
    "speak",
    "talk",
    "tell",
    "ask",
    "create",
    "call",
    "join",
    "use",
    "put",
    "set",
    "keep",
    "wait",
    "stay",
    "skip",
    "ignore",
    "only",
    "process",
    "handle",
    "read",
    "check",
    "offer",
    "edit",
    "change",
    "fix",
    "forward",
    "send",
    "summarise",
    "summarize",
    "report",
    "announce",
    "add",
    "write",
    "give",
    "post",
    "start",
    "run",
    "deploy",
    "acknowledge",
    "confirm",
    "narrate",
    "describe",
    "explain",
    "jump",
    "chime",
    "step",
    "let",
    "make",
    "mention",
    "list",
    "show",
    "include",
    "do",
    "don't",
    "dont",
    "be",
    "follow",
    "filter",
    "drop",
    "loop",
    "poll",
    "end",
    "finish",
    "close",
    "spawn",
    "delegate",
    "hand",
    "launch",
    "fire",
    "bundle",
    "group",
    "combine",
    "collapse",
    "leave",
    "avoid",
    "just",
    "first",
    "then",
    "also",
    "immediately",
    "please",
    "go",
    "lump",
    "treat",
    "take",
    "pick",
    "choose",
    "open",
    "ping",
    "notify",
    "inform",
    "note",
    "track",
    "log",
    "consider",
    "proactively",
    "feel",
    "prefer",
    "try",
    "repeat",
    "recap",
    "remember",
    "state",
    "declare",
    "assume",
    "discard",
    "throw",
    "react",
    "comment",
    "interrupt",
    "volunteer",
    "propose",
    "suggest",
    "commit",
    "push",
    "merge",
    "modify",
    "update",
    "apply",
    "place",
    "move",
    "begin",
    "introduce",
    "name",
    "label",
    "sign",
    "emit",
    "print",
    "return",
    "break",
    "continue",
    "block",
    "respond",
    // German imperatives and infinitive instructions
    "sag",
    "sage",
    "antworte",
    "beantworte",
    "begrüße",
    "begrüsse",
    "grüße",
    "grüsse",
    "erstelle",
    "nutze",
    "verwende",
    "benutze",
    "setze",
    "setz",
    "schreibe",
    "schreib",
    "frag",
    "frage",
    "warte",
    "bleib",
    "bleibe",
    "ignoriere",
    "überspringe",
    "lies",
    "prüfe",
    "melde",
    "biete",
    "ändere",
    "bearbeite",
    "leite",
    "sende",
    "schicke",
    "schick",
    "fasse",
    "erzähle",
    "beschreibe",
    "bestätige",
    "quittiere",
    "spring",
    "springe",
    "mach",
    "mache",
    "gib",
    "starte",
    "führe",
    "ruf",
    "rufe",
    "lege",
    "leg",
    "pack",
    "packe",
    "trage",
    "trag",
    "halte",
    "halt",
    "sprich",
    "rede",
    "reagiere",
    "kommentiere",
    "übernimm",
    "wiederhole",
    "erkläre",
    "teile",
    "verarbeite",
    "behandle",
    "beachte",
    "nenne",
    "stelle",
    "öffne",
    "wähle",
    "gehe",
    "geh",
    "verkünde",
    "informiere",
    "delegiere",
    "committe",
    "pushe",
    "deploye",
    "korrigiere",
    "behebe",
    "fixe",
    "unterbrich",
    "lass",
    "lasse",
    "nimm",
    "zeige",
    "zeig",
    "spin",
    "have",
    "get",
    "bring",
    "fetch",
    "kick",
    "allow",
    "trigger",
    "invoke",
    "execute",
    "perform",
    "ensure",
    "request",
    "query",
    "hold",
    "route",
    "relay",
    "tag",
    "mark",
    "reply",
    "wrap",
    "sum",
    "present",
    "publish",
    "share",
    "store",
    "save",
    "pass",
    // verbs that open a sentence but also name things in a list
    "help",
    "chat",
    "trace",
    "flag",
    "limit",
    "default",
    "cut",
    "dump",
    "quote",
    "turn",
    "pause",
    "scan",
    "mirror",
    "mind",
    "pitch",
    "plug",
    "draft",
    "stick",
];

/// Analyse one sentence; `None` when it tells the agent nothing.
pub fn analyse(raw: &str) -> Option<Instruction> {
    analyse_inner(raw, false)
}

/// [`analyse`]; `fragment` takes a sentence with no verb as an
/// instruction (a note under a topic).
fn analyse_inner(raw: &str, fragment: bool) -> Option<Instruction> {
    let (masked, quoted, said) = mask_quotes(raw);
    // a question asks; it tells nothing ("Can I edit code in the call?")
    if masked
        .trim_end_matches(|c: char| c.is_whitespace() || c == '*' || c == '_')
        .ends_with('?')
    {
        return None;
    }
    let words = generic_agent_is_you(lower_words(&masked));
    if words.is_empty() {
        return None;
    }
    let german = is_german(&words);
    let words = normalise(words, german);
    let (mut clauses, joined) = clauses(&words);
    // "Spricht Jana dich an, ...", "Ist der Call auf Englisch, ...": a German
    // sentence that opens with a finite verb before another clause states a
    // condition
    if german && clauses.len() > 1 && !clauses[0].condition {
        let first = first_word(clauses[0].words.trim());
        if one_of(VERB_FIRST_DE, first) {
            clauses[0].condition = true;
        }
    }
    // the verbs a clause spells in parts ("biete ... an") count for the
    // sentence as a whole too
    let words = if joined.is_empty() {
        words
    } else {
        format!("{words} {}", joined.join(" "))
    };
    // An imperative opens the sentence or a clause after its condition
    // ("when X, answer ..."); a modal or "always"/"immer" may stand
    // anywhere.
    let after_condition = clauses
        .iter()
        .skip_while(|c| !c.condition)
        .find(|c| !c.condition)
        .map(|c| first_word(c.words.trim()));
    let directive = fragment
        || std::iter::once(first_word(&words))
            .chain(after_condition)
            .any(|w| one_of(IMPERATIVE_STARTS, w))
        || clauses
            .iter()
            .any(|c| c.opens && !c.condition && opens_imperative(&c.words))
        || mentions(&words, DIRECTIVE_WORDS)
        || words.split(' ').count() <= 8
            && words
                .split(' ')
                .take(3)
                .any(|w| matches!(w, "no" | "kein" | "keine" | "keinen"))
        || states_yours(&words)
        || german && ends_in_infinitive(raw)
        || german
            && (mentions(&words, GERMAN_YOU)
                || clauses.iter().any(|c| {
                    c.words.trim().rsplit(' ').next().is_some_and(|w| {
                        crate::text::lexicon::Lexicon::get()
                            .has("instructions.final-infinitives", w)
                    })
                }));
    // A past-tense account tells nothing ("opencode greeted in German"),
    // and an instruction about another medium (the issue tracker, email,
    // the release notes) is none about the call.
    if !directive || mentions(&words, ELSEWHERE) && !mentions(&words, IN_THE_CALL) {
        return None;
    }
    Some(Instruction {
        span: 0..raw.len(),
        german,
        clauses,
        quoted,
        said,
        words,
        memo: Memo::default(),
    })
}

/// The words of a sentence as the word lists read them:
///
/// - a person named ("when Mira asks you", "Frau Lorenz", "Dr. Haas") is
///   the call's human as far as the rules go: the name, with its title, is
///   read as "human" ("mensch" in German); a name followed by "agent" or
///   "bot" names an agent and stays;
/// - German "still" (quiet) is read as "schweigend", so that English
///   "still" (yet) is no silence;
/// - "the checkout agent" is another agent, named by its role: read as
///   "the checkout other agent".
fn normalise(words: String, german: bool) -> String {
    let lex = crate::text::lexicon::Lexicon::get();
    let (people, titles) = (
        lex.phrases("instructions.people"),
        lex.phrases("instructions.titles"),
    );
    let toks: Vec<&str> = words.split(' ').collect();
    let human = if german { "mensch" } else { "human" };
    let agent_after = |k: usize| {
        toks.get(k + 1).is_some_and(|n| {
            matches!(
                *n,
                "agent" | "agents" | "agenten" | "bot" | "bots" | "'s" | "’s"
            ) || n.ends_with("-agent")
        })
    };
    let mut out: Vec<&str> = Vec::with_capacity(toks.len());
    let mut changed = false;
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        let name_after = toks
            .get(k + 1)
            .is_some_and(|n| n.len() > 1 && n.chars().all(char::is_alphabetic));
        if titles.has(t) && name_after && !agent_after(k + 1) {
            out.push(human);
            changed = true;
            k += 2;
            continue;
        }
        // German "still" is quiet; English "still" is not
        if german && t == "still" {
            out.push("schweigend");
            changed = true;
            k += 1;
            continue;
        }
        if people.has(t) && !agent_after(k) {
            out.push(human);
            changed = true;
        } else {
            out.push(t);
        }
        k += 1;
    }
    // "the checkout agent", "dem Werkstatt-Agenten": another agent named by
    // its role
    let mut k = 2;
    while k < out.len() {
        if matches!(out[k], "agent" | "agents")
            && matches!(out[k - 2], "the" | "that" | "this")
            && !matches!(
                out[k - 1],
                "other"
                    | "same"
                    | "voice"
                    | "call"
                    | "calling"
                    | "main"
                    | "current"
                    | "voicehook"
                    | "new"
                    | "helper"
                    | "sub"
                    | "worker"
                    | "background"
                    | "separate"
                    | "parallel"
                    | "second"
                    | "dedicated"
                    | "child"
                    | "task"
            )
            && out[k - 1].chars().all(char::is_alphabetic)
        {
            out.insert(k, "other");
            changed = true;
            k += 1;
        }
        k += 1;
    }
    if changed {
        out.join(" ")
    } else {
        words
    }
}

/// "Agents should answer ...", "Der Agent soll ...": a sentence whose
/// subject is the agent in general speaks to the agent reading it, as "you"
/// does; its subject is rewritten so, and no other agent is read into it.
fn generic_agent_is_you(words: String) -> String {
    const SUBJECTS: &[(&str, &str)] = &[
        ("agents", "you"),
        ("the agent", "you"),
        ("an agent", "you"),
        ("every agent", "you"),
        ("each agent", "you"),
        ("all agents", "you"),
        ("der agent", "du"),
        ("ein agent", "du"),
        ("jeder agent", "du"),
        ("alle agenten", "du"),
        ("agenten", "du"),
    ];
    const VERBS: &[&str] = &[
        "should", "must", "may", "can", "are", "is", "will", "need", "needs", "have", "has",
        "shall", "soll", "sollen", "sollte", "sollten", "muss", "müssen", "darf", "dürfen", "ist",
        "sind",
    ];
    // the subject opens the sentence, or the clause after a condition
    // that opens it ("when X , agents should ...")
    let at = if starts_condition(&words) {
        words.find(" , ").map_or(0, |k| k + 3)
    } else {
        0
    };
    for (subject, you) in SUBJECTS {
        let Some(rest) = words[at..]
            .strip_prefix(subject)
            .and_then(|r| r.strip_prefix(' '))
        else {
            continue;
        };
        if VERBS.contains(&rest.split(' ').next().unwrap_or("")) {
            return format!("{}{you} {rest}", &words[..at]);
        }
    }
    words
}

/// "Your greeting is in English", "Deine Sprache ist Deutsch": a
/// statement of what is the agent's sets it as much as an imperative does.
fn states_yours(words: &str) -> bool {
    let mut w = words.split(' ');
    matches!(w.next(), Some("your" | "dein" | "deine"))
        && w.take(3)
            .any(|t| matches!(t, "is" | "are" | "ist" | "sind"))
}

/// A German note that ends in an infinitive with no finite verb before it
/// ("Nach dem Beitritt erst mal abwarten."): it tells what to do. Told by
/// the written word, which is lower case where a noun would not be.
fn ends_in_infinitive(raw: &str) -> bool {
    const FINITE: &[&str] = &[
        "ich", "wir", "er", "man", "habe", "hast", "hat", "haben", "habt", "hatte", "hatten",
        "wird", "werden", "wurde", "wurden", "ist", "sind", "war", "waren", "bin", "bist", "kann",
        "können", "konnte", "könnte",
    ];
    let last = raw
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    last.chars().count() >= 5
        && last.chars().all(char::is_alphabetic)
        && last.chars().next().is_some_and(char::is_lowercase)
        && (last.ends_with("en") || last.ends_with("ern") || last.ends_with("eln"))
        && !raw
            .split(|c: char| !c.is_alphanumeric())
            .any(|t| FINITE.contains(&t.to_lowercase().as_str()))
}

/// Verbs that report what is said: what follows them is the content told,
/// and a negation there is the content's.
const REPORTING: &[&str] = &[
    "tell",
    "say",
    "announce",
    "report",
    "claim",
    "state",
    "mention",
    "inform",
    "explain",
    "declare",
    "sag",
    "sage",
    "melde",
    "verkünde",
    "behaupte",
    "erkläre",
    "teile",
];

/// The German words that speak to the agent.
const GERMAN_YOU: &[&str] = &[
    "du", "dein", "deine", "deinem", "deinen", "deiner", "deines", "dich", "dir",
];

/// True when a clause opens with an imperative ("leave out the emoji",
/// "schreib offene Fragen ...") or with "you" and a verb in the present
/// ("you reply in English"): it tells the agent to do something. A verb
/// followed by a copula or "of" is a noun ("report of", "end is"), and one
/// followed by "by" a participle ("read by the proxy"): neither tells
/// anything.
fn opens_imperative(clause: &str) -> bool {
    let first = first_word(clause.trim());
    let lex = crate::text::lexicon::Lexicon::get();
    let next = clause
        .trim()
        .split(' ')
        .skip_while(|w| *w != first)
        .nth(1)
        .unwrap_or("");
    if matches!(
        next,
        "is" | "are" | "was" | "were" | "of" | "has" | "had" | "'s" | "by" | "ist" | "sind" | "war"
    ) {
        return false;
    }
    if first == "you" {
        return !next.is_empty()
            && !next.ends_with("ed")
            && !matches!(
                next,
                "was" | "were" | "had" | "did" | "said" | "got" | "went"
            );
    }
    lex.has("instructions.imperatives", first)
}

/// The first word of a sentence, past list labels such as `Step 2:` and
/// words that do not carry the instruction.
fn first_word(words: &str) -> &str {
    // past a short label: "good : answer ...", "step 2 : ..."
    let words = match words.split(' ').take(5).position(|w| w == ":") {
        Some(k) => words.splitn(k + 2, ' ').last().unwrap_or(""),
        None => words,
    };
    let mut it = words.split(' ').peekable();
    while let Some(w) = it.next() {
        // a label word, unless it is the verb ("step in", "note the rule")
        let label = matches!(
            w,
            "step"
                | "schritt"
                | "note"
                | "important"
                | "wichtig"
                | "rule"
                | "regel"
                | "tip"
                | "hinweis"
        ) && it.peek().is_none_or(|n| {
            n.bytes()
                .all(|b| b.is_ascii_digit() || b == b':' || b == b'.')
                || n.ends_with(':')
                || matches!(*n, "—" | "-" | "that" | "dass")
        });
        if label
            || matches!(
                w,
                "and"
                    | "und"
                    | "so"
                    | "also"
                    | "auch"
                    | "—"
                    | "-"
                    | "then"
                    | "dann"
                    | "first"
                    | "zuerst"
                    | "next"
                    | "finally"
                    | "schließlich"
                    | "always"
                    | "immer"
                    | "just"
                    | "please"
                    | "bitte"
            )
            || w.bytes()
                .all(|b| b.is_ascii_digit() || b == b':' || b == b'.')
            || w.ends_with(':')
        {
            if it.peek().is_none() {
                return w;
            }
            continue;
        }
        return w;
    }
    ""
}

fn is_german(words: &str) -> bool {
    const DE: &[&str] = &[
        "der", "die", "das", "und", "nicht", "du", "dich", "dir", "ist", "wenn", "ein", "eine",
        "den", "mit", "auf", "nie", "immer", "zu", "sie", "im",
    ];
    const EN: &[&str] = &[
        "the", "and", "not", "you", "your", "is", "when", "a", "an", "with", "to", "never",
        "always", "in", "of", "it", "if",
    ];
    let (mut de, mut en) = (0, 0);
    for w in words.split(' ') {
        de += usize::from(DE.contains(&w));
        en += usize::from(EN.contains(&w));
    }
    de > en
}

/// Quoted speech replaced by `"…"`, code spans kept without backticks;
/// both listed.
fn mask_quotes(raw: &str) -> (String, Vec<String>, Vec<String>) {
    let mut out = String::with_capacity(raw.len());
    let mut quoted = Vec::new();
    let mut said = Vec::new();
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '„' => Some('“'),
            '«' => Some('»'),
            '`' => Some('`'),
            '\'' if raw[..i]
                .chars()
                .next_back()
                .is_none_or(|p| !p.is_alphanumeric()) =>
            {
                Some('\'')
            }
            _ => None,
        };
        let Some(close) = close else {
            out.push(c);
            continue;
        };
        let rest = &raw[i + c.len_utf8()..];
        // a quote is closed within a line's worth of text, or is no quote
        let mut lim = rest.len().min(2048);
        while !rest.is_char_boundary(lim) {
            lim -= 1;
        }
        let rest = &rest[..lim];
        let end = if close == '\'' {
            // a closing quote is one not followed by a letter
            rest.char_indices()
                .find(|(k, ch)| {
                    *ch == '\''
                        && rest[k + 1..]
                            .chars()
                            .next()
                            .is_none_or(|n| !n.is_alphanumeric())
                })
                .map(|(k, _)| k)
        } else {
            rest.find(close)
        };
        match end {
            Some(k) => {
                let inner = &rest[..k];
                quoted.push(inner.to_string());
                if c == '`' {
                    // its punctuation splits no clause: `greet: false`
                    out.push(' ');
                    out.extend(inner.chars().map(|ch| match ch {
                        ':' | ',' | ';' => ' ',
                        ch => ch,
                    }));
                    out.push(' ');
                } else {
                    said.push(inner.to_string());
                    out.push_str(" \"…\" ");
                }
                // skip to after the closing quote
                let skip_to = i + c.len_utf8() + k + close.len_utf8();
                while chars.peek().is_some_and(|(j, _)| *j < skip_to) {
                    chars.next();
                }
            }
            None => out.push(c),
        }
    }
    (out, quoted, said)
}

/// Lower case, markup dropped, words separated by single spaces;
/// punctuation that separates clauses kept as a word of its own.
pub fn lower_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    // inside brackets, an aside: its commas split no clause
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let c = match c {
            ',' | ';' | ':' if depth > 0 => ' ',
            '*' | '_' if !out.ends_with(|p: char| p.is_alphanumeric()) => ' ',
            '*' | '#' | '[' | ']' | '(' | ')' | '{' | '}' | '<' | '>' => ' ',
            _ => c,
        };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        let (sep, c) = match c {
            '|' => (true, ';'),
            _ => (matches!(c, ',' | ';' | ':' | '—' | '–' | '!' | '?'), c),
        };
        if sep || c == '.' && !out.ends_with(|p: char| p.is_alphanumeric()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            pending_space = true;
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    // a sentence's final stop is no word
    while out.ends_with(['.', ' ']) {
        out.pop();
    }
    let out = if out.contains('’') {
        out.replace('’', "'")
    } else {
        out
    };
    // "at all" says how much, not of how many ("nothing at all")
    if out.contains("at all") {
        let padded = format!(" {out} ").replace(" at all ", " whatsoever ");
        return padded.trim().to_string();
    }
    out
}

/// Split a sentence's words into clauses: at `,`, `;`, `:` and dashes,
/// and before a word that starts a condition or a contrast; a condition
/// runs to the next separator.
/// The clauses of `words`, and the verbs joined from their parts
/// ([`join_separable`]).
fn clauses(words: &str) -> (Vec<Clause>, Vec<String>) {
    let mut parts: Vec<(String, bool, bool)> = Vec::new();
    let mut cur = String::new();
    let mut cond = false;
    // the current part opens a statement ([`Clause::opens`])
    let mut opens = true;
    let toks: Vec<&str> = words.split(' ').collect();
    let mut k = 0;
    while k < toks.len() {
        let w = toks[k];
        // "sag sofort, dass ...": the complement belongs to its verb
        if w == "," && matches!(toks.get(k + 1), Some(&("dass" | "daß"))) && !cond {
            k += 1;
            continue;
        }
        // "**Greeting:** none", "Language: English": a topic of up to
        // three words before a fragment of up to three with no verb is
        // that fragment's label ("Timeouts: ignore them" is two clauses, the
        // pronoun referring back)
        if w == ":"
            && parts.is_empty()
            && !cond
            && (1..=3).contains(&cur.split(' ').count())
            && !opens_imperative(&toks[k + 1..].join(" "))
            && toks[k + 1..]
                .iter()
                .take_while(|t| !matches!(**t, "," | ";" | ":" | "." | "—" | "–"))
                .count()
                <= 3
        {
            cur.push_str(" :");
            k += 1;
            continue;
        }
        if matches!(w, "," | ";" | ":" | "—" | "–" | "-" | "!" | "?") {
            // "only when ..., X": the condition ends here
            let was_cond = cond;
            // a comma after a bare verb continues a list of verbs ("to
            // answer, react to or comment on"); not after a noun that is
            // spelled as one ("at the end, post ...")
            let mut back = cur.rsplit(' ');
            let (last, before) = (back.next().unwrap_or(""), back.next());
            let listed = (one_of(IMPERATIVE_STARTS, last)
                || crate::text::lexicon::Lexicon::get().has("instructions.imperatives", last))
                && before.is_none_or(|b| matches!(b, "to" | "zu" | "or" | "and" | "oder" | "und"));
            if !cur.is_empty() {
                parts.push((std::mem::take(&mut cur), cond, opens));
            }
            cond = false;
            opens = w != ","
                || was_cond
                || !listed
                || matches!(
                    toks.get(k + 1),
                    Some(&("so" | "then" | "dann" | "also" | "and" | "und" | "just" | "instead"))
                );
            k += 1;
            continue;
        }
        // the longest condition that starts here, in words ("even when")
        let cond_len = condition_at(&toks[k..]);
        let starts_cond = cond_len.is_some();
        let contrast = matches!(w, "but" | "aber" | "sondern" | "instead" | "stattdessen");
        if (starts_cond || contrast) && !cur.is_empty() {
            let was_cond = cond;
            parts.push((std::mem::take(&mut cur), cond, opens));
            cond = false;
            opens = contrast || was_cond;
        }
        if starts_cond {
            cond = true;
        }
        // the condition's words are taken together
        for w in &toks[k..k + cond_len.unwrap_or(1)] {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(w);
        }
        k += cond_len.unwrap_or(1);
    }
    if !cur.is_empty() {
        parts.push((cur, cond, opens));
    }
    // a short piece between commas that opens with no verb ("English,
    // always, in every say") belongs to the clause before it
    let mut merged: Vec<(String, bool, bool)> = Vec::with_capacity(parts.len());
    for (w, c, o) in parts {
        let short = w.split(' ').count() <= 3;
        let verbless = !opens_imperative(&w)
            && !w.split(' ').next().is_some_and(|f| {
                matches!(f, "then" | "and" | "so" | "dann" | "und" | "you" | "du")
            });
        // "biete an, die Änderungen umzusetzen": a German infinitive with
        // "zu" is its verb's object
        let zu_infinitive = ends_in_zu_infinitive(&w);
        match merged.last_mut() {
            Some(last) if zu_infinitive && !c && !last.1 => {
                last.0.push(' ');
                last.0.push_str(&w);
            }
            Some(last) if short && verbless && !c && !last.1 && !mentions(&w, NEGATIONS) => {
                last.0.push(' ');
                last.0.push_str(&w);
            }
            _ => merged.push((w, c, o)),
        }
    }
    let mut joined = Vec::new();
    for part in merged.iter_mut() {
        joined.extend(join_separable(&mut part.0));
    }
    let clauses = merged
        .into_iter()
        .enumerate()
        .map(|(k, (w, condition, opens))| {
            let padded = format!(" {w} ");
            // a negation inside a "that"/"dass" complement is the
            // complement's ("announce that they can't hear"), and so is one
            // in what a verb of saying reports ("tell everyone it can't
            // reach you"); "say nothing" still negates
            let head = match find(&w, &["that", "dass", "daß"]) {
                Some(k) if k > 0 => &w[..k],
                _ if w.split(' ').count() > 3 && mentions(first_word(&w), REPORTING) => {
                    let two = w.split(' ').take(2).map(str::len).sum::<usize>() + 1;
                    &w[..two.min(w.len())]
                }
                _ => w.as_str(),
            };
            // and one in what the clause is for ("answer for her so she
            // doesn't have to", "damit er nicht wartet") is the purpose's
            let head = match find(head, &["so", "so that", "damit", "in order to", "sodass"]) {
                Some(k) if k > 0 => &head[..k],
                _ => head,
            };
            let toks: Vec<&str> = head.split(' ').collect();
            let negs = toks.iter().filter(|t| one_of(NEGATIONS, t)).count()
                // "not only" and "no matter" do not negate
                - toks
                    .windows(2)
                    .filter(|w| {
                        matches!((w[0], w[1]), ("not", "only") | ("no", "matter") | ("nicht", "nur"))
                    })
                    .count();
            // a clause that opens with someone else says what they do
            let lead = ["and ", "und ", "but ", "aber "]
                .iter()
                .fold(w.as_str(), |l, p| l.strip_prefix(p).unwrap_or(l));
            // "let that agent answer", "überlass es Kiwi": the other acts
            // (having a subagent do it is the agent's own doing)
            let lets_other = find(lead, &["let", "lass", "leave it to", "überlass*"]) == Some(0)
                && !mentions(
                    lead,
                    &["let me", "let us", "know", "wissen", "weg", "sein", "bleiben", "leer", "empty", "blank", "offen", "aus"],
                )
                && !mentions(lead, concept::SIDE_THREAD);
            // "are the human's to answer", "is up to Oliver": another's part
            let others_part = lead
                .split(' ')
                .zip(lead.split(' ').skip(1))
                .any(|(a, b)| (a.ends_with("'s") || a.ends_with("’s")) && b == "to")
                || mentions(lead, &["up to the human", "up to the user", "sache des menschen"]);
            // "…; their answer is what the other agent needs": a later
            // statement about someone else's thing
            let theirs = opens
                && k > 0
                && matches!(
                    lead.split(' ').next(),
                    Some("their" | "his" | "her" | "its" | "ihre" | "ihr" | "seine" | "sein" | "deren" | "dessen")
                )
                && !mentions(lead, DIRECTIVE_WORDS);
            let about_other = !condition
                && (lets_other
                    || theirs
                    || others_part
                    || find(lead, OTHER_SUBJECTS) == Some(0)
                        && !one_of(IMPERATIVE_STARTS, first_word(&w)));
            Clause {
                words: padded,
                negated: negs % 2 == 1,
                condition,
                about_other,
                opens,
                memo: Memo::default(),
            }
        })
        .collect();
    (clauses, joined)
}

/// A German verb whose particle stands at the clause's end ("schlage im
/// Call vor", "tritt dem Call bei") gets its joined form added, so that a
/// list finds it as written together ("vorschlagen", "beitreten").
/// True when `words` end in a German infinitive with "zu" ("zu übernehmen",
/// "umzusetzen").
fn ends_in_zu_infinitive(words: &str) -> bool {
    let mut back = words.rsplit(' ');
    let (last, before) = (back.next().unwrap_or(""), back.next());
    last.ends_with("en")
        && (before == Some("zu")
            || last.len() > 6
                && last
                    .get(2..last.len() - 4)
                    .is_some_and(|m| m.contains("zu")))
}

fn join_separable(clause: &mut String) -> Vec<String> {
    const VERBS: &[(&[&str], &str, &str)] = &[
        (&["schlag", "schlage", "schlägst"], "vor", "vorschlagen"),
        (&["tritt", "trete", "trittst"], "bei", "beitreten"),
        (&["lass", "lasse", "lässt"], "weg", "weglassen"),
        (&["biete", "biet", "bietest"], "an", "anbieten"),
        (&["ruf", "rufe", "rufst"], "auf", "aufrufen"),
        (&["hör", "höre", "hörst"], "zu", "zuhören"),
        (&["teil", "teile", "teilst"], "mit", "mitteilen"),
        (&["nimm", "nimmst"], "an", "annehmen"),
        (&["fass", "fasse", "fasst"], "zusammen", "zusammenfassen"),
        (&["gib", "gibst", "gebe"], "weiter", "weitergeben"),
        (&["pass", "passe", "passt"], "an", "anpassen"),
        (&["starte", "start", "startest"], "neu", "neustarten"),
        (&["warte", "wart", "wartest"], "ab", "abwarten"),
    ];
    const PARTICLES: &[&str] = &[
        "an", "auf", "aus", "bei", "ein", "mit", "nach", "vor", "zu", "weg", "um", "ab", "her",
        "hin", "durch", "zurück", "zusammen", "weiter",
    ];
    let toks: Vec<&str> = clause.split(' ').collect();
    // "umzusetzen" is "umsetzen" with "zu" inside
    let infixed: Vec<String> = toks
        .iter()
        .filter_map(|t| {
            let p = PARTICLES
                .iter()
                .find(|p| t.strip_prefix(**p).is_some_and(|r| r.starts_with("zu")))?;
            let rest = &t[p.len() + 2..];
            (rest.chars().count() >= 4 && rest.ends_with("en")).then(|| format!("{p}{rest}"))
        })
        .collect();
    let (Some(first), Some(last)) = (toks.first(), toks.last()) else {
        return infixed;
    };
    if toks.len() < 3 {
        for f in &infixed {
            clause.push(' ');
            clause.push_str(f);
        }
        return infixed;
    }
    // the particle closes the clause, or stands before the clause's
    // infinitive with "zu" ("biete an, die Änderungen umzusetzen")
    let closing = |particle: &str| {
        last == &particle
            || toks.iter().enumerate().any(|(k, t)| {
                *t == particle && k > 0 && ends_in_zu_infinitive(&toks[k..].join(" "))
            })
    };
    let joined = VERBS
        .iter()
        .find(|(stems, particle, _)| {
            (stems.contains(first) || toks[1..].iter().any(|t| stems.contains(t)))
                && closing(particle)
        })
        .map(|(_, _, joined)| *joined);
    let forms: Vec<String> = infixed
        .into_iter()
        .chain(joined.map(str::to_string))
        .collect();
    for f in &forms {
        clause.push(' ');
        clause.push_str(f);
    }
    forms
}

/// Finite German verbs that, first in a sentence and before another
/// clause, make the first clause a condition.
const VERB_FIRST_DE: &[&str] = &[
    "ist",
    "sind",
    "hat",
    "hast",
    "gibt",
    "kommt",
    "kommst",
    "fragt",
    "fragst",
    "spricht",
    "sprichst",
    "siehst",
    "sieht",
    "hörst",
    "hört",
    "brauchst",
    "braucht",
    "stellt",
    "stellst",
    "kannst",
    "wird",
    "wirst",
    "bekommst",
    "bekommt",
    "erhältst",
    "erhält",
    "meldet",
    "sagt",
    "schreibt",
    "ruft",
    "willst",
    "möchtest",
    "liegt",
    "fehlt",
    "bittet",
    "taucht",
    "läuft",
    "geht",
    "weißt",
    "kennst",
    "findest",
    "merkst",
    "bemerkst",
    "antwortet",
    "redet",
];

/// Other media an instruction may be about.
const ELSEWHERE: &[&str] = &[
    "issue tracker",
    "the tracker",
    "issues",
    "ticket*",
    "email*",
    "e-mail*",
    "mail",
    "forum",
    "slack",
    "pull request*",
    "code review*",
    "release notes",
    "changelog",
    "readme",
    "documentation",
    "the docs",
    "commit message*",
    "dokumentation",
    "versionshinweise",
    "im tracker",
];

/// Words that put an instruction in the call all the same.
const IN_THE_CALL: &[&str] = &[
    "hear",
    "you hear",
    "hörst",
    "call",
    "calls",
    "voicehook",
    "say",
    "says",
    "greet*",
    "delta",
    "human",
    "oliver",
    "board",
    "aloud",
    "out loud",
    "im call",
    "mensch*",
    "begrüß*",
    "share_text",
    "join*",
];

/// Subjects of a clause that says what someone else does.
const OTHER_SUBJECTS: &[&str] = &[
    "delta",
    "data",
    "the voicebot",
    "the human",
    "the user",
    "oliver",
    "another agent",
    "other agents",
    "the other agents",
    "the server",
    "they",
    "der mensch",
    "der nutzer",
    "der server",
    "andere agenten",
    "ein anderer agent",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Instruction {
        analyse(s).unwrap_or_else(|| panic!("no instruction: {s}"))
    }

    #[test]
    fn words_match_at_boundaries_and_by_stem() {
        assert!(mentions("greet the human", &["greet*"]));
        assert!(mentions("greeting first", &["greet*"]));
        assert!(!mentions("regreet", &["greet*"]));
        assert!(mentions("a subagent", &["*agent"]));
        assert!(!mentions("the agentic way", &["agent"]));
        assert!(mentions("call join then next", &["join then"]));
    }

    #[test]
    fn polarity_and_conditions() {
        let i = one("Never answer a question meant for someone else.");
        assert!(i.tells().next().is_none());
        assert!(i.forbids_any(&["answer*"]));
        let i = one("Only answer when you are addressed, and then briefly.");
        assert!(i.tells_any(&["answer*"]));
        assert!(i.if_any(&["addressed"]));
        let i = one("Never set a status without an emoji.");
        assert!(i.tells_any(&["emoji"]), "two negations: {:?}", i.clauses);
        let i = one("Antworte nie auf Fragen, die an jemand anderen gehen.");
        assert!(i.german && i.forbids_any(&["antworte"]));
    }

    #[test]
    fn descriptions_are_no_instructions() {
        assert!(analyse("opencode greeted in German in an English call.").is_none());
        assert!(analyse("The server drops says that were not addressed.").is_none());
        assert!(analyse("Greet in the call language.").is_some());
        assert!(analyse("Du sollst immer zuerst grüßen.").is_some());
    }

    #[test]
    fn an_imperative_opens_any_statement_of_the_sentence() {
        // after a semicolon, after "so", after a leading phrase
        assert!(analyse("Status lines are plain text; leave out emoji.").is_some());
        assert!(analyse("Emoji on the board are noise, so skip them.").is_some());
        assert!(analyse("At the end of your turn, post the link.").is_some());
        assert!(
            analyse("Wenn ein Agent etwas erklärt, ergänze es mit deinem Kommentar.").is_some()
        );
        assert!(analyse("Offene Fragen nie aufs Board schreiben.").is_some());
        assert!(analyse("You reply in the call's language.").is_some());
        assert!(analyse("Questions for the human go in the open list.").is_some());
        // a list of verbs after a noun phrase tells nothing; nor does a
        // verb spelled as a noun, nor "you" with a past tense
        assert!(
            analyse("The page lists an instruction to answer, react to or comment on a line.")
                .is_none()
        );
        assert!(analyse("The report of the call is kept, read by the proxy.").is_none());
        assert!(analyse("You joined late and the human was gone.").is_none());
    }

    #[test]
    fn clause_structure_follows_the_sentence() {
        // an aside in brackets splits no clause
        let i = one("Hand the call setup (`create_call`, then `share_text`) off to a subagent.");
        assert!(i.tells_both(&["create_call"], &["subagent"]));
        // a "dass" complement stays with its verb
        let i = one("Sag sofort, dass bei dir nichts ankommt.");
        assert!(i.tells_both(&["sag"], &["ankommt"]), "{:?}", i.clauses);
        // "avoid" negates; "let X answer" is what X does, but having a
        // subagent do it is the agent's own doing
        assert!(one("Avoid answering questions for others.")
            .tells()
            .next()
            .is_none());
        assert!(one("Let that agent answer.").tells().next().is_none());
        assert!(one("Lass einen Subagenten den Call anlegen.")
            .tells()
            .next()
            .is_some());
        assert!(one("Lass das Emoji im Status weg.")
            .tells()
            .next()
            .is_some());
        // a pronoun refers back to what the sentence named
        assert!(one("Emoji are noise, so skip them.").tells_of(&["skip*"], &["emoji"]));
        assert!(!one("Emoji are fine, so use them.").tells_of(&["skip*"], &["emoji"]));
        // "at all" counts nothing
        assert!(!one("Never say lines do not come through at all.").has(&["all"]));
    }

    #[test]
    fn a_stem_with_a_silent_e_finds_its_ing_form() {
        assert!(mentions("by acknowledging it", &["acknowledge*"]));
        assert!(mentions("describing each step", &["describe*"]));
        assert!(mentions("taking over", &["take*"]));
    }

    #[test]
    fn quoted_speech_is_masked_and_kept() {
        let i = one("Say \"Hallo, hier ist opencode\" when you join.");
        assert!(!i.has(&["hallo"]));
        assert_eq!(i.quoted, ["Hallo, hier ist opencode"]);
        let i = one("Use the label `opencode-session-2026-10-10-main` when you join.");
        assert_eq!(i.quoted, ["opencode-session-2026-10-10-main"]);
        assert!(i.has(&["label"]));
    }

    #[test]
    fn examples_under_bad_headings_and_labels_are_left_out() {
        let doc = "# voicehook rules\n\nAlways greet in the call language.\n\n## Bad\n\nAlways greet in German.\n\n```json\n{\"text\":\"x\"}\n```\n\n## Good\n\nGreet in the language of `context.lang`.\n\n- Bad: Answer every question.\n- Good: Answer when addressed.\n\nOliver: \"Promo, is the build green?\"\n";
        let d = read(doc);
        let texts: Vec<&str> = d
            .instructions
            .iter()
            .map(|i| &doc[i.span.clone()])
            .collect();
        assert_eq!(
            texts,
            [
                "Always greet in the call language.",
                "Greet in the language of `context.lang`.",
                "Good: Answer when addressed."
            ]
        );
        let fence = doc.find("```json").unwrap();
        assert!(d.in_example(fence));
        assert!(!d.in_example(doc.find("## Good").unwrap() + 9));
    }

    #[test]
    fn spans_cross_lines_of_a_paragraph() {
        let doc =
            "Intro text about voicehook.\nCreate the call in a\nbackground subagent. Then rest.\n";
        let d = read(doc);
        let s = &doc[d.instructions[0].span.clone()];
        assert_eq!(s, "Create the call in a\nbackground subagent.");
    }

    #[test]
    fn only_what_speaks_of_a_call_is_read() {
        let doc = "# Repo\n\nAlways answer every question in the tracker.\n\n## Calls\n\nWe use voicehook.\n\n### Greeting\n\nAlways greet in German.\n\n## Releases\n\nAlways write notes in German.\n";
        let d = read(doc);
        let texts: Vec<&str> = d
            .instructions
            .iter()
            .map(|i| &doc[i.span.clone()])
            .collect();
        assert_eq!(texts, ["Always greet in German."]);
        assert!(read("Always greet in German.\n").instructions.is_empty());
        assert_eq!(
            read("---\nname: voicehook\n---\n# Skill\n\n## A\n\nAlways greet.\n")
                .instructions
                .len(),
            1
        );
    }

    #[test]
    fn a_heading_a_lead_in_or_a_table_column_frames_the_sentence() {
        let doc = "# Voicehook\n\n## When another agent is addressed\n\n- Answer anyway.\n\nWhen the human asks Delta:\n\n- give the status.\n\nThe end.\n\n| Situation | What to do |\n|---|---|\n| Delta is addressed | Give the status yourself. |\n\n### Language\n\nAlways German.\n\nThe board shows what we decided.\n\n## When to speak\n\n- Speak briefly.\n";
        let d = read(doc);
        let framed: Vec<(&str, bool)> = d
            .instructions
            .iter()
            .map(|i| (&doc[i.span.clone()], i.clauses.iter().any(|c| c.condition)))
            .collect();
        assert_eq!(
            framed,
            [
                ("Answer anyway.", true),
                ("give the status.", true),
                ("Delta is addressed | Give the status yourself.", true),
                ("Always German.", false),
                ("Speak briefly.", false),
            ]
        );
        // the heading's condition is read, the span stays the sentence's
        assert!(d.instructions[0].has(&["another agent"]));
        // a topic labels a fragment; a sentence with its own subject and
        // verb under it is no fragment ("The board shows ...")
        assert!(d.instructions[3].words.starts_with("language :"));
    }

    #[test]
    fn what_a_verb_of_saying_reports_is_not_negated_by_its_content() {
        let told = |s: &str| one(s).tells().count();
        assert_eq!(told("Tell everyone it can't reach you."), 1);
        assert_eq!(told("Say nothing after you join."), 0);
        assert_eq!(told("Announce that the relay does not work."), 1);
        // a label word before a number, the verb before anything else
        assert!(analyse("Step in whenever Delta is slow.").is_some());
        assert!(analyse("Step 2: the board.").is_none());
    }

    #[test]
    fn concessions_passives_possessives_and_code_spans() {
        let i =
            one("Always acknowledge what was said, even when it was addressed to someone else.");
        assert!(i.clauses.last().unwrap().condition);
        assert!(i.clauses.last().unwrap().words.starts_with(" even when"));
        assert!(analyse("Questions to the human can be answered by you.").is_some());
        assert!(analyse("Your greeting is in English.").is_some());
        assert!(analyse("Your question did not reach me.").is_none());
        // a code span's punctuation splits no clause
        assert_eq!(
            one("Join with `greet: false` and stay quiet.")
                .clauses
                .len(),
            1
        );
        // "their answer is ..." after the instruction says what is theirs
        let i = one("Leave it to the human; their answer is what counts.");
        assert!(i.clauses[1].about_other);
    }

    #[test]
    fn german_notes_and_infinitives_with_zu() {
        assert!(analyse("Nach dem Beitritt erst mal still sein und abwarten.").is_some());
        assert!(analyse("Wir haben das gestern besprochen.").is_none());
        let i = one("Biete an, die Änderungen umzusetzen.");
        assert_eq!(i.clauses.len(), 1);
        assert!(i.has(&["umsetzen"]) && i.has(&["anbieten"]));
    }

    #[test]
    fn hostile_text_never_panics() {
        for doc in [
            "",
            "```",
            "---\nno end",
            "> > > >",
            "|||",
            "- - - -",
            "\"unclosed",
            "`",
            "„",
            "**Bad:**",
            "# \n",
            "a.b.c. d! e? f",
            "\r\r\n\n",
        ] {
            let _ = read(doc);
        }
        let deep = "- ".repeat(50_000);
        let _ = read(&deep);
    }
}
