//! `callint._callint`: the native half of the Python package. The Python
//! half (`python/callint/`) gives it its documented API; everything here
//! is a thin call into the `callint` crate, which the command line runs
//! too, so both find the same.

use std::ffi::OsString;
use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use callint::app::batch::{ConfigChoice, Settings};

/// The allocator the linter is tuned for ([`callint::app::alloc`]); Python's
/// own objects keep Python's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _callint,
    CallintError,
    PyException,
    "A run that callint could not do, or inputs it could not read."
);

/// The input format a name gives (none: told by content).
fn input_format_named(name: Option<&str>) -> PyResult<Option<callint::input::Format>> {
    name.map(callint::input::Format::parse_name)
        .transpose()
        .map_err(CallintError::new_err)
}

/// `check --format FORMAT` over paths and (name, bytes) pairs: the
/// document, the number of findings, the warnings, and the errors (inputs
/// that could not be read; the document holds the rest). A configuration
/// or rule name that stops the run raises `CallintError`.
#[pyfunction]
#[pyo3(signature = (paths, data, format, input_format=None, config=None, no_config=false, select=None, ignore=Vec::new(), jobs=None, merge=true))]
#[allow(clippy::too_many_arguments)]
fn check_document(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    data: Vec<(PathBuf, Vec<u8>)>,
    format: &str,
    input_format: Option<&str>,
    config: Option<PathBuf>,
    no_config: bool,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    jobs: Option<usize>,
    merge: bool,
) -> PyResult<(String, usize, Vec<String>, Vec<String>)> {
    let format = callint::report::Format::parse(format)
        .ok_or_else(|| CallintError::new_err(format!("unknown output format `{format}`")))?;
    let settings = settings(input_format, config, no_config, select, ignore, jobs, merge)?;
    // Linting runs on callint's own threads; other Python threads go on
    // meanwhile.
    let run = py
        .detach(|| callint::cli::check_document(settings, &paths, data, format))
        .map_err(CallintError::new_err)?;
    Ok((run.document, run.findings, run.warnings, run.errors))
}

/// `audit --format json` over paths: the document, the warnings and the
/// errors (inputs that could not be read; the document counts the rest).
/// A configuration, rule name or baseline that stops the run raises
/// `CallintError`.
#[pyfunction]
#[pyo3(signature = (paths, calls=50, baseline=None, input_format=None, config=None, no_config=false, select=None, ignore=Vec::new(), jobs=None, merge=true))]
#[allow(clippy::too_many_arguments)]
fn audit_document(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    calls: usize,
    baseline: Option<PathBuf>,
    input_format: Option<&str>,
    config: Option<PathBuf>,
    no_config: bool,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    jobs: Option<usize>,
    merge: bool,
) -> PyResult<(String, Vec<String>, Vec<String>)> {
    let settings = settings(input_format, config, no_config, select, ignore, jobs, merge)?;
    py.detach(|| callint::cli::audit_document(settings, &paths, calls, baseline.as_deref()))
        .map_err(CallintError::new_err)
}

/// The audit's folder from documents of `audit --format json` (merged):
/// `out/index.html` and the post-mortems of the calls to open first, read
/// again from their logs. The notes of calls that got no page.
#[pyfunction]
#[pyo3(signature = (documents, out, title, calls=50, input_format=None, config=None, no_config=false, select=None, ignore=Vec::new(), jobs=None, merge=true))]
#[allow(clippy::too_many_arguments)]
fn audit_folder(
    py: Python<'_>,
    documents: Vec<String>,
    out: PathBuf,
    title: &str,
    calls: usize,
    input_format: Option<&str>,
    config: Option<PathBuf>,
    no_config: bool,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    jobs: Option<usize>,
    merge: bool,
) -> PyResult<Vec<String>> {
    let settings = settings(input_format, config, no_config, select, ignore, jobs, merge)?;
    py.detach(|| callint::cli::audit_folder(&documents, &out, &settings, calls, title))
        .map_err(CallintError::new_err)
}

/// The settings of a run, as the command line's flags give them.
fn settings(
    input_format: Option<&str>,
    config: Option<PathBuf>,
    no_config: bool,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    jobs: Option<usize>,
    merge: bool,
) -> PyResult<Settings> {
    if jobs == Some(0) {
        return Err(CallintError::new_err("jobs must be 1 or more"));
    }
    Ok(Settings {
        config: ConfigChoice::from_flags(no_config, config.as_deref()),
        select,
        ignore,
        input_format: input_format_named(input_format)?,
        merge,
        jobs,
        ..Settings::default()
    })
}

/// The files `check` reads below `paths` (a file named is itself), in its
/// order, and the paths that cannot be read.
#[pyfunction]
#[pyo3(signature = (paths, no_ignore=false))]
fn walk(paths: Vec<PathBuf>, no_ignore: bool) -> (Vec<PathBuf>, Vec<String>) {
    let w = callint::app::walk::Walk {
        no_ignore,
        threads: 0,
    };
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in &paths {
        w.files(p, &mut files, &mut errors);
    }
    let problems = errors
        .into_iter()
        .filter(|e| e.fatal)
        .map(|e| format!("cannot read {}: {}", e.path.display(), e.error))
        .collect();
    (files, problems)
}

/// `files` cut into groups that can be checked apart, each holding whole
/// calls ([`callint::app::batch::partitions`]).
#[pyfunction]
#[pyo3(signature = (files, input_format=None))]
fn partitions(files: Vec<PathBuf>, input_format: Option<&str>) -> PyResult<Vec<Vec<PathBuf>>> {
    let input_format = input_format_named(input_format)?;
    Ok(callint::app::batch::partitions(&files, input_format))
}

/// The rule catalogue, as `callint rules --format json` prints it.
#[pyfunction]
fn rules_json() -> String {
    callint::cli::rules_json()
}

/// A rule's page, as `callint explain RULE` prints it.
#[pyfunction]
fn explain(rule: &str) -> PyResult<&'static str> {
    callint::cli::explain_page(rule).map_err(CallintError::new_err)
}

/// Run the command line on `argv` (the program's name first) and return
/// its exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| callint::cli::run(argv))
}

#[pymodule]
fn _callint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    callint::app::alloc::tune();
    m.add("CallintError", m.py().get_type::<CallintError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(check_document, m)?)?;
    m.add_function(wrap_pyfunction!(audit_document, m)?)?;
    m.add_function(wrap_pyfunction!(audit_folder, m)?)?;
    m.add_function(wrap_pyfunction!(walk, m)?)?;
    m.add_function(wrap_pyfunction!(partitions, m)?)?;
    m.add_function(wrap_pyfunction!(rules_json, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
