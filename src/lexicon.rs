//! Phrase lists, kept as data in `rules/lexicon/<lang>.toml` (one file per
//! language, embedded in the binary) so that a word is added without
//! touching a rule.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::words::{FastMap, Phrases};

const SOURCES: &[(&str, &str)] = &[
    ("en", include_str!("../rules/lexicon/en.toml")),
    ("de", include_str!("../rules/lexicon/de.toml")),
];

/// Every list of every language, by `section.key`, merged across languages
/// and lower-cased.
pub struct Lexicon {
    lists: HashMap<String, Vec<String>>,
    /// Each list compiled for matching, on first use.
    compiled: FastMap<String, OnceLock<Phrases>>,
}

impl Lexicon {
    /// The shared lexicon.
    pub fn get() -> &'static Lexicon {
        static LEX: OnceLock<Lexicon> = OnceLock::new();
        LEX.get_or_init(|| Lexicon::from_sources(SOURCES).expect("embedded lexicon is valid"))
    }

    pub fn from_sources(sources: &[(&str, &str)]) -> Result<Lexicon, String> {
        let mut lists: HashMap<String, Vec<String>> = HashMap::new();
        for (lang, text) in sources {
            let table: toml::Table =
                toml::from_str(text).map_err(|e| format!("lexicon {lang}: {e}"))?;
            for (section, v) in table {
                let Some(t) = v.as_table() else {
                    return Err(format!("lexicon {lang}: [{section}] is not a table"));
                };
                for (key, list) in t {
                    let Some(items) = list.as_array() else {
                        return Err(format!("lexicon {lang}: {section}.{key} is not a list"));
                    };
                    let entry = lists.entry(format!("{section}.{key}")).or_default();
                    for item in items {
                        let Some(s) = item.as_str() else {
                            return Err(format!(
                                "lexicon {lang}: {section}.{key} holds a non-string"
                            ));
                        };
                        let s = s.to_lowercase();
                        if !entry.contains(&s) {
                            entry.push(s);
                        }
                    }
                }
            }
        }
        let compiled = lists.keys().map(|k| (k.clone(), OnceLock::new())).collect();
        Ok(Lexicon { lists, compiled })
    }

    /// A list by `section.key`; empty if no language has it.
    pub fn list(&self, key: &str) -> &[String] {
        self.lists.get(key).map(Vec::as_slice).unwrap_or(&[])
    }

    /// A list compiled for matching words and phrases; empty if no
    /// language has it. Look it up once, outside a loop over words.
    pub fn phrases(&self, key: &str) -> &Phrases {
        static EMPTY: OnceLock<Phrases> = OnceLock::new();
        match self.compiled.get(key) {
            Some(p) => p.get_or_init(|| Phrases::new(self.list(key))),
            None => EMPTY.get_or_init(Phrases::default),
        }
    }

    /// True if `word` (already lower-cased) is in the list.
    pub fn has(&self, key: &str, word: &str) -> bool {
        self.phrases(key).has(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_lexicon_loads_and_merges_languages() {
        let lex = Lexicon::get();
        assert!(lex.has("board.action-verbs", "fix"));
        assert!(lex.has("board.bundle-nouns", "entscheidungen"));
        assert!(lex.has("board.bundle-nouns", "decisions"));
        assert!(lex.list("no.such").is_empty());
    }

    #[test]
    fn lists_are_lower_case() {
        let lex = Lexicon::from_sources(&[("x", "[a]\nb = [\"Fix\", \"fix\"]")]).unwrap();
        assert_eq!(lex.list("a.b"), ["fix"]);
    }
}
