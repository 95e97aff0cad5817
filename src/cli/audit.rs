//! `callint audit PATH... --html DIR`: a batch audit one can look at.
//!
//! The files are linted as `check` lints them ([`crate::app::audit`]); the
//! numbers go to `DIR/index.html` ([`crate::report::audit_page::page`]) and, with
//! `--format json`, out as a document. The calls to open first get their
//! post-mortem pages, as `callint report --html` writes them, in
//! `DIR/calls/`, written on every core.

use std::path::{Path, PathBuf};

use crate::app::batch::{ConfigChoice, Settings};
use crate::core::escape::{file_name, one_line};
use crate::report::audit::Audit;

use super::{emit, fail, warn};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  callint audit logs/ --html audit/             the page: audit/index.html
  callint audit logs/ --html audit/ --baseline callint-baseline.json
  callint audit logs/ --format json -o audit.json
  callint audit --from-json part-1.json part-2.json --html audit/")]
pub struct AuditArgs {
    /// Files or folders to audit [default: .], as `check` reads them.
    paths: Vec<PathBuf>,
    /// Write the audit into this folder: index.html, and the post-mortems
    /// of the calls to open first in calls/.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Print the audit's numbers as JSON (`json`, the only format).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    format: Option<String>,
    /// Write the JSON here instead of to standard output.
    #[arg(long, short, value_name = "FILE", requires = "format")]
    output_file: Option<PathBuf>,
    /// How many calls to list first (most errors, then most findings);
    /// each rule's and each agent's 3 calls with most findings of it are
    /// listed as well. Each listed call gets its post-mortem page.
    #[arg(long, value_name = "N", default_value_t = 50)]
    calls: usize,
    /// Build the audit from these documents of `audit --format json` (the
    /// parts of a folder audited apart, each holding whole calls) instead
    /// of linting.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "paths")]
    from_json: Vec<PathBuf>,
    /// Count only the findings this baseline does not list, and show its
    /// entries that matched nothing as fixed.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Read every input as this format (see `check --help`).
    #[arg(long, value_name = "FORMAT", value_parser = crate::input::Format::parse_name)]
    input_format: Option<crate::input::Format>,
    /// Run only these rules (comma-separated; `all` for every rule).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    select: Option<Vec<String>>,
    /// Skip these rules (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    ignore: Vec<String>,
    /// Use this configuration file instead of the nearest callint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every callint.toml.
    #[arg(long)]
    no_config: bool,
    /// Lint every file again, without the cache of unchanged files.
    #[arg(long)]
    no_cache: bool,
    /// Keep the cache of unchanged files' findings here.
    #[arg(long, value_name = "DIR", default_value = crate::app::cache::DIR)]
    cache_dir: PathBuf,
    /// Lint this many files at once [default: all cores].
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Also read hidden files and files named in .gitignore or .ignore files.
    #[arg(long)]
    no_ignore: bool,
    /// Lint each file on its own: no room of several logs of one call.
    #[arg(long)]
    no_merge: bool,
    /// Findings of one rule listed per file before the rest are summed up
    /// [default: 100, or `max-repeats` of callint.toml]; 0 lists all.
    #[arg(long, value_name = "N")]
    max_repeats: Option<usize>,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    exit_zero: bool,
    /// Say nothing on standard error but warnings and errors.
    #[arg(long, short)]
    quiet: bool,
}

/// The settings of an audit, as `check` takes them from the same flags.
fn settings(args: &AuditArgs) -> Settings {
    Settings {
        config: ConfigChoice::from_flags(args.no_config, args.config.as_deref()),
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        max_repeats: args.max_repeats,
        input_format: args.input_format,
        merge: !args.no_merge,
        no_ignore: args.no_ignore,
        jobs: args.jobs.map(usize::from),
        cache_dir: (!args.no_cache).then(|| args.cache_dir.clone()),
        stdin_name: None,
    }
}

