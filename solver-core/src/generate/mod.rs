//! Mesh generators behind `mesh.generate` and a part's `{"generate": ...}`: the block
//! (equal or graded) and the graded cubed sphere, and the quality report that comes with
//! every generated mesh.

mod block;
pub mod quality;
mod sphere;

pub use quality::quality;

use impact_protocol::{GenerateSpec, Mesh};

/// Build the mesh a validated spec describes.
pub fn generate(spec: &GenerateSpec) -> Mesh {
    match spec {
        GenerateSpec::Block(b) => block::block(b),
        GenerateSpec::Sphere(s) => sphere::sphere(s),
    }
}
