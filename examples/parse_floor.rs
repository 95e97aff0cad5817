//! The floor callint is measured against: a bare serde_json parse of every
//! line of a file into a `serde_json::Value`, nothing else.
//!
//! `cargo run --release --example parse_floor -- FILE`

fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_floor FILE");
    let bytes = std::fs::read(&path).expect("readable file");
    let mut objects = 0usize;
    let mut errors = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(v) => objects += usize::from(v.is_object()),
            Err(_) => errors += 1,
        }
    }
    println!("{objects} objects, {errors} errors");
}
