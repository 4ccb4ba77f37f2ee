//! The tidy check: every Rust file of the workspace opens with a `//!` line saying what
//! it owns (ARCHITECTURE.md's rule), so a reader landing in any file learns its concern.

use impact_e2e::{files_without_module_doc, workspace_root};

#[test]
fn every_rust_file_opens_with_a_module_doc() {
    let root = workspace_root();
    let missing = files_without_module_doc(&root);
    assert!(
        missing.is_empty(),
        "these files do not open with a `//!` line saying what they own:\n{}",
        missing
            .iter()
            .map(|p| format!("  {}", p.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
