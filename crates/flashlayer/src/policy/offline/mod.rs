//! Policies that see the whole trace in advance: Belady's MIN and the
//! cheapest schedule the cost-optimal bound's planner finds. They run only
//! on a trace's replay.

mod belady;
mod costopt;

pub use belady::Belady;
pub use costopt::{CostOpt, Future, Schedule, ScheduleCosts, DEFAULT_ITERATIONS};
