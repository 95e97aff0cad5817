//! `callint.toml`: which rules run, at what severity, with which options.
//!
//! ```toml
//! select = ["all"]              # or a list of rule names
//! ignore = ["long-say"]
//! human = "Oliver"              # who is who, when the logs do not say
//! voicebot = "Delta"
//! agents = ["Promo", "opencode"] # the agents among a transcript's speakers
//! servers = ["vh"]              # the voicehook MCP server's name in agents' clients
//! max-repeats = 100             # findings of one rule shown per file (0: all)
//!
//! [guard]
//! servers = ["http://127.0.0.1:7001/mcp"] # the guard's: a name, URL or command
//!
//! [rules.label-too-long]
//! severity = "warning"          # error, warning, info or off
//! max-chars = 22
//!
//! [per-file-ignores]            # rules skipped in the files a pattern matches
//! "prompts/examples/*.md" = ["board-bundle"]
//! ```
//!
//! Each file is checked with the nearest `callint.toml` in its folder or
//! above; patterns are in `.gitignore` syntax, relative to the folder of
//! the file that holds them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::core::diagnostic::Severity;
pub use crate::core::meta::OptValue;
use crate::core::meta::RuleMeta;

pub const FILE_NAME: &str = "callint.toml";

/// A folder as an absolute path without links, to look for configuration
/// files above it; the empty folder (of a bare file name) is the current
/// one. A folder that cannot be resolved is taken as named.
pub fn canonical_folder(folder: &Path) -> PathBuf {
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
}

/// The configuration file in `folder` itself, if there is one.
pub fn in_folder(folder: &Path) -> Option<PathBuf> {
    let file = folder.join(FILE_NAME);
    file.is_file().then_some(file)
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    select: Option<Vec<String>>,
    #[serde(default)]
    ignore: Vec<String>,
    human: Option<String>,
    voicebot: Option<String>,
    #[serde(default)]
    agents: Vec<String>,
    #[serde(default)]
    servers: Vec<String>,
    #[serde(rename = "max-repeats")]
    max_repeats: Option<usize>,
    #[serde(default)]
    rules: BTreeMap<String, toml::Table>,
    #[serde(default, rename = "per-file-ignores")]
    per_file_ignores: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    guard: GuardTable,
}

/// `[guard]`: what only `callint guard` reads.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardTable {
    #[serde(default)]
    servers: Vec<String>,
    /// `false` turns the feedback after a call off (`guard feedback`).
    #[serde(default)]
    feedback: Option<bool>,
}

/// A loaded configuration (the defaults when there is no file).
#[derive(Debug, Default, Clone)]
pub struct Config {
    /// The file it came from.
    pub path: Option<PathBuf>,
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub human: Option<String>,
    pub voicebot: Option<String>,
    /// The agents among a transcript's speakers, when its headers do not
    /// name them.
    pub agents: Vec<String>,
    /// The names under which agents' clients know the voicehook MCP server
    /// (`mcp__vh__say` for `vh`), beside those recognised by their calls.
    pub servers: Vec<String>,
    /// How many findings of one rule a file shows before the rest are
    /// summed up in one (`None`: [`crate::lint::engine::MAX_REPEATS`]; 0: all).
    pub max_repeats: Option<usize>,
    rules: BTreeMap<String, toml::Table>,
    /// Patterns (`.gitignore` syntax, relative to the file's folder) and
    /// the rules skipped in the files they match.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// `[guard] servers`: the voicehook server as the guard's hook input
    /// may tell it, by name, URL or command line
    /// (`app::guard::server::is_voicehook`).
    pub guard_servers: Vec<String>,
    /// `[guard] feedback`: whether `guard feedback` tells the agent what
    /// the call shows after each call (`None`: it does).
    pub guard_feedback: Option<bool>,
}

/// A rule's resolved settings: `severity` is `None` when it is off.
pub struct RuleConfig {
    pub severity: Option<Severity>,
    pub options: BTreeMap<&'static str, OptValue>,
}

#[derive(Debug)]
pub struct ConfigError {
    pub message: String,
}

