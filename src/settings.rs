//! Which configuration each file is checked with: the nearest
//! `callint.toml` above it, as `--config` and `--no-config` allow, and
//! what `check --show-settings` prints of it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use callint::config::Config;
use callint::engine::Linter;

use crate::CheckArgs;

/// The nearest configuration file of each folder asked about, found once.
#[derive(Default)]
pub struct Nearest {
    by_folder: HashMap<PathBuf, Option<PathBuf>>,
}

impl Nearest {
    /// The configuration file for `path` (a file or a folder).
    pub fn config_for(&mut self, args: &CheckArgs, path: &Path) -> Option<PathBuf> {
        if args.no_config {
            return None;
        }
        if let Some(c) = &args.config {
            return Some(c.clone());
        }
        let folder = if path.is_dir() {
            path.to_path_buf()
        } else {
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        self.by_folder
            .entry(folder)
            .or_insert_with_key(|f| Config::discover(&f.join("-")))
            .clone()
    }
}

/// The configuration of `config_path` (the defaults for none), with the
/// command line's changes.
pub fn load(config_path: Option<&Path>, args: &CheckArgs) -> Result<Config, String> {
    let mut config = match config_path {
        Some(p) => Config::load(p).map_err(|e| e.to_string())?,
        None => Config::default(),
    };
    if args.max_repeats.is_some() {
        config.max_repeats = args.max_repeats;
    }
    Ok(config)
}

/// Everything besides a file's bytes and name that changes what linting
/// it finds, as the cache keys its entries by: the resolved configuration
/// and the command line's rule choices and input format.
pub fn describe(config_path: Option<&Path>, args: &CheckArgs) -> String {
    let config = load(config_path, args)
        .map(|c| format!("{c:?}"))
        .unwrap_or_default();
    format!(
        "{config}|select={:?}|ignore={:?}|input={:?}",
        args.select, args.ignore, args.input_format
    )
}

/// The index in `linters` of the linter for `config_path`, made on first
/// use.
pub fn slot(
    linters: &mut Vec<(Option<PathBuf>, Linter)>,
    config_path: Option<PathBuf>,
    args: &CheckArgs,
) -> Result<usize, String> {
    if let Some(k) = linters.iter().position(|(p, _)| *p == config_path) {
        return Ok(k);
    }
    let config = load(config_path.as_deref(), args)?;
    let linter =
        Linter::new(&config, args.select.as_deref(), &args.ignore).map_err(|e| e.to_string())?;
    linters.push((config_path, linter));
    Ok(linters.len() - 1)
}

/// `check --show-settings FILE`: the settings `file` is checked with, and
/// where each comes from: the configuration file, the command line, or
/// the defaults.
pub fn show(args: &CheckArgs, file: &Path) -> Result<String, String> {
    use std::fmt::Write;
    let config_path = Nearest::default().config_for(args, file);
    let config = load(config_path.as_deref(), args)?;
    let linter =
        Linter::new(&config, args.select.as_deref(), &args.ignore).map_err(|e| e.to_string())?;
    let from_file = config_path
        .as_deref()
        .map_or_else(|| "defaults".to_string(), |p| p.display().to_string());
    let source = |set_in_file: bool, cli: bool| -> &str {
        if cli {
            "command line"
        } else if set_in_file {
            &from_file
        } else {
            "default"
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "file: {}", file.display());
    let _ = writeln!(
        out,
        "configuration: {}",
        config_path.as_deref().map_or_else(
            || "none (the defaults)".to_string(),
            |p| p.display().to_string()
        )
    );
    let list = |v: &[String]| format!("[{}]", v.join(", "));
    let select = args.select.clone().or_else(|| config.select.clone());
    let _ = writeln!(
        out,
        "select = {}  # {}",
        select.as_deref().map_or_else(|| "[all]".to_string(), list),
        source(config.select.is_some(), args.select.is_some())
    );
    let mut ignore = config.ignore.clone();
    ignore.extend(args.ignore.iter().cloned());
    let _ = writeln!(
        out,
        "ignore = {}  # {}",
        list(&ignore),
        source(!config.ignore.is_empty(), !args.ignore.is_empty())
    );
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "(from the logs)".into());
    let _ = writeln!(
        out,
        "human = {}  # {}",
        opt(&config.human),
        source(config.human.is_some(), false)
    );
    let _ = writeln!(
        out,
        "voicebot = {}  # {}",
        opt(&config.voicebot),
        source(config.voicebot.is_some(), false)
    );
    let _ = writeln!(
        out,
        "servers = {}  # {}",
        list(&config.servers),
        source(!config.servers.is_empty(), false)
    );
    let _ = writeln!(
        out,
        "max-repeats = {}  # {}",
        config.max_repeats.unwrap_or(callint::engine::MAX_REPEATS),
        source(config.max_repeats.is_some(), args.max_repeats.is_some())
    );
    let skipped = linter.ignored_in(&file.to_string_lossy());
    for (rule, glob) in &skipped {
        let _ = writeln!(out, "per-file-ignores: {rule}  # {glob:?} in {from_file}");
    }
    let _ = writeln!(out, "\nrules:");
    for m in callint::rules::catalogue() {
        let rc = config.rule(m).map_err(|e| e.to_string())?;
        let skipped_here = skipped.iter().any(|(r, _)| *r == m.name || *r == "all");
        let on = linter.is_active(m.name) && !skipped_here;
        let severity = match (on, rc.severity) {
            (true, Some(s)) => s.name(),
            _ => "off",
        };
        let in_cli = args
            .select
            .iter()
            .flatten()
            .chain(&args.ignore)
            .any(|n| n == m.name);
        let in_file = config.sets_rule(m.name)
            || config.ignore.iter().any(|n| n == m.name)
            || config.select.iter().flatten().any(|n| n == m.name)
            || skipped_here;
        let mut line = format!("  {:<28} {severity:<8}", m.name);
        for o in m.options {
            let v = rc.options.get(o.name).unwrap_or(&o.default);
            let _ = write!(line, " {}={v}", o.name);
        }
        let _ = writeln!(out, "{line}  # {}", source(in_file, in_cli));
    }
    Ok(out)
}
