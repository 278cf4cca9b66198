//! SHARDS placeholder
