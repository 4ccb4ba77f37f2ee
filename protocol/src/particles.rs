//! The particle section of a model: discrete spheres in groups, planar walls, gravity,
//! the contact law of every pair of groups and of every group and wall, and the time
//! step. Beside it, the particle part of the solve summary and of a probe's answer, and
//! the section's validation with the JSON pointer of the first offending value.

use crate::pointer::Pointer;
use crate::validate::InvalidParams;
use crate::validate::{finite, positive};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Discrete spheres moving under pair contact laws, fixed planar walls and gravity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Particles {
    /// 1, 2 or 3: the spheres move along x, in the x-y plane, or in space. Positions,
    /// velocities, gravity and wall normals have zero components beyond it.
    #[serde(default = "default_dimension")]
    pub dimension: u8,
    pub groups: Vec<ParticleGroup>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<Wall>,
    /// The acceleration of gravity.
    #[serde(default)]
    pub gravity: [f64; 3],
    /// The law of every pair (two groups, or a group and a wall) that neither `laws` nor
    /// the wall's own `law` names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law: Option<ContactLaw>,
    /// Laws for given pairs: two group names, or a group and a wall.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub laws: Vec<PairLaw>,
    #[serde(default)]
    pub time_step: TimeStep,
    /// How many collisions the summary lists one by one (the first to begin). The counts
    /// and the figures per interaction cover every collision.
    #[serde(default = "default_listed_collisions")]
    pub listed_collisions: usize,
}

pub fn default_dimension() -> u8 {
    3
}

pub fn default_listed_collisions() -> usize {
    100
}

/// The most collisions a summary lists one by one.
pub const MAX_LISTED_COLLISIONS: usize = 10_000;

/// The most spheres one model holds (about 1 GiB of solve state with a few frames).
pub const MAX_PARTICLES: usize = 5_000_000;

/// Steps per contact time when the model gives neither `dt` nor `steps_per_contact`.
pub const AUTOMATIC_STEPS_PER_CONTACT: f64 = 50.0;

/// Spheres that share defaults and contact laws. Spheres are numbered one after another
/// over the groups, in order, from 0: that is the particle id of probes and reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParticleGroup {
    pub name: String,
    /// The radius of the spheres that do not give their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// The mass of each sphere that does not give its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Density: a sphere's mass is 4/3 π r³ ρ (whatever the dimension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// The initial velocity of the spheres that do not give their own.
    #[serde(default)]
    pub velocity: [f64; 3],
    pub spheres: Vec<Sphere>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sphere {
    /// The centre at t = 0.
    pub position: [f64; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
}

/// A fixed, infinitely massive plane. A sphere touches it when its centre is closer to
/// the plane than its radius on the side the normal points to (or lies behind it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wall {
    pub name: String,
    /// A point of the plane.
    #[serde(default)]
    pub point: [f64; 3],
    /// The normal, pointing to the side where the spheres are (any non-zero length).
    pub normal: [f64; 3],
    /// The law of this wall with every group that `laws` does not pair with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law: Option<ContactLaw>,
}

/// A law for one pair: two group names (the same one twice for a group with itself), or
/// a group and a wall.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PairLaw {
    pub between: [String; 2],
    pub law: ContactLaw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LawKind {
    /// F = k x (soft spheres).
    Hooke,
    /// F = c x^n, with c = 4/3 E* √R* and n = 3/2 from `E` and `nu`, or `c` and `n` given.
    Hertz,
    /// F = c x^n (1 + b x' + d sgn x'), never a pull (Borovin and Lapshin 2018).
    HertzHuntCrossley,
}

impl LawKind {
    pub fn name(self) -> &'static str {
        match self {
            LawKind::Hooke => "hooke",
            LawKind::Hertz => "hertz",
            LawKind::HertzHuntCrossley => "hertz_hunt_crossley",
        }
    }
}

