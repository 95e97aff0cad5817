//! Small text helpers shared by rules: words, phrases, emoji.

use unicode_segmentation::UnicodeSegmentation;

use crate::text::words::{Phrases, WordList, Words};

/// Lower-cased words of `s` (letters, digits, apostrophes, inner hyphens),
/// in order.
pub fn lower_words(s: &str) -> Vec<String> {
    s.unicode_words().map(str::to_lowercase).collect()
}

/// True if the words `w` start with the (space-separated, lower-case)
/// phrase.
pub fn starts_with_phrase(w: &[String], phrase: &str) -> bool {
    let mut n = 0;
    for (i, p) in phrase.split(' ').enumerate() {
        if w.get(i).map(String::as_str) != Some(p) {
            return false;
        }
        n += 1;
    }
    n > 0
}

/// Position (in words) of the first occurrence of the phrase in `w`.
pub fn find_phrase(w: &[String], phrase: &str) -> Option<usize> {
    (0..w.len()).find(|&i| starts_with_phrase(&w[i..], phrase))
}

/// Length in words of the first phrase of `list` that `w` starts with.
pub fn starts_with_any(w: &[String], list: &[String]) -> Option<usize> {
    list.iter()
        .filter(|p| starts_with_phrase(w, p))
        .map(|p| p.split(' ').count())
        .max()
}

/// True for characters drawn as pictographs: emoji, dingbats, symbols,
/// regional indicators.
pub fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF   // mahjong .. symbols and pictographs extended-A
        | 0x2600..=0x27BF   // misc symbols, dingbats
        | 0x2B00..=0x2BFF   // arrows, stars (⭐, ⬆)
        | 0x2300..=0x23FF   // misc technical (⌛, ⏳, ⏰)
        | 0x2190..=0x21FF   // arrows
        | 0x25A0..=0x25FF   // geometric shapes (▶, ◀)
        | 0x3030 | 0x303D | 0x3297 | 0x3299
        | 0x00A9 | 0x00AE | 0x203C | 0x2049 | 0x2122 | 0x2139
        | 0x24C2
    )
}

/// True if the text holds at least one emoji.
pub fn has_emoji(s: &str) -> bool {
    s.chars().any(is_emoji)
}

/// `s` without leading bullets, check boxes, emoji and white space.
pub fn strip_bullet(s: &str) -> &str {
    let mut t = s.trim_start();
    loop {
        let before = t;
        for p in ["[ ]", "[x]", "[X]", "- ", "* ", "• ", "· ", "– ", "— "] {
            if let Some(rest) = t.strip_prefix(p) {
                t = rest.trim_start();
            }
        }
        if let Some(c) = t.chars().next() {
            if is_emoji(c) || c == '\u{fe0f}' || c == '\u{200d}' {
                t = t[c.len_utf8()..].trim_start();
            }
        }
        if t == before {
            return t.trim_end();
        }
    }
}

/// Words as the lexicon lists them: lower case, typographic apostrophes
/// made straight (they split words as the straight one does), in one
/// buffer.
pub fn words(s: &str) -> Words {
    let mut w = Words::default();
    w.fill_lexical(s);
    w
}

/// If one of the (lower-case, space separated) phrases starts at word `i`,
/// the number of words the longest match covers. A `*` in a phrase matches
/// up to three words ("kommt * nichts an" matches "kommt von Promo nichts
/// an"). The list is compiled and indexed by first word
/// ([`crate::text::lexicon::Lexicon::phrases`]).
pub fn phrase_at<W: WordList + ?Sized>(w: &W, i: usize, list: &Phrases) -> Option<usize> {
    list.gapped_at(w, i)
}

/// The most of a name, in characters, that is looked at for its words
/// and its key: a name longer than anyone is called (a hostile or broken
/// log's label of megabytes) costs the analysis no more than this.
pub const NAME_HEAD: usize = 256;

/// The first [`NAME_HEAD`] characters of a name.
pub fn name_head(name: &str) -> &str {
    match name.char_indices().nth(NAME_HEAD) {
        Some((at, _)) => &name[..at],
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_phrases() {
        let w = lower_words("Oliver, OK to ship the iOS-note?");
        assert_eq!(w, ["oliver", "ok", "to", "ship", "the", "ios", "note"]);
        assert!(starts_with_phrase(&w[1..], "ok to"));
        assert_eq!(find_phrase(&w, "the ios"), Some(4));
        assert!(!starts_with_phrase(&w, ""));
    }

    #[test]
    fn emoji() {
        for s in ["🛠️", "✅", "⏳", "🚀", "❓", "🇩🇪"] {
            assert!(has_emoji(s), "{s}");
        }
        for s in ["", "ok", "-", ":)", "working"] {
            assert!(!has_emoji(s), "{s}");
        }
    }

    #[test]
    fn bullets() {
        assert_eq!(strip_bullet("  - [ ] ✅ Fix login "), "Fix login");
        assert_eq!(strip_bullet("🛠️ Build"), "Build");
        assert_eq!(strip_bullet("Plain"), "Plain");
    }
}
