//! Compressed logs: gzip and zstd files are read, walked and rendered as
//! the file inside; a decompression bomb and a cut-off file get one clear
//! finding each.

use crate::common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zst(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// `(file stem, line, rule)` of every finding of a `--format json` run.
fn json_findings(out: &[u8]) -> BTreeSet<(String, u64, String)> {
    let v: serde_json::Value = serde_json::from_slice(out).expect("one JSON document");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            let name = Path::new(file).file_name().unwrap().to_string_lossy();
            let stem = name.split('.').next().unwrap().to_string();
            (
                stem,
                d["line"].as_u64().unwrap(),
                d["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_folder_of_compressed_logs_gives_the_findings_of_the_plain_ones() {
    let seed = common::root().join("corpus/seed-incident");
    let dir = common::scratch();
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    let read = |f: &str| std::fs::read(seed.join(f)).unwrap();
    std::fs::write(dir.join("logs/claude.jsonl.gz"), gz(&read("claude.jsonl"))).unwrap();
    std::fs::write(dir.join("logs/promo.jsonl.zst"), zst(&read("promo.jsonl"))).unwrap();
    std::fs::write(dir.join("logs/opencode.jsonl"), read("opencode.jsonl")).unwrap();
    // an archive of something else is not walked
    std::fs::write(dir.join("logs/backup.tar.gz"), gz(b"not a log")).unwrap();

    let plain = common::callint(&[
        "check",
        "corpus/seed-incident",
        "--no-config",
        "--format",
        "json",
    ]);
    let packed = common::callint_in(&dir, &["check", "logs", "--no-config", "--format", "json"]);
    let want = json_findings(&plain.stdout);
    let got = json_findings(&packed.stdout);
    assert!(want.len() >= 20, "{want:#?}");
    assert_eq!(got, want);
    let v: serde_json::Value = serde_json::from_slice(&packed.stdout).unwrap();
    assert_eq!(v["summary"]["files"], 3);

    // the pretty output shows the lines of the unpacked log
    let o = common::callint_in(
        &dir,
        &[
            "check",
            "logs/promo.jsonl.zst",
            "--no-config",
            "--format",
            "pretty",
            "--color",
            "never",
        ],
    );
    let out = common::stdout(&o);
    assert!(out.contains("promo.jsonl.zst:"), "{out}");
    assert!(out.contains("\"fn\":"), "the source lines are shown: {out}");
}

#[test]
fn a_compressed_transcript_and_captions_are_read_as_what_is_inside() {
    let tr = common::root().join("corpus/seed-incident-vtt/transcript.vtt");
    let bytes = std::fs::read(&tr).unwrap();
    let plain = common::lint("transcript.vtt", &bytes, &[]);
    let packed = common::lint("transcript.vtt.gz", &gz(&bytes), &[]);
    assert!(plain.diagnostics.len() >= 15);
    assert_eq!(
        common::lines_and_rules(&packed),
        common::lines_and_rules(&plain)
    );
    assert_eq!(packed.source, bytes, "the renderer gets the unpacked bytes");
}

#[test]
fn a_cut_off_gzip_log_is_read_up_to_the_cut() {
    let log = std::fs::read(common::root().join("corpus/seed-incident/claude.jsonl")).unwrap();
    let packed = gz(&log);
    let cut = &packed[..packed.len() / 2];
    let f = common::lint("claude.jsonl.gz", cut, &[]);
    let ends: Vec<_> = f
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("gzip file ends early"))
        .collect();
    assert_eq!(ends.len(), 1, "{:#?}", f.diagnostics);
    assert!(f.records > 5, "the part before the cut is linted");
    assert!(log.starts_with(&f.source));
    assert!(f.source.len() < log.len());
}

#[test]
fn a_decompression_bomb_stops_with_one_finding() {
    // 1 MiB of zeros, compressed, as 1100 frames one after the other: a
    // file of a few hundred kilobytes that unpacks past the limit.
    let frame = zst(&vec![0u8; 1 << 20]);
    let bomb = frame.repeat(1100);
    assert!(bomb.len() < 4 << 20, "{}", bomb.len());
    let dir = common::scratch();
    std::fs::write(dir.join("big.jsonl.zst"), &bomb).unwrap();
    let o = common::callint_in(&dir, &["check", ".", "--no-config", "--format", "concise"]);
    let out = common::stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains("error[invalid-record] this zstd file unpacks to more than 1 GiB"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1));
}
