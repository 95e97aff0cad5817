//! What runs linting for a user: a batch over many inputs, the cache, the
//! folder walk, `--follow`, the guard, the language server, the allocator set-up, and the
//! harness the fuzz targets and property tests share.

pub mod alloc;
pub mod audit;
pub mod batch;
pub mod cache;
pub mod follow;
pub mod guard;
#[doc(hidden)]
pub mod harness;
pub mod proxy;
pub mod server;
pub mod walk;
