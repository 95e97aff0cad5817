//! Which configuration each file is checked with: the nearest
//! `callint.toml` above it, as `--config` and `--no-config` allow, and
//! what `check --show-settings` prints of it.

use std::path::Path;

use crate::app::batch::{ConfigChoice, Settings};

use super::CheckArgs;

/// The settings of a `check` run, as its command line gives them.
pub fn batch(args: &CheckArgs) -> Settings {
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
        stdin_name: args.stdin_filename.clone(),
    }
}

/// `check --show-settings FILE`: the settings `file` is checked with, and
/// where each comes from: the configuration file, the command line, or
/// the defaults.
pub fn show(args: &CheckArgs, file: &Path) -> Result<String, String> {
    use std::fmt::Write;
    let settings = batch(args);
    let config_path = settings.config_path(file);
    let config = settings.load(config_path.as_deref())?;
    let linter = settings.linter(config_path.as_deref())?;
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
        config
            .max_repeats
            .unwrap_or(crate::lint::engine::MAX_REPEATS),
        source(config.max_repeats.is_some(), args.max_repeats.is_some())
    );
    let skipped = linter.ignored_in(&file.to_string_lossy());
    for (rule, glob) in &skipped {
        let _ = writeln!(out, "per-file-ignores: {rule}  # {glob:?} in {from_file}");
    }
    let _ = writeln!(out, "\nrules:");
    for m in crate::rules::catalogue() {
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
