//! The server's addressing rule (placeholder, being written).