/// A contact law as the model writes it: `{"kind": "hooke", "k": ...}`,
/// `{"kind": "hertz", "E": ..., "nu": ...}` or `{"kind": "hertz", "c": ..., "n": ...}`,
/// `{"kind": "hertz_hunt_crossley", "c": ..., "n": ..., "b": ..., "d": ...}`. x is the
/// overlap of the two bodies, x' its rate (positive while they approach).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactLaw {
    pub kind: LawKind,
    /// Hooke's stiffness (force per length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// Young's modulus of both bodies (a Hertz law from the material).
    #[serde(rename = "E", default, skip_serializing_if = "Option::is_none")]
    pub youngs_modulus: Option<f64>,
    /// Poisson's ratio of both bodies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nu: Option<f64>,
    /// The stiffness constant of f(x) = c x^n (force per length^n).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// The exponent of f(x) = c x^n; 3/2 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<f64>,
    /// The viscous constant (time per length); 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<f64>,
    /// The dry constant (dimensionless); 0 when absent. With d >= 1 an impact is
    /// perfectly inelastic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<f64>,
}

/// The elastic part f(x) of a checked law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elastic {
    /// f(x) = c x^n.
    Power { c: f64, n: f64 },
    /// Hertz from the material of both bodies: c = 4/3 E* √R*, 1/E* = 2 (1 - ν²)/E, n = 3/2;
    /// R* is the pair's effective radius (the sphere's own against a wall).
    Material { youngs_modulus: f64, nu: f64 },
}

/// A checked law: f(x) (1 + b x' + d sgn x').
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckedLaw {
    pub kind: LawKind,
    pub elastic: Elastic,
    pub b: f64,
    pub d: f64,
}

/// The Hertz exponent of two spheres (or a sphere and a plane).
pub const HERTZ_EXPONENT: f64 = 1.5;

impl ContactLaw {
    /// The law's parameters, checked; an error names the offending field under `p`.
    pub fn check(&self, p: &Pointer) -> Result<CheckedLaw, InvalidParams> {
        let kind = self.kind;
        let given: Vec<(&str, Option<f64>)> = vec![
            ("k", self.k),
            ("E", self.youngs_modulus),
            ("nu", self.nu),
            ("c", self.c),
            ("n", self.n),
            ("b", self.b),
            ("d", self.d),
        ];
        let allowed: &[&str] = match kind {
            LawKind::Hooke => &["k"],
            LawKind::Hertz => &["E", "nu", "c", "n"],
            LawKind::HertzHuntCrossley => &["E", "nu", "c", "n", "b", "d"],
        };
        for (key, value) in &given {
            if let Some(v) = value {
                if !allowed.contains(key) {
                    return Err(InvalidParams::new(
                        &p.at(key),
                        format!(
                            "a {} law takes {}; '{key}' does not belong to it",
                            kind.name(),
                            allowed.join(", ")
                        ),
                    ));
                }
                finite(&p.at(key), *v)?;
            }
        }
        let elastic = match kind {
            LawKind::Hooke => {
                let k = self.k.ok_or_else(|| {
                    InvalidParams::new(&p.at("k"), "a hooke law needs its stiffness k")
                })?;
                positive(&p.at("k"), k, "the stiffness k")?;
                Elastic::Power { c: k, n: 1.0 }
            }
            LawKind::Hertz | LawKind::HertzHuntCrossley => {
                match (self.c, self.youngs_modulus, self.nu) {
                    (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                        return Err(InvalidParams::new(
                            p,
                            "give either c (and n) or the material's E and nu, not both",
                        ))
                    }
                    (Some(c), None, None) => {
                        positive(&p.at("c"), c, "the stiffness constant c")?;
                        let n = self.n.unwrap_or(HERTZ_EXPONENT);
                        // Below 1 the contact stiffness c n x^(n-1) is infinite at first
                        // touch, and no explicit step resolves it.
                        if !(1.0..=4.0).contains(&n) {
                            return Err(InvalidParams::new(
                                &p.at("n"),
                                format!("the exponent n must lie in [1, 4], got {n}"),
                            ));
                        }
                        Elastic::Power { c, n }
                    }
                    (None, e, nu) => {
                        if self.n.is_some() {
                            return Err(InvalidParams::new(
                                &p.at("n"),
                                "a law from E and nu has Hertz's n = 3/2; give c with n",
                            ));
                        }
                        let e = e.ok_or_else(|| {
                            InvalidParams::new(
                                &p.at("E"),
                                "give c (and n), or the material's E and nu",
                            )
                        })?;
                        let nu =
                            nu.ok_or_else(|| InvalidParams::new(&p.at("nu"), "give nu with E"))?;
                        positive(&p.at("E"), e, "Young's modulus")?;
                        if !(nu > -1.0 && nu <= 0.5) {
                            return Err(InvalidParams::new(
                                &p.at("nu"),
                                format!("Poisson's ratio must lie in (-1, 0.5], got {nu}"),
                            ));
                        }
                        Elastic::Material {
                            youngs_modulus: e,
                            nu,
                        }
                    }
                }
            }
        };
        let b = self.b.unwrap_or(0.0);
        let d = self.d.unwrap_or(0.0);
        if b < 0.0 {
            return Err(InvalidParams::new(
                &p.at("b"),
                "the viscous constant b cannot be negative",
            ));
        }
        if d < 0.0 {
            return Err(InvalidParams::new(
                &p.at("d"),
                "the dry constant d cannot be negative",
            ));
        }
        Ok(CheckedLaw {
            kind,
            elastic,
            b,
            d,
        })
    }
}

