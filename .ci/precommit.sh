#!/usr/bin/env bash
# The pre-commit hook as its users get it: `pre-commit try-repo` of this
# repository (its working tree as it is) runs as the pre-commit hook of a
# scratch git repository. Committing a bad prompt must be refused, with the
# output pointing at the offending lines; committing a good one must go
# through. Needs git and pre-commit (`python3 -m pip install pre-commit`).
#
# With `--wheel WHEEL`, the hook is the one the README gives for the wheel
# instead: a `local` hook of `language: python` that pip-installs the wheel,
# with the same entry and files as .pre-commit-hooks.yaml; no build at all.
set -euo pipefail
wheel=
if [ "${1:-}" = --wheel ]; then
  wheel=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
if ! "$python" -m pre_commit --version >/dev/null 2>&1; then
  echo "pre-commit is not installed: $python -m pip install pre-commit" >&2
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# pre-commit builds the hook with `cargo install --path`; a shared target
# folder reuses what the build before it compiled.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export PRE_COMMIT_HOME="$scratch/cache"

# The hook's repository: this working tree as it is (tracked and new files,
# not ignored ones), committed, so the test does not depend on what has been
# committed yet.
src="$scratch/callint"
mkdir -p "$src"
(cd "$repo" && git ls-files -z -c -o --exclude-standard) |
  while IFS= read -r -d '' f; do
    if [ -f "$repo/$f" ]; then
      mkdir -p "$src/$(dirname "$f")"
      cp -p "$repo/$f" "$src/$f"
    fi
  done
git -C "$src" init -q
git -C "$src" add -A
git -C "$src" -c user.email=ci@callint.invalid -c user.name="callint CI" \
  -c commit.gpgsign=false commit -q -m "callint under test"

git init -q "$scratch/work"
cd "$scratch/work"
git config user.email ci@callint.invalid
git config user.name "callint CI"
git config commit.gpgsign false
if [ -z "$wheel" ]; then
  # pre-commit builds the hook with `cargo install`, which resolves the
  # dependencies afresh (it does not read Cargo.lock), so the builds before
  # it are not reused. This test is about the hook installing and refusing
  # a bad prompt, not about its speed on two small files: it is built
  # without optimization, in less than half the time.
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_INCREMENTAL=0
  # What `pre-commit install` would set up, with this repository as the hook.
  cat > .git/hooks/pre-commit <<EOF
#!/usr/bin/env bash
exec "$python" -m pre_commit try-repo "$src" callint --color never
EOF
  chmod +x .git/hooks/pre-commit
else
  "$python" - "$repo/.pre-commit-hooks.yaml" "$wheel" > .pre-commit-config.yaml <<'EOF'
import json, sys, yaml
hook = yaml.safe_load(open(sys.argv[1]))[0]
hook.update(language="python", additional_dependencies=[sys.argv[2]])
print(json.dumps({"repos": [{"repo": "local", "hooks": [hook]}]}))
EOF
  git add .pre-commit-config.yaml
  git commit -q -m "Check with callint" --no-verify
  "$python" -m pre_commit install --color never >/dev/null
fi

fail() {
  echo "pre-commit test: $*" >&2
  exit 1
}

mkdir -p skills
cp "$repo/corpus/prompts/bad-prompt.md" skills/SKILL.md
git add skills/SKILL.md
set +e
git commit -q -m "Add the release skill" >"$scratch/bad.txt" 2>&1
code=$?
set -e
cat "$scratch/bad.txt"
[ "$code" -ne 0 ] || fail "the commit of a bad prompt went through"
[ "$(git rev-list --count HEAD 2>/dev/null || echo 0)" = "$([ -n "$wheel" ] && echo 1 || echo 0)" ] ||
  fail "a commit was made"
grep -q 'skills/SKILL.md:8:12: error\[label-too-long\]' "$scratch/bad.txt" ||
  fail "the output does not point at the label (line 8, column 12)"
grep -q 'skills/SKILL.md:46:5: error\[timeout-events-dropped\]' "$scratch/bad.txt" ||
  fail "the output does not point at the helper's timeout skip (line 46)"

cp "$repo/corpus/prompts/good-prompt.md" skills/SKILL.md
git add skills/SKILL.md
git commit -q -m "Add the release skill" >"$scratch/good.txt" 2>&1 ||
  { cat "$scratch/good.txt"; fail "the commit of a good prompt was refused"; }
[ "$(git rev-list --count HEAD)" = "$([ -n "$wheel" ] && echo 2 || echo 1)" ] ||
  fail "no commit was made"
echo "pre-commit test${wheel:+ (the wheel)}: the bad prompt was refused at its lines, the good one was committed"
