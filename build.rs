//! Builds the language model from its text tables in `rules/lexicon/` once,
//! at compile time, so the binary does not parse them at every start.

use std::path::Path;

#[allow(dead_code)]
#[path = "src/text/langmodel.rs"]
mod langmodel;

fn main() {
    let dir = Path::new("rules/lexicon");
    let read = |name: &str| {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    println!("cargo:rerun-if-changed=src/text/langmodel.rs");
    let langs = langmodel::CODES.map(|code| read(&format!("lang-{code}.txt")));
    let model = langmodel::Model::build(
        langs.each_ref().map(String::as_str),
        &read("lang-words.txt"),
        &read("lang-neutral.txt"),
    );
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let write = |name: &str, bytes: &[u8]| {
        let out = Path::new(&out_dir).join(name);
        std::fs::write(&out, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    };
    write("lang.bin", &model.encode());
    let others = others(&read("lang-others.txt"));
    write("others.fst", &others.fst);
    write("others.bin", &others.entries);
    write("others.rs", others.consts.as_bytes());
}

/// The table of other Latin-script languages, encoded for
/// `src/text/others.rs`: an FST from each word to the offset of its entries,
/// the entries (three bytes per language that lists the word: the
/// language's index, with bit 7 set on the word's last entry, then -ln P in
/// hundredths of a nat as a little-endian `u16`), and the languages' codes
/// and floors as Rust constants.
struct Others {
    fst: Vec<u8>,
    entries: Vec<u8>,
    consts: String,
}

fn others(text: &str) -> Others {
    let mut codes: Vec<&str> = Vec::new();
    let mut floors: Vec<f32> = Vec::new();
    let mut map = fst::MapBuilder::memory();
    let mut entries: Vec<u8> = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('\t').expect("a word, a tab, its entries");
        match key {
            "[langs]" => codes = value.split('\t').collect(),
            "[floors]" => {
                floors = value
                    .split('\t')
                    .map(|v| v.parse::<f32>().expect("a floor in hundredths of a nat") / 100.0)
                    .collect()
            }
            word => {
                assert!(codes.len() <= 128, "at most 128 other languages");
                map.insert(word, entries.len() as u64 / 3)
                    .unwrap_or_else(|e| panic!("lang-others.txt: {word}: {e}"));
                let items: Vec<&str> = value.split(' ').collect();
                for (i, item) in items.iter().enumerate() {
                    let (lang, lp) = item.split_once(':').expect("index:logp");
                    let lang: u8 = lang.parse().expect("a language index");
                    assert!(
                        usize::from(lang) < codes.len(),
                        "lang-others.txt: {word}: index {lang}"
                    );
                    let lp: i32 = lp.parse().expect("ln P in hundredths of a nat");
                    let q = u16::try_from(-lp).expect("ln P between -655 and 0");
                    let last = u8::from(i + 1 == items.len()) << 7;
                    entries.push(last | lang);
                    entries.extend_from_slice(&q.to_le_bytes());
                }
            }
        }
    }
    assert_eq!(
        codes.len(),
        floors.len(),
        "lang-others.txt: one floor per language"
    );
    let consts = format!(
        "/// Codes of the other languages, in the order of their indexes.\n\
         pub const CODES: [&str; {n}] = {codes:?};\n\
         /// ln P of each language's last listed word.\n\
         pub const FLOORS: [f32; {n}] = {floors:?};\n",
        n = codes.len(),
    );
    Others {
        fst: map.into_inner().expect("an FST in memory"),
        entries,
        consts,
    }
}
