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
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("lang.bin");
    std::fs::write(&out, model.encode())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
