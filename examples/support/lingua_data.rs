//! Finding the `testdata/` folder of one of lingua's language-model crates:
//! through `cargo metadata` where the crate is a dependency, else under
//! `$CARGO_HOME/registry/src` (where `cargo fetch` puts it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `testdata/` folder of `crate_name`, if cargo has the crate.
pub fn testdata(manifest: &Path, crate_name: &str) -> Option<PathBuf> {
    from_metadata(manifest, crate_name).or_else(|| from_registry(crate_name))
}

fn from_metadata(manifest: &Path, crate_name: &str) -> Option<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(manifest)
        .output()
        .ok()?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    json["packages"].as_array()?.iter().find_map(|p| {
        if p["name"].as_str()? != crate_name {
            return None;
        }
        let dir = Path::new(p["manifest_path"].as_str()?)
            .parent()?
            .join("testdata");
        dir.is_dir().then_some(dir)
    })
}

fn from_registry(crate_name: &str) -> Option<PathBuf> {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("HOME").map(|h| Path::new(&h).join(".cargo")))
        .ok()?;
    let mut found = Vec::new();
    for index in std::fs::read_dir(home.join("registry/src")).ok()?.flatten() {
        for krate in std::fs::read_dir(index.path()).ok()?.flatten() {
            let name = krate.file_name().to_string_lossy().into_owned();
            if name.starts_with(crate_name) && krate.path().join("testdata").is_dir() {
                found.push(krate.path().join("testdata"));
            }
        }
    }
    found.sort();
    found.pop()
}