/// The time step: `{"dt": ...}`, `{"steps_per_contact": N}` (dt = the contact time of
/// the stiffest pair over N), or neither for automatic (`AUTOMATIC_STEPS_PER_CONTACT`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_per_contact: Option<f64>,
}

/// The particle part of a solve summary (at the end of the last step).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParticleSummary {
    pub particles: usize,
    pub dimension: u8,
    /// The increment used (each step is cut into equal increments of at most this).
    pub time_step: f64,
    /// The elastic contact time of the stiffest pair at `reference_speed`; null when no
    /// two bodies can meet.
    pub reference_contact_time: Option<f64>,
    /// The fastest approach the start allows: twice the fastest sphere, with the fall
    /// across the model's extent under gravity.
    pub reference_speed: f64,
    /// `reference_contact_time` over the largest increment taken.
    pub steps_per_contact: Option<f64>,
    pub energy: ParticleEnergy,
    pub mass: f64,
    pub momentum: [f64; 3],
    pub initial_momentum: [f64; 3],
    pub centre_of_mass: [f64; 3],
    pub initial_centre_of_mass: [f64; 3],
    /// Collisions begun during the solve (a pair in contact at t = 0 counts as one).
    pub collisions_total: u64,
    /// Of these, the ones still in contact at the end.
    pub collisions_open: u64,
    /// True when `collisions` lists fewer than `collisions_total` (the model's
    /// `listed_collisions` caps it; the first to begin are listed).
    pub collisions_truncated: bool,
    pub collisions: Vec<CollisionReport>,
    /// One entry per pair of groups and per group and wall that has a law.
    pub interactions: Vec<InteractionReport>,
    /// How often the neighbour list was rebuilt.
    pub neighbour_rebuilds: u64,
}

/// Energies of the particles at the end of the last step. kinetic + contact +
/// dissipated_viscous + dissipated_dry = initial + external_work, and `balance_error` is
/// that sum over (initial + external_work), minus 1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParticleEnergy {
    pub kinetic: f64,
    /// Elastic energy the overlaps hold: the integral of f(x).
    pub contact: f64,
    /// Work taken by the viscous term b f(x) x'.
    pub dissipated_viscous: f64,
    /// Work taken by the dry term d f(x) sgn x'.
    pub dissipated_dry: f64,
    /// Work of gravity.
    pub external_work: f64,
    /// Kinetic plus contact energy at t = 0.
    pub initial: f64,
    pub balance_error: f64,
}

