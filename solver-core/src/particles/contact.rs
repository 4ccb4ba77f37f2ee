//! A contact between a sphere and another body (a sphere or a wall): its geometry at the
//! current positions, the kick that applies its force, and the state a collision carries
//! from one increment to the next. The same record serves pairs and walls. `Live` lists,
//! chunk by chunk, the contacts that can act, so the kicks pass over the others.

use super::laws::{half_kick, Law};
use rayon::prelude::*;

/// What a contact is between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Other {
    Sphere(u32),
    Wall(u32),
}

/// A collision in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Open {
    /// The order in which collisions began, over the whole solve; `UNNUMBERED` until the
    /// serial pass numbers it.
    pub seq: u64,
    pub start: f64,
    /// Set at the first kick, before this contact's force has acted.
    pub approach_speed: Option<f64>,
    /// When the overlap became zero again (interpolated), once it has.
    pub end: Option<f64>,
    /// Set at the first kick after the end, when all of this contact's force has acted.
    pub separation_speed: Option<f64>,
    pub peak_force: f64,
    pub max_overlap: f64,
    pub dissipated_viscous: f64,
    pub dissipated_dry: f64,
}

pub const UNNUMBERED: u64 = u64::MAX;

/// One candidate contact.
///
/// Laid out by hand on three whole cache lines (`repr(C)`, 64-byte aligned, the open
/// collision first), so that `prefetch` can ask for each line by one of its fields.
#[derive(Clone, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct Contact {
    pub open: Option<Open>,
    pub particle: u32,
    /// Index into the interaction table (the law and the report).
    pub interaction: u32,
    pub other: Other,
    /// The stiffness constant of this pair (c of f = c x^n).
    pub c: f64,
    /// Overlap at the current positions (negative: a gap).
    pub overlap: f64,
    /// Overlap at the positions before (for the interpolated touch and release times).
    pub previous_overlap: f64,
    /// Unit normal pushing `particle` away from the other body.
    pub normal: [f64; 3],
    /// f(overlap), zero without overlap.
    pub elastic: f64,
    /// The approach rate the last kick left (as this contact alone saw it).
    pub rate: f64,
    /// The rate drop the last kick applies to the pair; spread by the mass shares.
    pub drop: f64,
}

/// Ask the processor for the three cache lines of `c`, a few contacts ahead of reading
/// them: a hint, with no effect on any result. The kicks visit the live contacts, some 15%
/// of the records scattered over a list of megabytes, and were measured to wait on these
/// loads for a third of their time (docs/performance.md).
#[inline]
pub fn prefetch(c: &Contact) {
    mem_prefetch::prefetch_read_data::<_, 3>(&c.open);
    mem_prefetch::prefetch_read_data::<_, 3>(&c.particle);
    mem_prefetch::prefetch_read_data::<_, 3>(&c.previous_overlap);
}

impl Contact {
    pub fn new(particle: u32, other: Other, interaction: u32, c: f64) -> Self {
        Contact {
            particle,
            other,
            interaction,
            c,
            overlap: f64::NEG_INFINITY,
            previous_overlap: f64::NEG_INFINITY,
            normal: [0.0; 3],
            elastic: 0.0,
            rate: 0.0,
            drop: 0.0,
            open: None,
        }
    }

    /// Ordering key of pair contacts in the neighbour list.
    pub fn key(&self) -> (u32, u32) {
        match self.other {
            Other::Sphere(j) => (self.particle, j),
            Other::Wall(w) => (self.particle, w),
        }
    }

    /// Set the geometry at the positions of time `t` (the previous ones were at
    /// `t - dt`) from the overlap and the normal; open or end the collision. Touch and
    /// release times are interpolated linearly in the overlap between the two.
    pub fn place(&mut self, law: &Law, overlap: f64, normal: [f64; 3], t: f64, dt: f64) {
        self.place_after(self.overlap, law, overlap, normal, t, dt);
    }

    /// `place` with the overlap at the positions before given (`before`) rather than read
    /// from the record: the pairs' placement leaves the records of pairs far apart alone,
    /// so theirs is computed again from those positions when they come close.
    pub fn place_after(
        &mut self,
        before: f64,
        law: &Law,
        overlap: f64,
        normal: [f64; 3],
        t: f64,
        dt: f64,
    ) {
        self.previous_overlap = before;
        self.overlap = overlap;
        self.normal = normal;
        if overlap > 0.0 {
            self.elastic = super::laws::elastic_force(self.c, law.n, overlap);
            match &mut self.open {
                Some(open) => open.max_overlap = open.max_overlap.max(overlap),
                None => {
                    // A pair new to the list (or the start) has no previous overlap.
                    let start = if before.is_finite() && before <= 0.0 {
                        t - dt * overlap / (overlap - before)
                    } else {
                        t
                    };
                    self.open = Some(Open {
                        seq: UNNUMBERED,
                        start,
                        max_overlap: overlap,
                        ..Open::default()
                    });
                }
            }
        } else {
            self.elastic = 0.0;
            if let Some(open) = &mut self.open {
                if open.end.is_none() {
                    open.end = Some(if before > 0.0 {
                        t - dt * (-overlap) / (before - overlap)
                    } else {
                        t
                    });
                }
            }
        }
    }

