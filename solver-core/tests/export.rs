//! The VTK export of a result: the same bytes after the result is stored and read back
//! (the stresses travel in the stored frames), the same bytes on 1 and 2 threads, and the
//! bars' stress where one-dimensional impact theory puts it. The files' readability by an
//! independent reader (meshio) is checked in clients/python/tests/test_export.py.

use impact_core::export::{contents, entries, render, SERIES};
use impact_core::persist::{decode, encode};
use impact_core::{solve, Solution, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, SolveParams};

fn model(case: &str) -> Model {
    let text = std::fs::read_to_string(format!(
        "{}/../tests/oracle/{case}/model.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the case's model is in the repo");
    let params: SolveParams = serde_json::from_str(&text).expect("the model parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("the model is valid");
    params.model
}

fn on_threads(m: &Model, threads: usize) -> Solution {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(|| solve(m, &SolveOptions::default()))
        .expect("the model solves")
}

fn all_files(s: &Solution) -> Vec<(String, String)> {
    entries(s)
        .into_iter()
        .map(|e| {
            let text = render(s, &e.name).expect("every listed file renders");
            (e.name, text)
        })
        .collect()
}

#[test]
fn the_bars_export_survives_storage_and_thread_counts() {
    let m = model("explicit-bars");
    let one = on_threads(&m, 1);
    let two = on_threads(&m, 2);
    let files = all_files(&one);
    assert_eq!(files.last().map(|f| f.0.as_str()), Some(SERIES));
    assert_eq!(files, all_files(&two), "1 and 2 threads export different bytes");
    let (back, _) = decode(&encode(&one, &m)).expect("the stored result decodes");
    assert_eq!(files, all_files(&back), "the stored result exports other bytes");
    for (f, g) in one.frames().iter().zip(back.frames()) {
        assert_eq!(f.stress, g.stress);
    }
    // Names outside the listing render nothing.
    for name in ["frame_1.vtu", "frame_99999.vtu", "frame_00001.vtp", "../result.pvd"] {
        assert!(render(&one, name).is_none(), "{name}");
    }
    assert_eq!(contents(&one).parts, ["striker", "struck"]);
}

#[test]
fn the_bars_stress_stands_where_the_theory_puts_it() {
    // Halfway through the contact the compression fronts stand c t from the interface
    // (x = L); behind them sigma_xx = -rho c v0 / 2 = -0.05 (Graff, Wave Motion in Elastic
    // Solids, 2.1-2.3), ahead of them the bars are unstressed. Tolerance: case.json's 4%
    // for the force plateau (ringing behind the discrete fronts).
    let (c, l, plateau): (f64, f64, f64) = (100.0, 10.0, -0.05);
    let s = on_threads(&model("explicit-bars"), 2);
    let frame = s
        .frames()
        .iter()
        .min_by(|a, b| {
            let da = (a.time - l / (2.0 * c)).abs();
            let db = (b.time - l / (2.0 * c)).abs();
            da.total_cmp(&db)
        })
        .expect("frames");
    let front = c * frame.time;
    let asm = s.assembly();
    let (mut sum, mut count) = (0.0, 0);
    for (e, conn) in asm.connectivity.iter().enumerate() {
        let x: f64 = conn.iter().map(|&n| asm.reference[n as usize][0]).sum::<f64>() / 8.0;
        let sxx = frame.stress[e][0];
        if (x - l).abs() < front - 2.0 {
            sum += sxx;
            count += 1;
        } else if (x - l).abs() > front + 2.0 {
            assert!(sxx.abs() < 0.04 * plateau.abs(), "x = {x}: {sxx}");
        }
    }
    let mean = sum / f64::from(count);
    assert!(count > 100);
    assert!((mean - plateau).abs() < 0.04 * plateau.abs(), "{mean}");
}

#[test]
fn a_particle_export_lists_polydata() {
    let m = model("particles-soft-spheres");
    let s = on_threads(&m, 1);
    let c = contents(&s);
    assert_eq!(c.kind, "poly_data");
    assert_eq!(c.parts, ["light", "heavy"]);
    let files = all_files(&s);
    assert!(files[..files.len() - 1]
        .iter()
        .all(|(name, text)| name.ends_with(".vtp") && text.contains("<PolyData>")));
    let (back, _) = decode(&encode(&s, &m)).expect("the stored result decodes");
    assert_eq!(files, all_files(&back));
}