/// One collision: from the first touch of two bodies to their separation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CollisionReport {
    /// The interaction's name, as in `interactions`.
    pub interaction: String,
    pub particle: u32,
    /// The other sphere, for a collision of two spheres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<u32>,
    /// The wall, for a sphere hitting a wall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<String>,
    /// When the overlap became positive (interpolated between increments).
    pub first_contact: f64,
    /// When it became zero again; null while the bodies are still in contact at the end.
    pub last_contact: Option<f64>,
    pub duration: Option<f64>,
    pub peak_force: f64,
    pub max_overlap: f64,
    /// The normal approach speed before the contact force acted.
    pub approach_speed: f64,
    /// The normal separation speed after the contact, or at the end when still open
    /// (0 for a sphere at rest in contact).
    pub separation_speed: f64,
    /// separation_speed / approach_speed; null when the bodies touched at rest.
    pub restitution: Option<f64>,
    pub dissipated_viscous: f64,
    pub dissipated_dry: f64,
}

/// All contacts of one pair of groups, or of one group and one wall.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InteractionReport {
    /// `group/group` or `group/wall`.
    pub name: String,
    pub law: LawKind,
    pub collisions: u64,
    pub peak_force: f64,
    pub max_overlap: f64,
    pub first_contact: Option<f64>,
    pub last_contact: Option<f64>,
    pub dissipated_viscous: f64,
    pub dissipated_dry: f64,
}

/// One sphere in a probe's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProbedParticle {
    /// The particle id (spheres numbered over the groups in order).
    pub id: u32,
    pub group: String,
    /// The sphere's index within its group.
    pub local: u32,
    pub radius: f64,
    pub mass: f64,
    /// The centre at t = 0.
    pub reference: [f64; 3],
    /// Distance from the asked point to `reference` (0 for ids).
    pub distance: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displacement: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 3]>,
}

/// A vector of finite components, zero beyond the dimension.
fn in_space(p: &Pointer, v: &[f64; 3], dimension: u8, what: &str) -> Result<(), InvalidParams> {
    for (k, c) in v.iter().enumerate() {
        finite(&p.at(k), *c)?;
        if k >= usize::from(dimension) && *c != 0.0 {
            return Err(InvalidParams::new(
                &p.at(k),
                format!(
                    "{what} must have zero components beyond the model's dimension {dimension}"
                ),
            ));
        }
    }
    Ok(())
}

/// What a law name in `between` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Body {
    Group(usize),
    Wall(usize),
}

impl Particles {
    /// A group or wall by name.
    pub fn body(&self, name: &str) -> Option<Body> {
        self.groups
            .iter()
            .position(|g| g.name == name)
            .map(Body::Group)
            .or_else(|| {
                self.walls
                    .iter()
                    .position(|w| w.name == name)
                    .map(Body::Wall)
            })
    }

    /// The law of two groups, and the pointer it was written at (relative to the section).
    pub fn group_law(&self, a: usize, b: usize) -> Option<(&ContactLaw, Pointer)> {
        let base = Pointer::root();
        for (i, pl) in self.laws.iter().enumerate() {
            let pair = [self.body(&pl.between[0]), self.body(&pl.between[1])];
            if pair == [Some(Body::Group(a)), Some(Body::Group(b))]
                || pair == [Some(Body::Group(b)), Some(Body::Group(a))]
            {
                return Some((&pl.law, base.at("laws").at(i).at("law")));
            }
        }
        self.law.as_ref().map(|l| (l, base.at("law")))
    }

    /// The law of a group and a wall: `laws`, then the wall's own, then the default.
    pub fn wall_law(&self, group: usize, wall: usize) -> Option<(&ContactLaw, Pointer)> {
        let base = Pointer::root();
        for (i, pl) in self.laws.iter().enumerate() {
            let pair = [self.body(&pl.between[0]), self.body(&pl.between[1])];
            if pair == [Some(Body::Group(group)), Some(Body::Wall(wall))]
                || pair == [Some(Body::Wall(wall)), Some(Body::Group(group))]
            {
                return Some((&pl.law, base.at("laws").at(i).at("law")));
            }
        }
        if let Some(l) = &self.walls[wall].law {
            return Some((l, base.at("walls").at(wall).at("law")));
        }
        self.law.as_ref().map(|l| (l, base.at("law")))
    }

