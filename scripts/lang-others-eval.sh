#!/usr/bin/env bash
# Fetch lingua's public test data for English, German and ten other
# languages (the `testdata/` folders of its language-model crates, by
# `cargo fetch` into cargo's registry) and run examples/langothers on it:
# how often `wrong-language` reports a say in another language, and names
# the language rightly.
#
#   scripts/lang-others-eval.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/target/lang-testdata"
mkdir -p "$dir/src"
{
    echo '[package]'
    echo 'name = "lang-testdata"'
    echo 'version = "0.0.0"'
    echo 'edition = "2021"'
    echo 'publish = false'
    echo '[workspace]'
    echo '[dependencies]'
    for lang in english german french spanish italian dutch portuguese polish russian turkish swedish japanese; do
        echo "lingua-$lang-language-model = \"=1.3.0\""
    done
} > "$dir/Cargo.toml"
: > "$dir/src/lib.rs"
cargo fetch --manifest-path "$dir/Cargo.toml" --quiet
cd "$root"
exec cargo run --release --locked --example langothers
