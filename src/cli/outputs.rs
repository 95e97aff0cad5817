//! The outputs of `check`: which formats go where (`--format NAME[:FILE]`,
//! `--output-file`), each file's findings rendered in every one of them,
//! and the documents put together at the end.

use std::path::{Path, PathBuf};

use crate::lint::engine::FileResult;
use crate::report::{self, Format, Summary};

/// One output: a format, and the file it goes to (standard output when
/// none).
#[derive(Clone, Debug)]
pub struct Output {
    pub format: Format,
    pub path: Option<PathBuf>,
}

/// `--format NAME` or `--format NAME:FILE`.
pub fn parse_spec(s: &str) -> Result<Output, String> {
    let (name, path) = match s.split_once(':') {
        Some((n, p)) if !p.is_empty() => (n, Some(PathBuf::from(p))),
        Some((n, _)) => (n, None),
        None => (s, None),
    };
    let names = || {
        Format::ALL
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let format = Format::parse(name)
        .ok_or_else(|| format!("unknown format `{name}`; the formats are {}", names()))?;
    Ok(Output { format, path })
}

/// The outputs of a run: those asked for, or the default one; the one
/// without a file goes to `output_file` when that is given. At most one
/// goes to standard output.
pub fn resolve(
    asked: &[Output],
    output_file: Option<&Path>,
    tty: bool,
) -> Result<Vec<Output>, String> {
    let mut outs = asked.to_vec();
    if outs.is_empty() {
        let format = if tty && output_file.is_none() {
            Format::Pretty
        } else {
            Format::Concise
        };
        outs.push(Output { format, path: None });
    }
    let plain: Vec<usize> = (0..outs.len())
        .filter(|&i| outs[i].path.is_none())
        .collect();
    if plain.len() > 1 {
        return Err(
            "only one --format can go to standard output; give the others a file, as in --format json:findings.json"
                .into(),
        );
    }
    if let Some(file) = output_file {
        match plain.first() {
            Some(&i) => outs[i].path = Some(file.to_path_buf()),
            None => {
                return Err(
                    "--output-file names the file of the --format that has none; every --format here has its own"
                        .into(),
                )
            }
        }
    }
    Ok(outs)
}

/// One file's findings in one format.
pub enum Part {
    Text(String),
    /// The file's findings as they stand in the document
    /// ([`report::json::fragment`]).
    Json(String),
    Sarif(Vec<report::sarif::SarifResult>),
    Junit(report::junit::Suite),
    Gitlab(Vec<report::gitlab::Issue>),
}

/// Render one linted file (its bytes at hand) in `format`.
pub fn render(r: &FileResult, file: &Path, format: Format, style: report::pretty::Style) -> Part {
    // Standard input is filed under the name it was given.
    let file = if file.as_os_str() == "-" {
        Path::new(&r.path)
    } else {
        file
    };
    match format {
        Format::Json => Part::Json(report::json::fragment(&report::json::items(r))),
        Format::Sarif => Part::Sarif(report::sarif::results_at(r, file)),
        Format::Junit => Part::Junit(report::junit::cases(r)),
        Format::Gitlab => Part::Gitlab(report::gitlab::issues(r)),
        Format::Jsonl => Part::Text(report::json::lines(r)),
        Format::Pretty | Format::Concise | Format::Github => {
            let mut out = String::new();
            match format {
                Format::Pretty => report::pretty::render(r, style, &mut out),
                Format::Github => report::github::render(r, &mut out),
                _ => report::concise::render(r, &mut out),
            }
            Part::Text(out)
        }
    }
}

/// The parts of one output over all files, in order, as one document;
/// `closing` is the summary line people read after a text report.
pub fn document(
    format: Format,
    parts: Vec<Part>,
    summary: &Summary,
    closing: Option<&str>,
) -> String {
    let mut text = String::new();
    let mut fragments = Vec::new();
    let mut results = Vec::new();
    let mut suites = Vec::new();
    let mut issues = Vec::new();
    for p in parts {
        match p {
            Part::Text(t) => text.push_str(&t),
            Part::Json(f) => fragments.push(f),
            Part::Sarif(v) => results.extend(v),
            Part::Junit(s) => suites.push(s),
            Part::Gitlab(v) => issues.extend(v),
        }
    }
    match format {
        Format::Json => report::json::assemble(fragments.iter().map(String::as_str), summary),
        Format::Sarif => report::sarif::document(&results),
        Format::Junit => report::junit::document(&suites),
        Format::Gitlab => report::gitlab::document(&issues),
        Format::Github | Format::Jsonl => text,
        Format::Pretty | Format::Concise => {
            if let Some(c) = closing {
                text.push_str(c);
                text.push('\n');
            }
            text
        }
    }
}