    /// The number of spheres over all groups.
    pub fn count(&self) -> usize {
        self.groups.iter().map(|g| g.spheres.len()).sum()
    }
}

/// Check a particle section whose params pointer is `base` (e.g. `/model/particles`).
pub fn validate_particles(parts: &Particles, base: &Pointer) -> Result<(), InvalidParams> {
    let dim = parts.dimension;
    if !(1..=3).contains(&dim) {
        return Err(InvalidParams::new(
            &base.at("dimension"),
            format!("the dimension must be 1, 2 or 3, got {dim}"),
        ));
    }
    let groups = base.at("groups");
    if parts.groups.is_empty() {
        return Err(InvalidParams::new(
            &groups,
            "a particle section needs at least one group",
        ));
    }
    let mut names = BTreeSet::new();
    for (i, g) in parts.groups.iter().enumerate() {
        check_name(&mut names, &g.name, &groups.at(i).at("name"))?;
    }
    for (i, w) in parts.walls.iter().enumerate() {
        check_name(&mut names, &w.name, &base.at("walls").at(i).at("name"))?;
    }
    let count = parts.count();
    if count > MAX_PARTICLES {
        return Err(InvalidParams::new(
            &groups,
            format!("{count} spheres is more than the {MAX_PARTICLES} a model may hold"),
        ));
    }
    for (i, g) in parts.groups.iter().enumerate() {
        validate_group(g, dim, &groups.at(i))?;
    }
    in_space(&base.at("gravity"), &parts.gravity, dim, "gravity")?;
    for (i, w) in parts.walls.iter().enumerate() {
        let p = base.at("walls").at(i);
        for (k, c) in w.point.iter().enumerate() {
            finite(&p.at("point").at(k), *c)?;
        }
        in_space(&p.at("normal"), &w.normal, dim, "a wall's normal")?;
        let len2: f64 = w.normal.iter().map(|c| c * c).sum();
        if !(len2 > 0.0 && len2.is_finite()) {
            return Err(InvalidParams::new(
                &p.at("normal"),
                "a wall's normal cannot be zero",
            ));
        }
        if let Some(l) = &w.law {
            l.check(&p.at("law"))?;
        }
    }
    if let Some(l) = &parts.law {
        l.check(&base.at("law"))?;
    }
    let mut pairs = BTreeSet::new();
    for (i, pl) in parts.laws.iter().enumerate() {
        let p = base.at("laws").at(i);
        let mut bodies = [Body::Group(0); 2];
        for (k, name) in pl.between.iter().enumerate() {
            bodies[k] = parts.body(name).ok_or_else(|| {
                InvalidParams::new(
                    &p.at("between").at(k),
                    format!("no group or wall is named '{name}'"),
                )
            })?;
        }
        if let [Body::Wall(_), Body::Wall(_)] = bodies {
            return Err(InvalidParams::new(
                &p.at("between"),
                "walls do not touch each other: name a group on at least one side",
            ));
        }
        bodies.sort();
        if !pairs.insert(bodies) {
            return Err(InvalidParams::new(
                &p.at("between"),
                format!(
                    "a law between '{}' and '{}' is given twice",
                    pl.between[0], pl.between[1]
                ),
            ));
        }
        pl.law.check(&p.at("law"))?;
    }
    // Every pair that can touch needs a law, so a sphere never passes through another
    // body silently.
    for (a, ga) in parts.groups.iter().enumerate() {
        for (b, gb) in parts.groups.iter().enumerate().skip(a) {
            let can_meet = if a == b { ga.spheres.len() > 1 } else { true };
            if can_meet && parts.group_law(a, b).is_none() {
                return Err(InvalidParams::new(
                    &base.at("laws"),
                    format!(
                        "no contact law between the groups '{}' and '{}': add one to 'laws' or give a default 'law'",
                        ga.name, gb.name
                    ),
                ));
            }
        }
        for (w, wall) in parts.walls.iter().enumerate() {
            if parts.wall_law(a, w).is_none() {
                return Err(InvalidParams::new(
                    &base.at("laws"),
                    format!(
                        "no contact law between the group '{}' and the wall '{}': add one to 'laws', give the wall a 'law', or give a default 'law'",
                        ga.name, wall.name
                    ),
                ));
            }
        }
    }
    let ts = base.at("time_step");
    match (parts.time_step.dt, parts.time_step.steps_per_contact) {
        (Some(_), Some(_)) => {
            return Err(InvalidParams::new(
                &ts,
                "give either dt or steps_per_contact, not both (neither: automatic)",
            ))
        }
        (Some(dt), None) => positive(&ts.at("dt"), dt, "the time step dt")?,
        (None, Some(n)) => positive(&ts.at("steps_per_contact"), n, "steps_per_contact")?,
        (None, None) => {}
    }
    if parts.listed_collisions > MAX_LISTED_COLLISIONS {
        return Err(InvalidParams::new(
            &base.at("listed_collisions"),
            format!(
                "a summary lists at most {MAX_LISTED_COLLISIONS} collisions, got {}",
                parts.listed_collisions
            ),
        ));
    }
    Ok(())
}

