//! Fuzz the way every `solve` request is read: `parse_params` into `SolveParams` (a wrong
//! type names its JSON pointer) and `validate_model` on whatever parses. Neither may
//! panic, and every error must carry a JSON pointer under the params.
//!
//! Run (nightly, or RUSTC_BOOTSTRAP=1 on stable):
//!     cargo fuzz run parse_model corpus/parse_model ../tests/oracle -- -max_total_time=60
//! (the oracle cases' models seed the corpus; new inputs go to corpus/parse_model).

#![no_main]

use impact_protocol::{parse_params, validate_model, Pointer, SolveParams};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_params::<SolveParams>(text) {
        Ok(p) => {
            if let Err(e) = validate_model(&p.model, &Pointer::root().at("model")) {
                assert!(
                    e.pointer.starts_with("/model"),
                    "a validation error points outside the model: {e:?}"
                );
                assert!(!e.reason.is_empty());
            }
        }
        Err(e) => assert!(e.pointer.is_empty() || e.pointer.starts_with('/'), "{e:?}"),
    }
});