/// Run `callint audit`; the exit code: 2 when it could not do its work
/// (or not read every input), 1 when a finding is an error, else 0.
pub fn run(mut args: AuditArgs) -> u8 {
    if args.html.is_none() && args.format.is_none() {
        return fail("audit writes --html DIR, --format json, or both");
    }
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        return fail("audit reads files and folders, not standard input");
    }
    let settings = settings(&args);
    let mut failed = false;
    let (mut audit, title) = if args.from_json.is_empty() {
        if args.paths.is_empty() {
            args.paths.push(PathBuf::from("."));
        }
        let mut batch = crate::app::batch::Batch::new(settings.clone());
        for p in &args.paths {
            if let Err(e) = batch.add(p) {
                return fail(e);
            }
        }
        let out = match crate::app::audit::run(batch, args.calls, args.baseline.as_deref()) {
            Ok(o) => o,
            Err(e) => return fail(e),
        };
        for p in &out.problems {
            if p.fatal {
                warn(format_args!("error: {}", p.message));
                failed = true;
            } else {
                warn(format_args!("warning: {}", p.message));
            }
        }
        for e in &out.errors {
            warn(format_args!("error: {e}"));
            failed = true;
        }
        (out.audit, title_of(&args.paths))
    } else {
        if args.baseline.is_some() {
            return fail("--baseline is applied when linting; the documents of --from-json were made with theirs");
        }
        let mut parts = Vec::new();
        for f in &args.from_json {
            let text = match std::fs::read_to_string(f) {
                Ok(t) => t,
                Err(e) => {
                    return fail(format_args!(
                        "cannot read {}: {e}",
                        file_name(&f.to_string_lossy())
                    ))
                }
            };
            match Audit::from_json(&text) {
                Ok(a) => parts.push(a),
                Err(e) => return fail(format_args!("{}: {e}", file_name(&f.to_string_lossy()))),
            }
        }
        (Audit::merge(parts, args.calls), title_of(&args.from_json))
    };
    if let Some(dir) = &args.html {
        match write_folder(&mut audit, dir, &settings, &title) {
            Ok(notes) => {
                for n in notes {
                    warn(format_args!("warning: {n}"));
                }
                if !args.quiet {
                    warn(format_args!(
                        "audit of {} call{} written to {}",
                        audit.calls,
                        if audit.calls == 1 { "" } else { "s" },
                        file_name(&dir.join("index.html").to_string_lossy())
                    ));
                }
            }
            Err(e) => {
                warn(format_args!("error: {e}"));
                failed = true;
            }
        }
    }
    let mut stdout = String::new();
    if args.format.is_some() {
        let doc = audit.to_json();
        match &args.output_file {
            Some(p) => {
                if let Err(e) = std::fs::write(p, doc) {
                    warn(format_args!(
                        "error: cannot write {}: {e}",
                        file_name(&p.to_string_lossy())
                    ));
                    failed = true;
                }
            }
            None => stdout = doc,
        }
    }
    let errors = audit.by_severity.get("error").copied().unwrap_or(0);
    let code = if failed {
        2
    } else if errors > 0 && !args.exit_zero {
        1
    } else {
        0
    };
    emit(stdout.as_bytes(), code)
}

/// What the page's title names: the one path, or how many.
fn title_of(paths: &[PathBuf]) -> String {
    match paths {
        [one] => one.to_string_lossy().into_owned(),
        many => format!("{} paths", many.len()),
    }
}

/// The name of the `k`th call's page: its rank and the call's key in
/// plain characters.
fn page_name(k: usize, key: &str) -> String {
    let base = key.rsplit(['/', '\\']).next().unwrap_or(key);
    let mut slug: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(48)
        .collect();
    slug = slug.trim_matches('-').to_string();
    if slug.is_empty() {
        format!("calls/{:04}.html", k + 1)
    } else {
        format!("calls/{:04}-{slug}.html", k + 1)
    }
}

