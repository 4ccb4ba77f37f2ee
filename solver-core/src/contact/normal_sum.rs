//! The pressed pairs' normal forces summed at the contact's nodes. The records, in face
//! order, are cut into a fixed number of parts of equal counts; each part is summed into
//! a buffer of its own (in parallel), and each node then adds the parts in part order. The
//! cut depends on the record count alone, never on the thread count, so a node's sum is
//! the same bits on any number of threads, and no thread walks another's records (split
//! by node instead, each thread read every record to find its own nodes' shares).

use super::{Chunk, PairRecord};
use rayon::prelude::*;

/// How many parts the records are cut into: the threads this sum is meant to keep busy.
/// More parts cost a buffer of the contact's nodes each, zeroed and added every
/// increment, on any thread count.
const PARTS: usize = 2;

/// Nodes a task when the parts are added: enough that a task is worth its hop.
const NODES_PER_TASK: usize = 1024;

/// The parts' buffers, kept between increments.
#[derive(Clone, Debug, Default)]
pub(super) struct NormalSum {
    parts: Vec<Vec<[f64; 3]>>,
}

impl NormalSum {
    /// The normal forces of the chunks' records at the contact's nodes (`local_faces`
    /// each face's corners as local slots), written into `out`: each secondary corner a
    /// is pushed back by its row sum along the secondary normal, each main corner c
    /// forward by its column sum. Returns the records' total force and deepest
    /// penetration.
    pub(super) fn write(
        &mut self,
        chunks: &[Chunk],
        local_faces: &[[u32; 4]],
        out: &mut [[f64; 3]],
    ) -> (f64, f64) {
        let nn = out.len();
        let records: usize = chunks.iter().map(|c| c.records.len()).sum();
        if records == 0 || nn == 0 {
            out.fill([0.0; 3]);
            return (0.0, 0.0);
        }
        self.parts.resize_with(PARTS, Vec::new);
        let mut sums = [(0.0, 0.0); PARTS];
        self.parts
            .par_iter_mut()
            .zip(sums.par_iter_mut())
            .enumerate()
            .for_each(|(k, (buffer, sum))| {
                buffer.clear();
                buffer.resize(nn, [0.0; 3]);
                let part = records_between(chunks, k * records / PARTS, (k + 1) * records / PARTS);
                *sum = add_part(part, local_faces, buffer);
            });
        let parts = &self.parts;
        out.par_chunks_mut(NODES_PER_TASK)
            .enumerate()
            .for_each(|(c, out)| {
                let first = c * NODES_PER_TASK;
                for (k, f) in out.iter_mut().enumerate() {
                    *f = parts[0][first + k];
                    for p in &parts[1..] {
                        for (f, g) in f.iter_mut().zip(p[first + k]) {
                            *f += g;
                        }
                    }
                }
            });
        sums.iter()
            .fold((0.0, 0.0f64), |(t, d), &(pt, pd)| (t + pt, d.max(pd)))
    }
}

/// The records `lo..hi` of the chunks' list, in face order.
fn records_between(chunks: &[Chunk], lo: usize, hi: usize) -> impl Iterator<Item = &PairRecord> {
    let mut first = 0;
    chunks.iter().flat_map(move |c| {
        let end = first + c.records.len();
        let part = &c.records[lo.clamp(first, end) - first..hi.clamp(first, end) - first];
        first = end;
        part
    })
}

