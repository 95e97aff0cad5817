//! Phrase lists, kept as data in `rules/lexicon/<lang>.toml` (one file per
//! language, embedded in the binary) so that a word is added without
//! touching a rule.

use crate::core::hash::HashMap;
use std::sync::OnceLock;

use crate::text::words::{FastMap, Phrases};

const SOURCES: &[(&str, &str)] = &[
    ("en", include_str!("../../rules/lexicon/en.toml")),
    ("de", include_str!("../../rules/lexicon/de.toml")),
];

/// Every list of every language, by `section.key`, merged across languages
/// and lower-cased.
pub struct Lexicon {
    lists: FastMap<String, Vec<String>>,
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
        let mut lists: HashMap<String, Vec<String>> = HashMap::default();
        for (lang, text) in sources {
            if let Some(simple) = simple_lists(text) {
                for (key, items) in simple {
                    let entry = lists.entry(key).or_default();
                    for s in items {
                        let s = s.to_lowercase();
                        if !entry.contains(&s) {
                            entry.push(s);
                        }
                    }
                }
                continue;
            }
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
        let lists = lists.into_iter().collect();
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

/// The lists of a lexicon file written in the plain form the embedded
/// files use (comments, `[section]` headers, `key = ["...", ...]` with
/// arrays over several lines, strings without escapes), by `section.key`,
/// without a general TOML parser. `None` for anything else, duplicate
/// sections and keys included: the caller then reads it as TOML.
fn simple_lists(text: &str) -> Option<Vec<(String, Vec<&str>)>> {
    let b = text.as_bytes();
    let mut i = 0;
    // White space and comments, line ends included.
    let skip = |i: &mut usize| {
        while *i < b.len() {
            match b[*i] {
                b' ' | b'\t' | b'\n' => *i += 1,
                b'\r' if b.get(*i + 1) == Some(&b'\n') => *i += 1,
                b'#' => {
                    while *i < b.len() && b[*i] != b'\n' {
                        *i += 1;
                    }
                }
                _ => break,
            }
        }
    };
    // Spaces and a comment up to the end of the line.
    let line_end = |i: &mut usize| -> Option<()> {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t') {
            *i += 1;
        }
        if *i < b.len() && b[*i] == b'#' {
            while *i < b.len() && b[*i] != b'\n' {
                *i += 1;
            }
        }
        match b.get(*i) {
            None | Some(b'\n') => Some(()),
            Some(b'\r') if b.get(*i + 1) == Some(&b'\n') => Some(()),
            _ => None,
        }
    };
    let bare = |i: &mut usize| -> Option<&str> {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || matches!(b[*i], b'_' | b'-')) {
            *i += 1;
        }
        (*i > start).then(|| &text[start..*i])
    };
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    let mut sections: Vec<&str> = Vec::new();
    let mut section: Option<&str> = None;
    loop {
        skip(&mut i);
        if i >= b.len() {
            return Some(out);
        }
        if b[i] == b'[' {
            i += 1;
            let name = bare(&mut i)?;
            if b.get(i) != Some(&b']') || sections.contains(&name) {
                return None;
            }
            i += 1;
            line_end(&mut i)?;
            sections.push(name);
            section = Some(name);
            continue;
        }
        let key = format!("{}.{}", section?, bare(&mut i)?);
        if out.iter().any(|(k, _)| *k == key) {
            return None;
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if b.get(i) != Some(&b'[') {
            return None;
        }
        i += 1;
        let mut items = Vec::new();
        loop {
            skip(&mut i);
            match b.get(i)? {
                b']' => {
                    i += 1;
                    break;
                }
                b'"' => {
                    i += 1;
                    let start = i;
                    while i < b.len() && b[i] != b'"' {
                        // Escapes and control characters: leave to TOML.
                        if b[i] == b'\\' || (b[i] < 0x20 && b[i] != b'\t') || b[i] == 0x7f {
                            return None;
                        }
                        i += 1;
                    }
                    if i >= b.len() {
                        return None;
                    }
                    items.push(&text[start..i]);
                    i += 1;
                    skip(&mut i);
                    match b.get(i)? {
                        b',' => i += 1,
                        b']' => {}
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        line_end(&mut i)?;
        out.push((key, items));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded files read the same without the TOML parser.
    #[test]
    fn plain_lists_read_as_toml_does() {
        for (lang, text) in SOURCES {
            let mut ours = simple_lists(text).expect(lang);
            ours.sort();
            let table: toml::Table = toml::from_str(text).unwrap();
            let mut theirs: Vec<(String, Vec<&str>)> = Vec::new();
            for (section, v) in &table {
                for (key, list) in v.as_table().unwrap() {
                    let items = list.as_array().unwrap();
                    let items = items.iter().map(|x| x.as_str().unwrap()).collect();
                    theirs.push((format!("{section}.{key}"), items));
                }
            }
            theirs.sort();
            assert_eq!(ours, theirs, "{lang}");
        }
        for odd in [
            "k = [\"a\"]",
            "[a]\nk = [\"a\\\"b\"]",
            "[a]\nk = [\"a\"]\nk = [\"b\"]",
            "[a]\nk = [\"a\"] x",
            "[a]\nk = [1]",
            "[a]\n[a]",
        ] {
            assert!(simple_lists(odd).is_none(), "{odd}");
        }
        assert_eq!(
            simple_lists("# c\n[a] # c\nk = [ \"x\", # c\n \"y\",\n] # c\n"),
            Some(vec![("a.k".to_string(), vec!["x", "y"])])
        );
    }

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
