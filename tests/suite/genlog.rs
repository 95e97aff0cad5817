//! The generator of the benchmarks' long calls (`benches/support/genlog.rs`):
//! its clock, which a long call relies on to stay in time order.

#[allow(dead_code)]
#[path = "../../benches/support/genlog.rs"]
mod generator;
