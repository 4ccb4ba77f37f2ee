//! Sphere-sphere geometry: the overlap R1 + R2 - |x1 - x2| and the unit normal along the
//! line of centres, for every candidate pair of the neighbour list.

use super::contact::{Contact, Live, Other};
use super::setup::Setup;

/// Place every candidate pair at the positions of time `t` (`dt` after the previous),
/// and list the live ones.
pub fn place(
    contacts: &mut [Contact],
    live: &mut Live,
    setup: &Setup,
    x: &[[f64; 3]],
    t: f64,
    dt: f64,
) {
    live.place(contacts, |c| place_one(c, setup, x, t, dt));
}

fn place_one(c: &mut Contact, setup: &Setup, x: &[[f64; 3]], t: f64, dt: f64) {
    let Other::Sphere(j) = c.other else {
        return;
    };
    let (i, j) = (c.particle as usize, j as usize);
    let d = [x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]];
    let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let overlap = setup.radius[i] + setup.radius[j] - r;
    if overlap <= 0.0 && c.open.is_none() {
        // Apart and no collision to close (most candidates, most of the time):
        // only the overlaps move on, for the touch time's interpolation. The
        // normal is read only while a pair touches or its collision is open, and
        // the next placement sets it again, so its three divisions are skipped.
        c.previous_overlap = c.overlap;
        c.overlap = overlap;
        c.elastic = 0.0;
        return;
    }
    // Coincident centres have no line between them; x lies in every dimension's
    // space, so the push stays in it.
    let normal = if r > 0.0 {
        [d[0] / r, d[1] / r, d[2] / r]
    } else {
        [1.0, 0.0, 0.0]
    };
    let law = &setup.interactions[c.interaction as usize].law;
    c.place(law, overlap, normal, t, dt);
}
