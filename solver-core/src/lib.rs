//! Impact's explicit core: model in, results out. Meshes and generators, hex8 elements,
//! the elastic material, penalty contact, central-difference integration with the stable
//! increment, the energy balance, stored frames and probes. Plain Rust and rayon: no
//! async, no JSON-RPC, no logging setup.

pub mod assembly;
pub mod contact;
pub mod control;
pub mod error;
pub mod explicit;
pub mod export;
pub mod generate;
pub mod hex8;
pub mod lanes;
pub mod loads;
pub mod material;
pub mod nearest;
pub mod particles;
pub mod persist;
pub mod solution;
pub mod subcycle;
#[cfg(test)]
mod test_support;

pub use control::{Observer, Pause, PauseAt, Progress};
pub use error::{ProbeError, SolveError};
pub use generate::generate;
pub use solution::Solution;

use impact_protocol::Model;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// How a solve runs, beside the model itself.
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Set to true to stop the solve within an increment or two (and release a pause).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Told the progress and, for finite elements, the state at every output.
    pub observer: Option<Arc<dyn Observer>>,
    /// Holds the solve between increments when asked to.
    pub pause: Option<Arc<Pause>>,
}

/// Run a validated model (see `impact_protocol::validate_model`) on the current rayon
/// pool. The result is bit-identical on any number of threads.
pub fn solve(model: &Model, options: &SolveOptions) -> Result<Solution, SolveError> {
    if model.particles.is_some() && model.parts.is_empty() {
        return particles::run(model, options).map(Solution::from_particles);
    }
    // The whole solve runs on a worker of the pool, so its parallel loops need no hop
    // from an outside thread into the pool at every increment.
    rayon::scope(|_| explicit::run(model, options))
}
