//! Sphere-wall geometry: every sphere against every wall, the overlap R - (x - p)·n and
//! the wall's unit normal. A wall is a half-space, so a sphere behind it is pushed out.

use super::contact::{Contact, Other};
use super::setup::Setup;
use rayon::prelude::*;

/// The contacts of every sphere with every wall, sphere by sphere.
pub fn contacts(setup: &Setup) -> Vec<Contact> {
    let mut out = Vec::with_capacity(setup.len() * setup.walls.len());
    for i in 0..setup.len() {
        for w in 0..setup.walls.len() {
            let interaction = setup.wall_interaction(i, w);
            out.push(Contact::new(
                i as u32,
                Other::Wall(w as u32),
                interaction,
                setup.wall_stiffness(interaction, i),
            ));
        }
    }
    out
}

/// Place every sphere-wall contact at the positions of time `t`.
pub fn place(contacts: &mut [Contact], setup: &Setup, x: &[[f64; 3]], t: f64, dt: f64) {
    contacts
        .par_iter_mut()
        .with_min_len(super::MIN_PER_TASK)
        .for_each(|c| {
            let Other::Wall(w) = c.other else {
                return;
            };
            let plane = &setup.walls[w as usize];
            let i = c.particle as usize;
            let n = plane.normal;
            let distance = (x[i][0] - plane.point[0]) * n[0]
                + (x[i][1] - plane.point[1]) * n[1]
                + (x[i][2] - plane.point[2]) * n[2];
            let law = &setup.interactions[c.interaction as usize].law;
            c.place(law, setup.radius[i] - distance, n, t, dt);
        });
}
