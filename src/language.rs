//! Call-language identification (placeholder, being written).
