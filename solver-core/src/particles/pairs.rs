//! Sphere-sphere geometry: the overlap R1 + R2 - |x1 - x2| and the unit normal along the
//! line of centres, for every candidate pair of the neighbour list.
//!
//! Most candidates are apart most of the time, and an apart pair with no collision open
//! changes nothing that is read: its overlap before is needed only when it comes to touch,
//! and it is then computed again, with the same expression, from the positions before (a
//! pair open at the placement before was placed there, so its record holds it). So
//! the pass over every candidate reads a few arrays beside the records (`Geometry`: 17 bytes
//! a pair against a record of some 200) and compares the squared distance with a bound
//! beyond which the pair is surely apart, with no square root; only the pairs within it, or
//! with a collision open, have their record placed.

use super::contact::{Contact, Live, CHUNK};
use super::setup::Setup;
use rayon::prelude::*;

/// What the pass over every candidate reads, as arrays beside the pair records (entry k
/// of each belongs to record k).
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    /// The two spheres, lower id first.
    pub ends: Vec<[u32; 2]>,
    /// The least squared distance whose (correctly rounded) square root reaches the sum
    /// of the radii: at this or beyond, the overlap is not positive.
    pub apart: Vec<f64>,
    /// The record must be placed whatever the distance: its collision was open at its
    /// last placement (cleared by the first placement that finds it closed).
    pub full: Vec<bool>,
    /// The pairs new to the list at the last rebuild and not yet placed, which have no
    /// overlap before (empty once placed).
    pub fresh: Vec<bool>,
}

impl Geometry {
    /// The arrays of `contacts` (a list just rebuilt); `fresh` marks the pairs new to it.
    /// The buffers are kept (cleared and refilled, in parallel), so a rebuild allocates
    /// nothing once they have grown.
    pub fn refill(&mut self, contacts: &[Contact], setup: &Setup, fresh: Vec<bool>) {
        self.fresh = fresh;
        contacts
            .par_iter()
            .with_min_len(CHUNK)
            .map(|c| (<[u32; 2]>::from(c.key()), c.open.is_some()))
            .unzip_into_vecs(&mut self.ends, &mut self.full);
        self.apart.clear();
        self.apart.par_extend(
            self.ends
                .par_iter()
                .with_min_len(CHUNK)
                .map(|&[i, j]| apart_bound(setup.radius[i as usize] + setup.radius[j as usize])),
        );
    }
}

/// The least a with √a >= `reach`. √ is correctly rounded, hence never decreasing, so any
/// squared distance d2 >= a has √d2 >= reach and the overlap reach - √d2 <= 0 (a rounded
/// difference has the sign of the exact one): the bound makes no pair apart that the
/// overlap would not.
fn apart_bound(reach: f64) -> f64 {
    let mut a = reach * reach;
    // One or two steps at most; a NaN or infinite reach stops at once.
    while a.sqrt() < reach {
        a = a.next_up();
    }
    a
}

#[inline]
pub(super) fn distance2(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// Place every candidate pair at the positions `x` of time `t` (`previous`: the positions
/// `dt` before, where the last placement was), and list the live ones.
#[allow(clippy::too_many_arguments)]
pub fn place(
    contacts: &mut [Contact],
    geometry: &mut Geometry,
    live: &mut Live,
    setup: &Setup,
    x: &[[f64; 3]],
    previous: &[[f64; 3]],
    t: f64,
    dt: f64,
) {
    live.fit(contacts.len());
    let mut fresh = std::mem::take(&mut geometry.fresh);
    let new_to_list = |k: usize| fresh.get(k).copied().unwrap_or(false);
    contacts
        .par_chunks_mut(CHUNK)
        .zip(geometry.full.par_chunks_mut(CHUNK))
        .zip(
            geometry
                .ends
                .par_chunks(CHUNK)
                .zip(geometry.apart.par_chunks(CHUNK)),
        )
        .zip(live.chunks.par_iter_mut())
        .enumerate()
        .with_max_len(1) // skewed work: see `CHUNK`
        .for_each(|(n, (((chunk, full), (ends, apart)), list))| {
            list.clear();
            for (k, ((&[i, j], &apart), full)) in
                ends.iter().zip(apart).zip(full.iter_mut()).enumerate()
            {
                let (i, j) = (i as usize, j as usize);
                let d2 = distance2(&x[i], &x[j]);
                // Surely apart and nothing open (a NaN distance goes on, and is listed).
                if d2 >= apart && !*full {
                    continue;
                }
                let c = &mut chunk[k];
                let before = if new_to_list(n * CHUNK + k) {
                    f64::NEG_INFINITY
                } else if *full {
                    // Open at the placement before, so placed there: its overlap is current.
                    c.overlap
                } else {
                    // The expression of the placement before, on its positions: the same
                    // bits as the overlap it found.
                    setup.radius[i] + setup.radius[j] - distance2(&previous[i], &previous[j]).sqrt()
                };
                place_one(c, before, d2, setup, x, t, dt);
                *full = c.open.is_some();
                if c.live() {
                    list.push(k as u32);
                }
            }
        });
    fresh.clear();
    geometry.fresh = fresh;
}

fn place_one(
    c: &mut Contact,
    before: f64,
    d2: f64,
    setup: &Setup,
    x: &[[f64; 3]],
    t: f64,
    dt: f64,
) {
    let (i, j) = c.key();
    let (i, j) = (i as usize, j as usize);
    let r = d2.sqrt();
    let overlap = setup.radius[i] + setup.radius[j] - r;
    if overlap <= 0.0 && c.open.is_none() {
        // Apart and no collision to close: only the overlaps move on. The normal is read
        // only while a pair touches or its collision is open, and the next placement sets
        // it again, so its three divisions are skipped.
        c.previous_overlap = before;
        c.overlap = overlap;
        c.elastic = 0.0;
        return;
    }
    // Coincident centres have no line between them; x lies in every dimension's
    // space, so the push stays in it.
    let d = [x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]];
    let normal = if r > 0.0 {
        [d[0] / r, d[1] / r, d[2] / r]
    } else {
        [1.0, 0.0, 0.0]
    };
    let law = &setup.interactions[c.interaction as usize].law;
    c.place_after(before, law, overlap, normal, t, dt);
}