    /// One half kick of this contact: `rate0` is the approach rate before it, `h` the
    /// rate change per unit force, `half_dt` the kick's duration. Records the force, the
    /// rate drop and the work of the viscous and dry terms (force times the mean rate).
    pub fn kick(&mut self, law: &Law, rate0: f64, h: f64, half_dt: f64) {
        if self.overlap <= 0.0 {
            self.drop = 0.0;
            if let Some(open) = &mut self.open {
                if open.end.is_some() && open.separation_speed.is_none() {
                    open.separation_speed = Some(-rate0);
                }
            }
            return;
        }
        let k = half_kick(self.elastic, law.b, law.d, rate0, h);
        self.rate = k.rate;
        self.drop = k.drop;
        if let Some(open) = &mut self.open {
            if open.approach_speed.is_none() {
                open.approach_speed = Some(rate0);
            }
            open.peak_force = open.peak_force.max(k.force);
            let mean_rate = 0.5 * (rate0 + k.rate);
            open.dissipated_viscous += k.viscous * half_dt * mean_rate;
            open.dissipated_dry += k.dry * half_dt * mean_rate;
        }
    }
}

/// Contacts are placed and kicked in fixed chunks of this many, whatever the number of
/// threads, so the live lists and their order are the same on any pool.
///
/// The loops over chunks (of contacts or of spheres) let rayon split down to one chunk a
/// task (`with_max_len(1)`): their work is skewed, as the live contacts gather in the few
/// chunks of ids of the spheres that have met (a settled bed, a front), and rayon's
/// adaptive split otherwise hands out a quarter of the range whole on two threads, which
/// one thread then works through alone (measured: the kicks no faster on two threads
/// than on one, docs/performance.md).
pub const CHUNK: usize = super::MIN_PER_TASK;

/// The contacts that can act (overlapping, or with a collision open), chunk by chunk, as
/// indices within the chunk in increasing order; the placement fills it. Only these get a
/// kick: any other contact's kick sets no drop and touches no collision. The buffers are
/// kept from one increment to the next, so a step allocates nothing once they have grown.
#[derive(Clone, Debug, Default)]
pub struct Live {
    pub chunks: Vec<Vec<u32>>,
}

impl Live {
    /// One list per chunk of `contacts` contacts.
    pub fn fit(&mut self, contacts: usize) {
        self.chunks.resize_with(contacts.div_ceil(CHUNK), Vec::new);
    }

    /// Place every contact with `place_one`, in parallel by fixed chunks, and list the
    /// live ones: the one loop of the pairs' and the walls' placements.
    pub fn place(&mut self, contacts: &mut [Contact], place_one: impl Fn(&mut Contact) + Sync) {
        self.fit(contacts.len());
        contacts
            .par_chunks_mut(CHUNK)
            .zip(self.chunks.par_iter_mut())
            .with_max_len(1) // skewed work: see `CHUNK`
            .for_each(|(chunk, list)| {
                list.clear();
                for (k, c) in chunk.iter_mut().enumerate() {
                    place_one(c);
                    if c.live() {
                        list.push(k as u32);
                    }
                }
            });
    }
}

/// Carry into `fresh` (a rebuilt list, ascending by key) the state of each `old` contact
/// found again. Returns which of `fresh` were carried, and the old contacts left out whose
/// collision is still open (for `keep_open`): one merge for the pair and the wall lists.
pub fn carry_over(fresh: &mut [Contact], old: Vec<Contact>) -> (Vec<bool>, Vec<Contact>) {
    let mut carried = vec![false; fresh.len()];
    let mut k = 0;
    let mut orphans = Vec::new();
    for c in old {
        while k < fresh.len() && fresh[k].key() < c.key() {
            k += 1;
        }
        if k < fresh.len() && fresh[k].key() == c.key() {
            fresh[k] = c;
            carried[k] = true;
        } else if c.open.is_some() {
            orphans.push(c);
        }
    }
    (carried, orphans)
}

/// Keep the open collisions that left a list's reach in one increment, in key order.
pub fn keep_open(list: &mut Vec<Contact>, orphans: Vec<Contact>) {
    if !orphans.is_empty() {
        list.extend(orphans);
        list.sort_unstable_by_key(Contact::key);
    }
}

impl Contact {
    /// True unless the kick would only clear the drop: a gap and no collision open. (A
    /// non-finite overlap counts as live, as the kick has always treated it.)
    #[inline]
    pub fn live(&self) -> bool {
        self.overlap > 0.0 || self.overlap.is_nan() || self.open.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn prefetch_names_one_field_in_each_cache_line() {
        assert_eq!(size_of::<Contact>(), 192);
        assert_eq!(align_of::<Contact>(), 64);
        let lines = [
            offset_of!(Contact, open),
            offset_of!(Contact, particle),
            offset_of!(Contact, previous_overlap),
        ]
        .map(|at| at / 64);
        assert_eq!(lines, [0, 1, 2]);
    }
}