/// Write the audit into `dir`: the post-mortem of each call to open first
/// (on every core; a call whose logs cannot be read again gets no page,
/// and a note), then `index.html`, which links to them. The notes, or why
/// the folder could not be written.
pub fn write_folder(
    audit: &mut Audit,
    dir: &Path,
    settings: &Settings,
    title: &str,
) -> Result<Vec<String>, String> {
    use rayon::prelude::*;
    let shown = |p: &Path| file_name(&p.to_string_lossy());
    let calls = dir.join("calls");
    std::fs::create_dir_all(&calls).map_err(|e| format!("cannot make {}: {e}", shown(&calls)))?;
    // Pages an earlier audit wrote here, which this one may not.
    if let Ok(old) = std::fs::read_dir(&calls) {
        for e in old.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.len() > 5
                && name.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                && name.ends_with(".html")
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let threads = settings.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let written: Vec<Result<String, String>> = pool.install(|| {
        audit
            .top
            .par_iter()
            .enumerate()
            .with_max_len(1)
            .map(|(k, row)| {
                let files: Vec<PathBuf> = row.files.iter().map(PathBuf::from).collect();
                let html = super::postmortem::call_page(settings, &files, row.call.as_deref())
                    .map_err(|e| format!("no post-mortem of {}: {e}", one_line(&row.key)))?;
                let name = page_name(k, &row.key);
                std::fs::write(dir.join(&name), html)
                    .map_err(|e| format!("cannot write {}: {e}", shown(&dir.join(&name))))?;
                Ok(name)
            })
            .collect()
    });
    let mut notes = Vec::new();
    for (row, w) in audit.top.iter_mut().zip(written) {
        match w {
            Ok(name) => row.page = Some(name),
            Err(e) => notes.push(e),
        }
    }
    let index = dir.join("index.html");
    std::fs::write(&index, crate::report::audit_page::page(audit, title))
        .map_err(|e| format!("cannot write {}: {e}", shown(&index)))?;
    Ok(notes)
}

/// `audit --format json`, as a library call: the document of an audit of
/// `paths` with `pick` calls to open first (and a `baseline`), the
/// warnings, and the inputs that could not be read. The error stops the
/// run before anything is linted (a configuration, a rule name, a
/// baseline).
pub fn audit_document(
    settings: Settings,
    paths: &[PathBuf],
    pick: usize,
    baseline: Option<&Path>,
) -> Result<(String, Vec<String>, Vec<String>), String> {
    let mut batch = crate::app::batch::Batch::new(settings);
    if paths.is_empty() {
        batch.add(Path::new("."))?;
    }
    for p in paths {
        if p.as_os_str() == "-" {
            return Err("audit reads files and folders, not standard input".into());
        }
        batch.add(p)?;
    }
    let out = crate::app::audit::run(batch, pick, baseline)?;
    let mut warnings = Vec::new();
    let mut errors = out.errors;
    for p in out.problems {
        if p.fatal {
            errors.push(p.message);
        } else {
            warnings.push(p.message);
        }
    }
    Ok((out.audit.to_json(), warnings, errors))
}

/// `audit --from-json DOCS... --html DIR`, as a library call: the audit
/// of the documents (merged; parts audited apart, each holding whole
/// calls) written into `dir`, with the post-mortems of the calls to open
/// first, read again from their logs with `settings`. The notes (calls
/// whose logs could not be read again), or why nothing was written.
pub fn audit_folder(
    documents: &[String],
    dir: &Path,
    settings: &Settings,
    pick: usize,
    title: &str,
) -> Result<Vec<String>, String> {
    let parts = documents
        .iter()
        .map(|d| Audit::from_json(d))
        .collect::<Result<Vec<_>, _>>()?;
    let mut audit = Audit::merge(parts, pick);
    write_folder(&mut audit, dir, settings, title)
}

#[cfg(test)]
mod tests {
    use super::page_name;

    #[test]
    fn page_names_are_plain() {
        assert_eq!(page_name(0, "c-7f3k2q"), "calls/0001-c-7f3k2q.html");
        assert_eq!(
            page_name(11, "logs/a b/<x>.jsonl"),
            "calls/0012-x--jsonl.html"
        );
        assert_eq!(page_name(2, "../.."), "calls/0003.html");
    }
}
