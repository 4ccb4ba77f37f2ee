//! Body loads on the finite-element parts: gravity, and the work it does.

/// A constant acceleration on every free degree of freedom, and its work so far.
#[derive(Clone, Debug, Default)]
pub struct Gravity {
    g: Option<[f64; 3]>,
    work: f64,
}

impl Gravity {
    pub fn new(g: Option<[f64; 3]>) -> Self {
        Gravity {
            g: g.filter(|g| g.iter().any(|&c| c != 0.0)),
            work: 0.0,
        }
    }

    /// Add m g into the force `f` of a node of mass `m` on its free degrees of freedom.
    #[inline]
    pub fn add_force(&self, f: &mut [f64; 3], m: f64, fixed: &[bool; 3]) {
        let Some(g) = self.g else {
            return;
        };
        for k in 0..3 {
            if !fixed[k] {
                f[k] += m * g[k];
            }
        }
    }

    /// Account the work over the increment whose velocities were `v` (the force is
    /// constant, so m g . v dt is its exact work), node by node in order.
    pub fn account_work(&mut self, v: &[[f64; 3]], mass: &[f64], fixed: &[[bool; 3]], dt: f64) {
        let Some(g) = self.g else {
            return;
        };
        let mut work = 0.0;
        for ((v, m), fixed) in v.iter().zip(mass).zip(fixed) {
            for k in 0..3 {
                if !fixed[k] {
                    work += m * g[k] * v[k] * dt;
                }
            }
        }
        self.work += work;
    }

    pub fn work(&self) -> f64 {
        self.work
    }
}
