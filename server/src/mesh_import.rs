//! `mesh.import`: a Gmsh or Abaqus file's text (parsed by the protocol) checked for
//! element shapes by the core and answered as `mesh.generate` answers. Every refusal is a
//! -32602 at `/text` whose data names the file's line.

use crate::errors::RpcError;
use crate::rpc::{guarded, parse};
use impact_protocol::{
    import_mesh, ImportError, InvalidParams, MeshImportParams, MeshImportResult, Pointer,
};
use jsonrpsee::types::Params;

// Above this many bytes of text the parse leaves the runtime's threads (about a
// millisecond of parsing).
const IMPORT_OFF_RUNTIME_BYTES: usize = 64 * 1024;

/// The -32602 for a file that cannot be imported: pointer `/text`, `data.line`.
pub fn import_error(e: ImportError) -> RpcError {
    let mut err = RpcError::invalid_params(InvalidParams::new(
        &Pointer::root().at("text"),
        e.to_string(),
    ));
    err.data.line = Some(e.line as u64);
    err
}

pub async fn mesh_import(params: Params<'static>) -> Result<MeshImportResult, RpcError> {
    let p: MeshImportParams = parse(&params)?;
    guarded(p.text.len() > IMPORT_OFF_RUNTIME_BYTES, move || {
        let imported = import_mesh(p.format, &p.text).map_err(import_error)?;
        let mesh = imported.mesh;
        for (e, conn) in mesh.elements.iter().enumerate() {
            let x = conn.map(|n| mesh.nodes[n as usize]);
            if let Some(fault) = impact_core::assembly::shape_fault(&x) {
                return Err(import_error(ImportError {
                    line: imported.element_lines[e],
                    reason: format!("element {e} (the file's element on this line) is {fault}"),
                }));
            }
        }
        Ok(MeshImportResult {
            nodes: mesh.nodes.len(),
            elements: mesh.elements.len(),
            element_sets: imported.element_sets,
            quality: impact_core::generate::quality(&mesh),
            dropped_nodes: imported.dropped_nodes,
            mesh,
        })
    })
    .await
}
