//! The language Impact speaks: the model schema, every method's params and results, and
//! the error codes. Data and validation only: no solver, no async runtime, no I/O.

pub mod error;
pub mod export;
pub mod grading;
pub mod import;
pub mod mesh;
pub mod methods;
pub mod model;
pub mod particles;
pub mod pointer;
pub mod service;
pub mod validate;

pub use error::{codes, ErrorData};
pub use export::{export_url, ExportFile, ExportParams, ExportResult, METHOD_EXPORT};
pub use import::{
    import as import_mesh, ImportError, Imported, MeshFormat, MeshImportParams, MeshImportResult,
    METHOD_MESH_IMPORT,
};
pub use mesh::{BlockSpec, GenerateSpec, HalfSpace, Mesh, MeshQuality, SphereSpec, HEX8_FACES};
pub use methods::*;
pub use model::*;
pub use particles::{validate_particles, ParticleSummary, Particles, ProbedParticle};
pub use pointer::Pointer;
pub use service::*;
pub use validate::{parse_params, validate_model, InvalidParams};
