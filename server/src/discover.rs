//! `rpc.discover`: the OpenRPC 1.3 document of every method, its params (by name) and
//! result, with JSON Schemas generated from the protocol's types (schemars), never
//! written by hand. Shared schemas sit under `components/schemas`.

use impact_protocol as p;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{json, Map, Value};

struct Doc {
    generator: SchemaGenerator,
    methods: Vec<Value>,
}

impl Doc {
    /// A method whose params are the properties of the object `P`.
    fn method<P: JsonSchema, R: JsonSchema>(&mut self, name: &str, summary: &str) {
        let params_ref = self.generator.subschema_for::<P>();
        let params = self.params_of(&params_ref);
        let result = self.generator.subschema_for::<R>();
        self.push(name, summary, params, result);
    }

    /// A method without params.
    fn method_no_params<R: JsonSchema>(&mut self, name: &str, summary: &str) {
        let result = self.generator.subschema_for::<R>();
        self.push(name, summary, Vec::new(), result);
    }

    fn push(&mut self, name: &str, summary: &str, params: Vec<Value>, result: schemars::Schema) {
        self.methods.push(json!({
            "name": name,
            "summary": summary,
            "paramStructure": "by-name",
            "params": params,
            "result": {"name": format!("{name}.result"), "schema": result},
        }));
    }

    /// One OpenRPC param per property of the params object (its schema may be a $ref).
    fn params_of(&self, schema: &schemars::Schema) -> Vec<Value> {
        let value = schema.as_value();
        let object = value
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| self.generator.definitions().get(name))
            .unwrap_or(value);
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let empty = Map::new();
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        properties
            .iter()
            .map(|(name, schema)| {
                json!({
                    "name": name,
                    "required": required.contains(&name.as_str()),
                    "schema": schema,
                })
            })
            .collect()
    }
}

/// The whole document.
pub fn document() -> Value {
    let generator = SchemaSettings::openapi3()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .into_generator();
    let mut d = Doc {
        generator,
        methods: Vec::new(),
    };
    d.method::<p::SolveParams, p::ServedSummary>(
        p::METHOD_SOLVE,
        "Solve a model and answer its summary when done (cached: an earlier job's).",
    );
    d.method::<p::SolveParams, p::SubmitResult>(
        p::METHOD_SUBMIT,
        "Queue a model and answer its job at once.",
    );
    d.method::<p::ProbeParams, p::ProbeResult>(
        p::METHOD_PROBE,
        "Nodes or spheres of a job's result, or of a running job's latest output.",
    );
    d.method::<p::HistoryParams, p::HistoryResult>(
        p::METHOD_HISTORY,
        "A finished job's contact forces and energy terms against time.",
    );
    d.method::<p::ExportParams, p::ExportResult>(
        p::METHOD_EXPORT,
        "A finished job's result as VTK XML files for ParaView (.vtu or .vtp per frame, a .pvd series), served at GET /export/{job}/{name}.",
    );
    // mesh.generate's params are a tagged GenerateSpec as a whole, not one object's
    // properties: give its schema whole, in an extension field.
    let spec = d.generator.subschema_for::<p::GenerateSpec>();
    let result = d.generator.subschema_for::<p::MeshGenerateResult>();
    d.push(
        p::METHOD_MESH_GENERATE,
        "Generate a mesh from a few parameters (params: a GenerateSpec, tagged by kind).",
        Vec::new(),
        result,
    );
    if let Some(m) = d.methods.last_mut() {
        m["x-params-schema"] = json!(spec);
    }
    d.method::<p::MeshImportParams, p::MeshImportResult>(
        p::METHOD_MESH_IMPORT,
        "A Gmsh .msh 4.1 (ASCII) or Abaqus .inp text as a hex8 mesh with its node, element and face sets.",
    );
    d.method::<p::JobParams, p::JobStatus>(p::METHOD_JOB_STATUS, "A job's state and progress.");
    d.method::<p::WaitParams, p::JobStatus>(
        p::METHOD_JOB_WAIT,
        "Wait for a job to end, at most timeout seconds.",
    );
    d.method::<p::JobParams, p::JobStatus>(p::METHOD_JOB_CANCEL, "Stop a queued or running job.");
    d.method::<p::ListParams, p::JobList>(p::METHOD_JOB_LIST, "All jobs, or those in one state.");
    d.method::<p::PauseParams, p::JobStatus>(
        p::METHOD_JOB_PAUSE,
        "Hold a running job now, at a simulated time or at an increment.",
    );
    d.method::<p::JobParams, p::JobStatus>(p::METHOD_JOB_RESUME, "Let a paused job go on.");
    d.method::<p::JobParams, p::JobStatus>(
        p::METHOD_JOB_SUBSCRIBE,
        "WebSocket only: job.progress notifications (JobStatus) until the job ends.",
    );
    d.method_no_params::<p::ServiceInfo>(
        p::METHOD_SERVER_INFO,
        "Name, version, methods, limits and capabilities.",
    );
    d.method_no_params::<Value>(p::METHOD_RPC_DISCOVER, "This document.");
    let schemas = d.generator.take_definitions(true);
    json!({
        "openrpc": "1.3.2",
        "info": {
            "title": "Impact",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Explicit impact and contact solves as a JSON-RPC 2.0 service.",
        },
        "methods": d.methods,
        "components": {"schemas": schemas},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ref_resolves_and_solve_takes_a_model() {
        let doc = document();
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"].as_object().expect("schemas");
        for piece in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = piece.split('"').next().expect("a name");
            assert!(schemas.contains_key(name), "dangling $ref to {name}");
        }
        let solve = doc["methods"]
            .as_array()
            .expect("methods")
            .iter()
            .find(|m| m["name"] == "solve")
            .expect("solve");
        assert_eq!(solve["params"][0]["name"], "model");
        assert_eq!(solve["params"][0]["required"], true);
    }
}
