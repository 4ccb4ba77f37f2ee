//! The oracle harness: verification cases (theory, experiment or a peer code against the
//! solver) read from `tests/oracle/<case>/{case.json,model.json}` in the format of
//! DESIGN.md, measured through any [`Measurer`] (a server, the in-process core), and
//! reported one row per quantity with a tally.

pub mod case;
pub mod evaluate;
pub mod measurers;
pub mod report;

#[cfg(test)]
mod tests;

pub use case::{discover, load, Case, CaseError, Kind, Measure, Over, Quantity, Source, Tolerance};
pub use evaluate::{run_case, MeasureError, Measurer, Row, Verdict};
pub use measurers::{LocalMeasurer, RemoteMeasurer};
pub use report::{run, Report};
