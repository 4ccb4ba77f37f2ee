//! The contacts' velocity changes applied sphere by sphere, in parallel, in the order the
//! serial loop summed them (walls first, then pairs, each in list order), so the
//! velocities are the same bits on any number of threads.
//!
//! A kick runs over fixed chunks of contacts (the walls' chunks, then the pairs'); each
//! chunk writes the share of every live contact with a non-zero drop for each of its
//! spheres (`Share`: the product the serial loop added), in list order, into one bucket
//! per fixed chunk of spheres. A chunk of spheres then reads its bucket of every contact
//! chunk in order: each sphere receives the same products in the same order as from the
//! serial loop, each velocity component on its own. The work is in proportion to the
//! contacts that act (no pass over the idle ones), and both halves run in parallel.

use super::contact::{Contact, Other, CHUNK};
use super::setup::Setup;

/// What one contact adds to one sphere's velocity in a kick.
#[derive(Clone, Copy, Debug)]
pub struct Share {
    sphere: u32,
    add: [f64; 3],
}

/// Each contact chunk's shares, bucketed by chunk of spheres (`CHUNK` spheres each). The
/// buffers are kept from one kick to the next, so a kick allocates nothing once they have
/// grown.
#[derive(Clone, Debug, Default)]
pub struct Shares {
    /// [contact chunk: the walls', then the pairs'][sphere chunk].
    pub buckets: Vec<Vec<Vec<Share>>>,
}

impl Shares {
    /// Room for `contact_chunks` chunks of contacts over `spheres` spheres.
    pub fn fit(&mut self, contact_chunks: usize, spheres: usize) {
        let sphere_chunks = spheres.div_ceil(CHUNK);
        self.buckets.resize_with(contact_chunks, Vec::new);
        for b in &mut self.buckets {
            b.resize_with(sphere_chunks, Vec::new);
        }
    }

    /// Sphere chunk `n`'s velocities `v` after the shares of the last kick.
    #[inline]
    pub fn gather(&self, n: usize, v: &mut [[f64; 3]]) {
        let first = n * CHUNK;
        for chunk in &self.buckets {
            for s in &chunk[n] {
                let v = &mut v[s.sphere as usize - first];
                v[0] += s.add[0];
                v[1] += s.add[1];
                v[2] += s.add[2];
            }
        }
    }
}

/// Write contact `c`'s shares of its drop into its contact chunk's `buckets`: the drop
/// spread by the inverse masses, as the serial loop computed it; the other sphere's
/// negated, since v - a and v + (-a) are the same bits. A wall's whole drop goes to the
/// sphere, so a sphere the dry term stops against an axis-aligned wall has exactly zero
/// normal velocity.
#[inline]
pub fn share(c: &Contact, setup: &Setup, buckets: &mut [Vec<Share>]) {
    let i = c.particle as usize;
    let n = c.normal;
    match c.other {
        Other::Sphere(j) => {
            let j = j as usize;
            let (wi, wj) = (setup.inverse_mass[i], setup.inverse_mass[j]);
            let si = c.drop * (wi / (wi + wj));
            let sj = c.drop * (wj / (wi + wj));
            buckets[i / CHUNK].push(Share {
                sphere: i as u32,
                add: [si * n[0], si * n[1], si * n[2]],
            });
            buckets[j / CHUNK].push(Share {
                sphere: j as u32,
                add: [-(sj * n[0]), -(sj * n[1]), -(sj * n[2])],
            });
        }
        Other::Wall(_) => buckets[i / CHUNK].push(Share {
            sphere: i as u32,
            add: [c.drop * n[0], c.drop * n[1], c.drop * n[2]],
        }),
    }
}
