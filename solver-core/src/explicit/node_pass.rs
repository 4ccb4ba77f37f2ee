//! The second node pass of an increment: each node's force from its element corners (in
//! slot order), its contacts and gravity, then its acceleration and the closing half kick.

use super::MIN_NODES_PER_TASK;
use crate::assembly::Assembly;
use crate::contact::Contacts;
use crate::loads::Gravity;
use crate::subcycle::{Levels, Substep};
use std::sync::atomic::AtomicU64;

/// What the second node pass reads, shared by its tasks.
pub(super) struct NodeFinish<'a> {
    pub asm: &'a Assembly,
    pub levels: &'a Levels,
    pub contacts: &'a Contacts,
    pub gravity: &'a Gravity,
    pub substep: Substep,
    pub dt: f64,
}

/// The second node pass over the nodes from `first` on: `a` and `v` are theirs and
/// `corners` their corner slots (a node's slots are one run, in node order, so halving the
/// nodes halves the slots). Halved with `rayon::join` down to tasks of at most
/// `MIN_NODES_PER_TASK` nodes. The slots come `&mut`: the element loop that stored them
/// has ended, so they are read as plain numbers, not as atomic loads one by one, which
/// LLVM neither merges nor loads into vector registers.
pub(super) fn finish_nodes(
    pass: &NodeFinish,
    first: usize,
    a: &mut [[f64; 3]],
    v: &mut [[f64; 3]],
    corners: &mut [[AtomicU64; 3]],
) {
    let slot_start = &pass.asm.node_slot_start;
    let count = a.len();
    if count > MIN_NODES_PER_TASK {
        let half = count / 2;
        let cut = (slot_start[first + half] - slot_start[first]) as usize;
        let (a0, a1) = a.split_at_mut(half);
        let (v0, v1) = v.split_at_mut(half);
        let (c0, c1) = corners.split_at_mut(cut);
        rayon::join(
            || finish_nodes(pass, first, a0, v0, c0),
            || finish_nodes(pass, first + half, a1, v1, c1),
        );
        return;
    }
    let NodeFinish {
        asm,
        levels,
        contacts,
        gravity,
        substep,
        dt,
    } = *pass;
    let run = first..first + count;
    let base = slot_start[first];
    let nodes = (a.iter_mut().zip(v))
        .zip(asm.mass[run.clone()].iter().zip(&asm.fixed[run.clone()]))
        .zip(&levels.node[run.clone()]);
    for (n, (((a, v), (m, fixed)), &level)) in run.zip(nodes) {
        if !substep.ends(level) {
            continue;
        }
        let h = substep.step(level, dt);
        let mut f = [0.0; 3];
        let slots = (slot_start[n] - base) as usize..(slot_start[n + 1] - base) as usize;
        for corner in &mut corners[slots] {
            for (s, atom) in f.iter_mut().zip(corner) {
                *s += f64::from_bits(*atom.get_mut());
            }
        }
        contacts.add_forces_at(n, &mut f);
        gravity.add_force(&mut f, *m, fixed);
        for k in 0..3 {
            a[k] = if fixed[k] { 0.0 } else { f[k] / m };
            v[k] = if fixed[k] { 0.0 } else { v[k] + 0.5 * h * a[k] };
        }
    }
}