impl ConfigError {
    pub fn unknown_rule(name: &str) -> ConfigError {
        let hint = crate::rules::closest(name)
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        ConfigError {
            message: format!("unknown rule `{name}`{hint}; `callint rules` lists them"),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Parse the text of a `callint.toml`.
    pub fn parse(text: &str, path: Option<PathBuf>) -> Result<Config, ConfigError> {
        let where_ = path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| FILE_NAME.to_string());
        let file: File = toml::from_str(text).map_err(|e| ConfigError {
            message: format!("{where_}: {}", e.to_string().trim_end()),
        })?;
        for name in file.rules.keys() {
            if crate::rules::meta(name).is_none() {
                let mut e = ConfigError::unknown_rule(name);
                e.message = format!("{where_}: [rules.{name}]: {}", e.message);
                return Err(e);
            }
        }
        let lists = file
            .select
            .iter()
            .flatten()
            .map(|n| ("select", n))
            .chain(file.ignore.iter().map(|n| ("ignore", n)))
            .chain(
                file.per_file_ignores
                    .iter()
                    .flat_map(|(g, v)| v.iter().map(move |n| (g.as_str(), n))),
            );
        for (key, name) in lists {
            if name != "all" && crate::rules::meta(name).is_none() {
                let mut e = ConfigError::unknown_rule(name);
                e.message = format!("{where_}: {key}: {}", e.message);
                return Err(e);
            }
        }
        let config = Config {
            path,
            select: file.select,
            ignore: file.ignore,
            human: file.human,
            voicebot: file.voicebot,
            agents: file.agents,
            servers: file.servers,
            max_repeats: file.max_repeats,
            rules: file.rules,
            per_file_ignores: file.per_file_ignores.into_iter().collect(),
            guard_servers: file.guard.servers,
            guard_feedback: file.guard.feedback,
        };
        // Validate every rule's table now, so a typo fails before linting.
        for name in config.rules.keys() {
            if let Some(meta) = crate::rules::meta(name) {
                config.rule(meta).map_err(|mut e| {
                    e.message = format!("{where_}: {}", e.message);
                    e
                })?;
            }
        }
        Ok(config)
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        Config::parse(&text, Some(path.to_path_buf()))
    }

    /// The nearest `callint.toml` in `start` (a file's folder or a folder)
    /// or any folder above it.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        let start = if start.is_dir() {
            start
        } else {
            start.parent().unwrap_or(Path::new(""))
        };
        canonical_folder(start).ancestors().find_map(in_folder)
    }

    /// What the readers need of the configuration: who is who when a file
    /// does not say, and the names of the voicehook server.
    pub fn read_options(&self) -> crate::input::Options {
        crate::input::Options {
            human: self.human.clone(),
            voicebot: self.voicebot.clone(),
            agents: self.agents.clone(),
            servers: self.servers.clone(),
        }
    }

    /// Whether the file holds a table for the rule `name`.
    pub fn sets_rule(&self, name: &str) -> bool {
        self.rules.contains_key(name)
    }

    /// Severity and options of one rule, checked against what it accepts.
    pub fn rule(&self, meta: &RuleMeta) -> Result<RuleConfig, ConfigError> {
        let mut rc = RuleConfig {
            severity: Some(meta.default_severity),
            options: BTreeMap::new(),
        };
        let Some(table) = self.rules.get(meta.name) else {
            return Ok(rc);
        };
        for (key, value) in table {
            if key == "severity" {
                rc.severity = match value.as_str() {
                    Some("off") => None,
                    Some(s) => Some(Severity::parse(s).ok_or_else(|| ConfigError {
                        message: format!(
                            "[rules.{}] severity must be error, warning, info or off, not {s:?}",
                            meta.name
                        ),
                    })?),
                    None => {
                        return Err(ConfigError {
                            message: format!("[rules.{}] severity must be a string", meta.name),
                        })
                    }
                };
                continue;
            }
            let Some(opt) = meta.options.iter().find(|o| o.name == key) else {
                let known: Vec<&str> = meta.options.iter().map(|o| o.name).collect();
                return Err(ConfigError {
                    message: format!(
                        "[rules.{}] has no option `{key}`; it takes: severity{}{}",
                        meta.name,
                        if known.is_empty() { "" } else { ", " },
                        known.join(", ")
                    ),
                });
            };
            let v = match (&opt.default, value) {
                (OptValue::Int(_), toml::Value::Integer(i)) => OptValue::Int(*i),
                (OptValue::Float(_), toml::Value::Float(f)) => OptValue::Float(*f),
                (OptValue::Float(_), toml::Value::Integer(i)) => OptValue::Float(*i as f64),
                (OptValue::Bool(_), toml::Value::Boolean(b)) => OptValue::Bool(*b),
                (OptValue::Str(_) | OptValue::String(_), toml::Value::String(s)) => {
                    OptValue::String(s.clone())
                }
                (d, v) => {
                    return Err(ConfigError {
                        message: format!(
                            "[rules.{}] {key} must be {}, not {}",
                            meta.name,
                            d.kind(),
                            v.type_str()
                        ),
                    })
                }
            };
            if let OptValue::Int(i) = v {
                if i < 0 {
                    return Err(ConfigError {
                        message: format!("[rules.{}] {key} must not be negative", meta.name),
                    });
                }
            }
            rc.options.insert(opt.name, v);
        }
        Ok(rc)
    }
}