/// One part's records summed into `out` (the contact's nodes by slot), in face order;
/// their total force and deepest penetration.
fn add_part<'a>(
    records: impl Iterator<Item = &'a PairRecord>,
    local_faces: &[[u32; 4]],
    out: &mut [[f64; 3]],
) -> (f64, f64) {
    let mut total = 0.0;
    let mut deepest: f64 = 0.0;
    for r in records {
        let (ls, lm) = (
            &local_faces[r.secondary as usize],
            &local_faces[r.main as usize],
        );
        let (n, c) = (r.normal, &r.force.coupling);
        for a in 0..4 {
            let row: f64 = c[a].iter().sum();
            let f = &mut out[ls[a] as usize];
            for (f, nk) in f.iter_mut().zip(n.iter()) {
                *f -= row * nk;
            }
        }
        for (cc, &m) in lm.iter().enumerate() {
            let col = c[0][cc] + c[1][cc] + c[2][cc] + c[3][cc];
            let f = &mut out[m as usize];
            for (f, nk) in f.iter_mut().zip(n.iter()) {
                *f += col * nk;
            }
        }
        total += r.force.total();
        deepest = deepest.max(r.force.deepest);
    }
    (total, deepest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::segment::PairForce;

    /// Chunks of records between the faces of a strip of quads (`faces[i]` has nodes
    /// 2i..2i+3), every face pressed by its two neighbours and by its mirror image across
    /// the strip's middle, with couplings of varied sizes, so that most nodes take shares
    /// from records in both parts.
    fn strip(chunks: usize, per_chunk: usize) -> (Vec<Chunk>, Vec<[u32; 4]>, usize) {
        let nf = chunks * per_chunk;
        let faces: Vec<[u32; 4]> = (0..nf as u32)
            .map(|i| [2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2])
            .collect();
        let mut out = vec![Chunk::default(); chunks];
        for i in 0..nf {
            for j in [i.wrapping_sub(1), i + 1, nf - 1 - i] {
                if j >= nf || j == i {
                    continue;
                }
                let mut force = PairForce::default();
                for (a, row) in force.coupling.iter_mut().enumerate() {
                    for (c, v) in row.iter_mut().enumerate() {
                        *v =
                            ((i * 7 + j * 3 + a * 5 + c) % 11) as f64 * 0.1 + 1e-3 / (1 + i) as f64;
                    }
                }
                force.deepest = (i % 13) as f64 * 1e-6;
                let k = (i as f64 * 0.37).sin();
                out[i / per_chunk].records.push(PairRecord {
                    secondary: i as u32,
                    main: j as u32,
                    normal: [0.6 * k, 0.8 * k, (1.0 - k * k).sqrt()],
                    force,
                });
            }
        }
        (out, faces, 2 * nf + 2)
    }

    fn on_threads(
        threads: usize,
        chunks: &[Chunk],
        faces: &[[u32; 4]],
        nn: usize,
    ) -> (Vec<[f64; 3]>, f64, f64) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        // Stale values, as the contact hands `write` the last increment's forces: every
        // node must be set.
        let mut out = vec![[7.0; 3]; nn];
        let mut sum = NormalSum::default();
        let (total, deepest) = pool.install(|| sum.write(chunks, faces, &mut out));
        (out, total, deepest)
    }

    #[test]
    fn the_parts_give_the_serial_sums_to_rounding_and_the_same_bits_on_any_thread_count() {
        // 7 chunks of 5 faces; one chunk of two faces (four records, two a part); one face
        // pressed by nothing (no records: zero forces).
        for (chunk_count, per_chunk) in [(7, 5), (1, 2), (1, 1)] {
            let (chunks, faces, nn) = strip(chunk_count, per_chunk);
            parts_against_one_pass(&chunks, &faces, nn);
        }
    }

    fn parts_against_one_pass(chunks: &[Chunk], faces: &[[u32; 4]], nn: usize) {
        // The sums in one pass over the records in face order: the definition.
        let mut serial = vec![[0.0; 3]; nn];
        let mut serial_total = 0.0;
        let mut serial_deepest = 0.0f64;
        for r in chunks.iter().flat_map(|c| &c.records) {
            let c = &r.force.coupling;
            for a in 0..4 {
                let row: f64 = c[a].iter().sum();
                let col = c[0][a] + c[1][a] + c[2][a] + c[3][a];
                for (k, nk) in r.normal.iter().enumerate() {
                    serial[faces[r.secondary as usize][a] as usize][k] -= row * nk;
                    serial[faces[r.main as usize][a] as usize][k] += col * nk;
                }
            }
            serial_total += r.force.total();
            serial_deepest = serial_deepest.max(r.force.deepest);
        }
        let (one, total, deepest) = on_threads(1, chunks, faces, nn);
        // Each node's shares are added in another grouping: the sums differ by rounding,
        // a few ulps of sums of order one here, far under 1e-12.
        for (n, (f, g)) in one.iter().zip(&serial).enumerate() {
            for k in 0..3 {
                assert!(
                    (f[k] - g[k]).abs() < 1e-12,
                    "node {n}, axis {k}: {} against {}",
                    f[k],
                    g[k]
                );
            }
        }
        assert!((total - serial_total).abs() <= 1e-12 * serial_total);
        assert_eq!(deepest, serial_deepest);
        for threads in [2, 3] {
            let (other, t, d) = on_threads(threads, chunks, faces, nn);
            assert_eq!(
                one.iter()
                    .flatten()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>(),
                other
                    .iter()
                    .flatten()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>(),
                "{threads} threads"
            );
            assert_eq!(
                (total.to_bits(), deepest.to_bits()),
                (t.to_bits(), d.to_bits())
            );
        }
    }
}
