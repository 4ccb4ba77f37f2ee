//! Bookkeeping of collisions: numbering them as they begin, closing them when the bodies
//! part, keeping the first few as a list for the summary and every one in the figures of
//! its interaction (count, peak force, deepest overlap, times, dissipated energies).

use super::contact::{Contact, Open, Other, UNNUMBERED};
use super::setup::Setup;
use impact_protocol::particles::{CollisionReport, InteractionReport};

#[derive(Clone, Debug, Default)]
struct Totals {
    collisions: u64,
    peak_force: f64,
    max_overlap: f64,
    first_contact: Option<f64>,
    last_contact: Option<f64>,
    dissipated_viscous: f64,
    dissipated_dry: f64,
}

impl Totals {
    fn add(&mut self, open: &Open, end: f64) {
        self.peak_force = self.peak_force.max(open.peak_force);
        self.max_overlap = self.max_overlap.max(open.max_overlap);
        self.first_contact = Some(self.first_contact.map_or(open.start, |t| t.min(open.start)));
        self.last_contact = Some(self.last_contact.map_or(end, |t| t.max(end)));
        self.dissipated_viscous += open.dissipated_viscous;
        self.dissipated_dry += open.dissipated_dry;
    }
}

/// Every collision of the solve, in summary form.
#[derive(Clone, Debug)]
pub struct CollisionLog {
    next: u64,
    listed_cap: usize,
    listed: Vec<(u64, CollisionReport)>,
    closed: Vec<Totals>,
}

impl CollisionLog {
    pub fn new(interactions: usize, listed_cap: usize) -> Self {
        CollisionLog {
            next: 0,
            listed_cap,
            listed: Vec::new(),
            closed: vec![Totals::default(); interactions],
        }
    }

    pub fn total(&self) -> u64 {
        self.next
    }

    /// Number new collisions and retire ended ones; run serially, in a fixed order.
    pub fn settle(&mut self, c: &mut Contact, setup: &Setup) {
        let Some(open) = &mut c.open else {
            return;
        };
        if open.seq == UNNUMBERED {
            open.seq = self.next;
            self.next += 1;
            self.closed[c.interaction as usize].collisions += 1;
        }
        if let (Some(end), Some(_)) = (open.end, open.separation_speed) {
            let open = *open;
            c.open = None;
            self.closed[c.interaction as usize].add(&open, end);
            if (open.seq as usize) < self.listed_cap {
                self.listed.push((open.seq, report(c, &open, setup)));
            }
        }
    }

    /// The listed collisions (the first to begin, closed or still open at the end) and the
    /// figures of every interaction, with the open ones counted up to `t_end`.
    pub fn finish<'a>(
        &self,
        open_contacts: impl Iterator<Item = &'a Contact>,
        setup: &Setup,
        t_end: f64,
    ) -> (Vec<CollisionReport>, Vec<InteractionReport>, u64) {
        let mut listed = self.listed.clone();
        let mut totals = self.closed.clone();
        let mut still_open = 0;
        for c in open_contacts {
            let Some(open) = &c.open else {
                continue;
            };
            if open.seq == UNNUMBERED {
                continue;
            }
            still_open += 1;
            totals[c.interaction as usize].add(open, t_end);
            if (open.seq as usize) < self.listed_cap {
                listed.push((open.seq, report(c, open, setup)));
            }
        }
        listed.sort_by_key(|(seq, _)| *seq);
        let interactions = setup
            .interactions
            .iter()
            .zip(totals)
            .map(|(x, t)| InteractionReport {
                name: x.name.clone(),
                law: x.law.kind,
                collisions: t.collisions,
                peak_force: t.peak_force,
                max_overlap: t.max_overlap,
                first_contact: t.first_contact,
                last_contact: t.last_contact,
                dissipated_viscous: t.dissipated_viscous,
                dissipated_dry: t.dissipated_dry,
            })
            .collect();
        (
            listed.into_iter().map(|(_, r)| r).collect(),
            interactions,
            still_open,
        )
    }
}

/// A collision's report; an open one (no end yet) reports the separation speed its last
/// kick left, which is exactly 0 for a body brought to rest by the dry term.
fn report(c: &Contact, open: &Open, setup: &Setup) -> CollisionReport {
    let approach = open.approach_speed.unwrap_or(0.0);
    let separation = match open.separation_speed {
        Some(s) => s,
        // Written out so a body at rest reports +0, not -0.
        None => {
            if c.rate < 0.0 {
                -c.rate
            } else {
                0.0
            }
        }
    };
    let (other, wall) = match c.other {
        Other::Sphere(j) => (Some(j), None),
        Other::Wall(w) => (None, Some(setup.walls[w as usize].name.clone())),
    };
    let ended = open.separation_speed.is_some();
    CollisionReport {
        interaction: setup.interactions[c.interaction as usize].name.clone(),
        particle: c.particle,
        other,
        wall,
        first_contact: open.start,
        last_contact: if ended { open.end } else { None },
        duration: if ended {
            open.end.map(|e| e - open.start)
        } else {
            None
        },
        peak_force: open.peak_force,
        max_overlap: open.max_overlap,
        approach_speed: approach,
        separation_speed: separation,
        restitution: (approach > 0.0).then(|| separation / approach),
        dissipated_viscous: open.dissipated_viscous,
        dissipated_dry: open.dissipated_dry,
    }
}
