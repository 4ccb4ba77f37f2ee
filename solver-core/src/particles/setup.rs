//! From the model's particle section to arrays: every sphere's centre, velocity, radius
//! and mass, the walls as unit-normal planes, and the table of interactions (one per pair
//! of groups and per group and wall) with their laws.

use super::laws::Law;
use crate::error::SolveError;
use impact_protocol::particles::{sphere_radius_mass, LawKind, Particles};
use impact_protocol::{InvalidParams, Pointer};

/// A fixed plane: points p with (p - point)·normal = 0; spheres live where it is positive.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    pub name: String,
    pub point: [f64; 3],
    pub normal: [f64; 3],
}

/// The law of one pair of groups or of a group and a wall, and its name in reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    pub name: String,
    pub law: Law,
}

/// The particle section as arrays, indexed by particle id.
#[derive(Clone, Debug)]
pub struct Setup {
    pub dimension: u8,
    pub position: Vec<[f64; 3]>,
    pub velocity: Vec<[f64; 3]>,
    pub radius: Vec<f64>,
    pub mass: Vec<f64>,
    pub inverse_mass: Vec<f64>,
    pub group: Vec<u32>,
    pub local: Vec<u32>,
    pub group_names: Vec<String>,
    pub walls: Vec<Plane>,
    pub gravity: [f64; 3],
    pub interactions: Vec<Interaction>,
    /// groups × groups: the interaction of two groups, if the pair can meet.
    pair_table: Vec<Option<u32>>,
    /// groups × walls.
    wall_table: Vec<u32>,
}

fn invalid(pointer: Pointer, reason: &str) -> SolveError {
    SolveError::Invalid(InvalidParams::new(&pointer, reason))
}

/// The section's pointers inside the model.
fn section() -> Pointer {
    Pointer::root().at("particles")
}

trait AtPath {
    fn at_path(&self, tail: &str) -> Pointer;
}

impl AtPath for Pointer {
    fn at_path(&self, tail: &str) -> Pointer {
        // `tail` is already escaped; append its segments unchanged.
        let mut p = self.clone();
        for seg in tail.split('/').skip(1) {
            p = p.at(seg.replace("~1", "/").replace("~0", "~"));
        }
        p
    }
}

impl Setup {
    /// Arrays from a validated section; an inconsistency is reported, never unwrapped.
    pub fn new(parts: &Particles) -> Result<Setup, SolveError> {
        let count = parts.count();
        let mut s = Setup {
            dimension: parts.dimension,
            position: Vec::with_capacity(count),
            velocity: Vec::with_capacity(count),
            radius: Vec::with_capacity(count),
            mass: Vec::with_capacity(count),
            inverse_mass: Vec::with_capacity(count),
            group: Vec::with_capacity(count),
            local: Vec::with_capacity(count),
            group_names: parts.groups.iter().map(|g| g.name.clone()).collect(),
            walls: Vec::with_capacity(parts.walls.len()),
            gravity: parts.gravity,
            interactions: Vec::new(),
            pair_table: Vec::new(),
            wall_table: Vec::new(),
        };
        for (gi, g) in parts.groups.iter().enumerate() {
            for (si, sphere) in g.spheres.iter().enumerate() {
                let (r, m) = sphere_radius_mass(g, sphere).ok_or_else(|| {
                    invalid(
                        section().at("groups").at(gi).at("spheres").at(si),
                        "a sphere needs a radius and a mass",
                    )
                })?;
                s.position.push(sphere.position);
                s.velocity.push(sphere.velocity.unwrap_or(g.velocity));
                s.radius.push(r);
                s.mass.push(m);
                s.inverse_mass.push(1.0 / m);
                s.group.push(gi as u32);
                s.local.push(si as u32);
            }
        }
        for (wi, w) in parts.walls.iter().enumerate() {
            let len = w.normal.iter().map(|c| c * c).sum::<f64>().sqrt();
            if !(len > 0.0 && len.is_finite()) {
                return Err(invalid(
                    section().at("walls").at(wi).at("normal"),
                    "a wall's normal cannot be zero",
                ));
            }
            s.walls.push(Plane {
                name: w.name.clone(),
                point: w.point,
                normal: [w.normal[0] / len, w.normal[1] / len, w.normal[2] / len],
            });
        }
        let ng = parts.groups.len();
        s.pair_table = vec![None; ng * ng];
        for a in 0..ng {
            for b in a..ng {
                let Some((law, at)) = parts.group_law(a, b) else {
                    continue;
                };
                let checked = law
                    .check(&section().at_path(at.as_str()))
                    .map_err(SolveError::Invalid)?;
                let id = s.interactions.len() as u32;
                s.interactions.push(Interaction {
                    name: format!("{}/{}", parts.groups[a].name, parts.groups[b].name),
                    law: Law::new(&checked),
                });
                s.pair_table[a * ng + b] = Some(id);
                s.pair_table[b * ng + a] = Some(id);
            }
        }
        let nw = parts.walls.len();
        s.wall_table = vec![0; ng * nw];
        for g in 0..ng {
            for w in 0..nw {
                let (law, at) = parts.wall_law(g, w).ok_or_else(|| {
                    invalid(
                        section().at("laws"),
                        &format!(
                            "no contact law between the group '{}' and the wall '{}'",
                            parts.groups[g].name, parts.walls[w].name
                        ),
                    )
                })?;
                let checked = law
                    .check(&section().at_path(at.as_str()))
                    .map_err(SolveError::Invalid)?;
                let id = s.interactions.len() as u32;
                s.interactions.push(Interaction {
                    name: format!("{}/{}", parts.groups[g].name, parts.walls[w].name),
                    law: Law::new(&checked),
                });
                s.wall_table[g * nw + w] = id;
            }
        }
        Ok(s)
    }

    pub fn len(&self) -> usize {
        self.position.len()
    }

    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// The interaction of two spheres, None when their groups have no law (a group with
    /// a single sphere has none with itself).
    pub fn pair_interaction(&self, i: usize, j: usize) -> Option<u32> {
        let ng = self.group_names.len();
        self.pair_table[self.group[i] as usize * ng + self.group[j] as usize]
    }

    pub fn wall_interaction(&self, i: usize, wall: usize) -> u32 {
        self.wall_table[self.group[i] as usize * self.walls.len() + wall]
    }

    /// The stiffness constant c of two spheres under their law.
    pub fn pair_stiffness(&self, interaction: u32, i: usize, j: usize) -> f64 {
        let (ri, rj) = (self.radius[i], self.radius[j]);
        self.interactions[interaction as usize]
            .law
            .stiffness(ri * rj / (ri + rj))
    }

    pub fn wall_stiffness(&self, interaction: u32, i: usize) -> f64 {
        self.interactions[interaction as usize]
            .law
            .stiffness(self.radius[i])
    }

    /// True when some law has a viscous or dry term.
    pub fn any_dissipation(&self) -> bool {
        self.interactions.iter().any(|x| x.law.dissipative())
    }

    pub fn law_kind(&self, interaction: u32) -> LawKind {
        self.interactions[interaction as usize].law.kind
    }
}