fn check_name<'a>(
    seen: &mut BTreeSet<&'a str>,
    name: &'a str,
    p: &Pointer,
) -> Result<(), InvalidParams> {
    if name.is_empty() {
        return Err(InvalidParams::new(p, "a group or wall needs a name"));
    }
    if !seen.insert(name) {
        return Err(InvalidParams::new(
            p,
            format!("the name '{name}' is used twice (groups and walls share one namespace)"),
        ));
    }
    Ok(())
}

fn validate_group(g: &ParticleGroup, dim: u8, p: &Pointer) -> Result<(), InvalidParams> {
    if let Some(r) = g.radius {
        positive(&p.at("radius"), r, "a radius")?;
    }
    if let Some(m) = g.mass {
        positive(&p.at("mass"), m, "a mass")?;
    }
    if let Some(rho) = g.density {
        positive(&p.at("density"), rho, "a density")?;
    }
    if g.mass.is_some() && g.density.is_some() {
        return Err(InvalidParams::new(
            p,
            "give a group's mass or its density, not both",
        ));
    }
    in_space(&p.at("velocity"), &g.velocity, dim, "a velocity")?;
    if g.spheres.is_empty() {
        return Err(InvalidParams::new(
            &p.at("spheres"),
            "a group needs at least one sphere",
        ));
    }
    for (i, s) in g.spheres.iter().enumerate() {
        let q = p.at("spheres").at(i);
        in_space(&q.at("position"), &s.position, dim, "a position")?;
        if let Some(v) = &s.velocity {
            in_space(&q.at("velocity"), v, dim, "a velocity")?;
        }
        match (s.radius, g.radius) {
            (Some(r), _) => positive(&q.at("radius"), r, "a radius")?,
            (None, Some(_)) => {}
            (None, None) => {
                return Err(InvalidParams::new(
                    &q.at("radius"),
                    "a sphere needs a radius: give it here or on its group",
                ))
            }
        }
        match (s.mass, g.mass, g.density) {
            (Some(m), _, _) => positive(&q.at("mass"), m, "a mass")?,
            (None, Some(_), _) | (None, None, Some(_)) => {}
            (None, None, None) => {
                return Err(InvalidParams::new(
                    &q.at("mass"),
                    "a sphere needs a mass: give it here, or a mass or density on its group",
                ))
            }
        }
    }
    Ok(())
}

/// The radius and mass of a sphere of a validated group.
pub fn sphere_radius_mass(g: &ParticleGroup, s: &Sphere) -> Option<(f64, f64)> {
    let r = s.radius.or(g.radius)?;
    let m = match (s.mass, g.mass, g.density) {
        (Some(m), _, _) | (None, Some(m), _) => m,
        (None, None, Some(rho)) => 4.0 / 3.0 * std::f64::consts::PI * r * r * r * rho,
        (None, None, None) => return None,
    };
    Some((r, m))
}
