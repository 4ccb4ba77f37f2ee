//! Sphere-wall geometry: the overlap R - (x - p)·n and the wall's unit normal, for the
//! sphere-wall pairs the wall list holds. A wall is a half-space, so a sphere behind it is
//! pushed out.
//!
//! The list holds only the spheres within the neighbour list's skin of a wall (and any
//! collision still open), rebuilt with the pair list: between two rebuilds no sphere moves
//! half the skin, so a sphere left out cannot reach its wall. A sphere far from every wall
//! then costs nothing per increment, where every sphere against every wall used to.

use super::contact::{carry_over, keep_open, Contact, Live, Other};
use super::setup::Setup;
use rayon::prelude::*;

/// The overlap of sphere `i` at `p` with wall `w`; one expression for the list and the
/// placement, so both see the same bits.
#[inline]
fn overlap(setup: &Setup, i: usize, w: usize, p: &[f64; 3]) -> f64 {
    let plane = &setup.walls[w];
    let n = plane.normal;
    let distance = (p[0] - plane.point[0]) * n[0]
        + (p[1] - plane.point[1]) * n[1]
        + (p[2] - plane.point[2]) * n[2];
    setup.radius[i] - distance
}

/// The contacts of the spheres within `skin` of a wall at `x`, sphere by sphere and wall
/// by wall (the order of the pair list's keys).
pub fn contacts(setup: &Setup, x: &[[f64; 3]], skin: f64) -> Vec<Contact> {
    let nw = setup.walls.len();
    if nw == 0 {
        return Vec::new();
    }
    x.par_iter()
        .enumerate()
        .with_min_len(super::MIN_PER_TASK)
        .flat_map_iter(|(i, p)| {
            (0..nw).filter_map(move |w| {
                // A non-finite overlap (a sphere that left the numbers) is kept: the
                // integrator reports it rather than losing the contact.
                let o = overlap(setup, i, w, p);
                (o > -skin || !o.is_finite()).then(|| {
                    let interaction = setup.wall_interaction(i, w);
                    Contact::new(
                        i as u32,
                        Other::Wall(w as u32),
                        interaction,
                        setup.wall_stiffness(interaction, i),
                    )
                })
            })
        })
        .collect()
}

/// The wall list at `x`, carrying the state of the contacts found again and keeping the
/// open collisions left out. A contact new to the list takes its overlap at `previous`
/// (the positions of the increment before), as if it had been placed there: its first
/// placement then interpolates the touch time exactly as a listed contact would.
pub fn rebuild(
    old: Vec<Contact>,
    setup: &Setup,
    x: &[[f64; 3]],
    previous: &[[f64; 3]],
    skin: f64,
) -> Vec<Contact> {
    let mut fresh = contacts(setup, x, skin);
    let (carried, orphans) = carry_over(&mut fresh, old);
    for (c, _) in fresh.iter_mut().zip(&carried).filter(|(_, &kept)| !kept) {
        if let Other::Wall(w) = c.other {
            let i = c.particle as usize;
            c.overlap = overlap(setup, i, w as usize, &previous[i]);
        }
    }
    keep_open(&mut fresh, orphans);
    fresh
}

/// Place every listed sphere-wall contact at the positions of time `t`, and list the live
/// ones.
pub fn place(
    contacts: &mut [Contact],
    live: &mut Live,
    setup: &Setup,
    x: &[[f64; 3]],
    t: f64,
    dt: f64,
) {
    live.place(contacts, |c| {
        if let Other::Wall(w) = c.other {
            let (i, w) = (c.particle as usize, w as usize);
            let law = &setup.interactions[c.interaction as usize].law;
            let o = overlap(setup, i, w, &x[i]);
            c.place(law, o, setup.walls[w].normal, t, dt);
        }
    });
}
