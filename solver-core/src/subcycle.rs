//! Subcycling's levels: multi-time-step central differences on a nodal partition
//! (Belytschko, Yen & Mullen, "Mixed methods for time integration", CMAME 17/18, 1979).
//! A node of level k advances with 2^k stable increments: its velocity is kicked at the
//! start and end of its own step and its position drifts every increment, so between its
//! kicks it moves on the straight line the partition interpolates. An element is updated
//! with the smallest step among its nodes, which always sees every node at the same time.
//! A node's level is the lowest its elements' critical increments allow; nodes a contact
//! or a rigid wall acts on stay at level 0, since the penalty and the walls' impulses are
//! sized for one increment. Every node of an element advances with at most 2^reach
//! increments (its reach, the deepest of its nodes' levels), so the stable increment is
//! the smallest critical increment over 2^reach. This module owns the assignment and the
//! order that puts each level's elements together, so that an increment updates a prefix
//! of them.
//! Undamped, this partition can go unstable in narrow bands of the step (Daniel, "The
//! subcycled Newmark algorithm", Comput. Mech. 1997); the bulk viscosity damps, and the
//! energy-blow-up check stops a solve that grows.

/// How many increments each level's step spans, as exact powers of two.
pub const STEP_MULTIPLE: [f64; 7] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
/// The inverse of `STEP_MULTIPLE`, exact too.
const STEP_FRACTION: [f64; 7] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625];

/// The levels of a model's nodes and elements.
#[derive(Clone, Debug)]
pub struct Levels {
    /// Per node: the level of its step.
    pub node: Vec<u8>,
    /// Per element in level order: [its update level (the lowest of its nodes'), its reach
    /// (the deepest of its nodes')]. Its nodes advance with steps up to 2^reach increments,
    /// so its critical increment over 2^reach bounds the increment.
    pub element: Vec<[u8; 2]>,
    /// The model's element at each place of the level order; empty when it is the model's
    /// own order (no subcycling, or every element at one level).
    order: Vec<u32>,
    /// `through[k]`: how many elements (a prefix of the level order) update at level k or
    /// below.
    through: Vec<usize>,
    /// The deepest level any node has: a cycle of 2^deepest increments brings every node
    /// to the same time.
    pub deepest: u32,
}

impl Levels {
    /// Every node and element at level 0: plain central differences.
    pub fn uniform(nodes: usize, elements: usize) -> Self {
        Levels {
            node: vec![0; nodes],
            element: vec![[0, 0]; elements],
            order: Vec::new(),
            through: vec![elements],
            deepest: 0,
        }
    }

    /// Levels up to `asked` from each element's critical increment (model order): an
    /// element may run at 2^k increments when its critical increment is at least 2^k times
    /// the smallest. `pinned` nodes stay at level 0.
    pub fn assign(
        critical: &[f64],
        connectivity: &[[u32; 8]],
        nodes: usize,
        asked: u32,
        pinned: impl IntoIterator<Item = u32>,
    ) -> Self {
        let asked = asked.min(STEP_MULTIPLE.len() as u32 - 1) as u8;
        let smallest = critical.iter().copied().fold(f64::INFINITY, f64::min);
        if asked == 0 || !smallest.is_finite() || smallest <= 0.0 {
            return Levels::uniform(nodes, critical.len());
        }
        let natural: Vec<u8> = critical
            .iter()
            .map(|&c| {
                let mut k = 0u8;
                while k < asked && smallest * STEP_MULTIPLE[k as usize + 1] <= c {
                    k += 1;
                }
                k
            })
            .collect();
        let mut node = vec![u8::MAX; nodes];
        for (conn, &k) in connectivity.iter().zip(&natural) {
            for &n in conn {
                node[n as usize] = node[n as usize].min(k);
            }
        }
        for n in pinned {
            node[n as usize] = 0;
        }
        for k in &mut node {
            // A node no element holds has no step of its own to lengthen.
            if *k == u8::MAX {
                *k = 0;
            }
        }
        let update: Vec<u8> = connectivity
            .iter()
            .map(|conn| conn.iter().map(|&n| node[n as usize]).min().unwrap_or(0))
            .collect();
        // At most the element's natural level, less where pinned nodes hold it back.
        let reach: Vec<u8> = connectivity
            .iter()
            .map(|conn| conn.iter().map(|&n| node[n as usize]).max().unwrap_or(0))
            .collect();
        let deepest = node.iter().copied().max().unwrap_or(0) as u32;
        // A stable sort: within a level, the model's order.
        let mut order: Vec<u32> = (0..critical.len() as u32).collect();
        order.sort_by_key(|&e| update[e as usize]);
        let element: Vec<[u8; 2]> = order
            .iter()
            .map(|&e| [update[e as usize], reach[e as usize]])
            .collect();
        let through = (0..=deepest as u8)
            .map(|k| element.partition_point(|l| l[0] <= k))
            .collect();
        let identity = order.iter().enumerate().all(|(i, &e)| i == e as usize);
        Levels {
            node,
            element,
            order: if identity { Vec::new() } else { order },
            through,
            deepest,
        }
    }

    /// The model's element at place `i` of the level order.
    pub fn model_element(&self, i: usize) -> usize {
        self.order.get(i).map_or(i, |&e| e as usize)
    }

    /// The level order, or `None` when it is the model's own.
    pub fn order(&self) -> Option<&[u32]> {
        (!self.order.is_empty()).then_some(&self.order[..])
    }

    /// Model-ordered values in level order.
    pub fn to_level_order<T: Copy>(&self, by_model: &[T]) -> Vec<T> {
        match self.order() {
            Some(order) => order.iter().map(|&e| by_model[e as usize]).collect(),
            None => by_model.to_vec(),
        }
    }

    /// Level-ordered values in the model's order.
    pub fn to_model_order<T: Copy + Default>(&self, by_level: &[T]) -> Vec<T> {
        match self.order() {
            Some(order) => {
                let mut out = vec![T::default(); by_level.len()];
                for (&e, &v) in order.iter().zip(by_level) {
                    out[e as usize] = v;
                }
                out
            }
            None => by_level.to_vec(),
        }
    }

    /// How many elements (a prefix of the level order) the increment `substep` of a cycle
    /// of 2^`cycle` increments updates: those whose steps end with it.
    pub fn updated(&self, substep: u32, cycle: u32) -> usize {
        let ending = (substep + 1).trailing_zeros().min(cycle);
        if ending >= cycle {
            self.element.len()
        } else {
            self.through[(ending as usize).min(self.through.len() - 1)]
        }
    }
}

/// The critical increment an element of reach `k` sets for the stable increment: its own,
/// over 2^k (exact).
#[inline]
pub fn per_increment(critical: f64, reach: u8) -> f64 {
    critical * STEP_FRACTION[reach as usize]
}

/// One increment of a cycle of 2^`cycle`: which nodes start or end their steps with it.
#[derive(Clone, Copy, Debug)]
pub struct Substep {
    pub index: u32,
    pub cycle: u32,
}

impl Substep {
    /// Plain central differences: every node starts and ends its step every increment.
    pub const WHOLE: Substep = Substep { index: 0, cycle: 0 };

    /// A node's level within this cycle (a cycle shorter than its step cuts it).
    #[inline]
    pub fn level(self, level: u8) -> u32 {
        (level as u32).min(self.cycle)
    }

    /// Whether a node of `level` starts its step with this increment.
    #[inline]
    pub fn starts(self, level: u8) -> bool {
        self.index & ((1 << self.level(level)) - 1) == 0
    }

    /// Whether a node of `level` ends its step with this increment.
    #[inline]
    pub fn ends(self, level: u8) -> bool {
        (self.index + 1) & ((1 << self.level(level)) - 1) == 0
    }

    /// The length of a step of `level` in increments of `dt`.
    #[inline]
    pub fn step(self, level: u8, dt: f64) -> f64 {
        dt * STEP_MULTIPLE[self.level(level) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of five elements along x, their critical increments 1, 1, 2.5, 4.5, 9, in a
    /// shuffled model order; nodes 0..=5 along the row at the bottom and 6..=11 on top.
    fn row() -> (Vec<f64>, Vec<[u32; 8]>) {
        let at = |i: u32| [i, i + 1, i + 7, i + 6, i, i + 1, i + 7, i + 6];
        // Model order: the elements at places 3, 0, 4, 1, 2 of the row.
        let places = [3u32, 0, 4, 1, 2];
        let critical = [1.0, 1.0, 2.5, 4.5, 9.0];
        (
            places.iter().map(|&p| critical[p as usize]).collect(),
            places.iter().map(|&p| at(p)).collect(),
        )
    }

    #[test]
    fn levels_follow_the_critical_increments_and_the_slowest_neighbour() {
        let (critical, conn) = row();
        let l = Levels::assign(&critical, &conn, 12, 3, []);
        // Natural levels along the row: 0, 0, 1, 2, 3. A node takes the lowest of its
        // elements': bottom nodes 0..=5 get 0, 0, 0, 1, 2, 3.
        assert_eq!(&l.node[..6], &[0, 0, 0, 1, 2, 3]);
        assert_eq!(l.deepest, 3);
        // Update levels along the row (the lowest of each element's nodes): 0, 0, 0, 1, 2.
        // Level order: the row's elements 0, 1, 2 (model elements 1, 3, 4), then 3 (model 0),
        // then 4 (model 2).
        let model: Vec<usize> = (0..5).map(|i| l.model_element(i)).collect();
        assert_eq!(model, [1, 3, 4, 0, 2]);
        assert_eq!(
            l.element,
            [[0, 0], [0, 0], [0, 1], [1, 2], [2, 3]],
            "[update, reach] in level order"
        );
        // A cycle of 8: the increments ending levels 0, 1, 0, 2, 0, 1, 0, 3.
        let updated: Vec<usize> = (0..8).map(|i| l.updated(i, 3)).collect();
        assert_eq!(updated, [3, 4, 3, 5, 3, 4, 3, 5]);
        // The cycle cut to 1 (the step's last stretch): every element every increment.
        assert_eq!(l.updated(0, 0), 5);
        let back = l.to_model_order(&l.to_level_order(&critical));
        assert_eq!(back, critical);
    }

    #[test]
    fn pinned_nodes_and_a_cap_on_the_levels() {
        let (critical, conn) = row();
        // The contact's nodes at the row's far end pull the last element to level 0.
        let l = Levels::assign(&critical, &conn, 12, 1, [5, 11]);
        assert_eq!(&l.node[..6], &[0, 0, 0, 1, 1, 0]);
        assert_eq!(l.deepest, 1);
        let by_model: Vec<[u8; 2]> = l.to_model_order(&l.element);
        // Model order: the row's elements 3, 0, 4, 1, 2.
        assert_eq!(by_model, [[1, 1], [0, 0], [0, 1], [0, 0], [0, 1]]);
        // Every node pinned (a wall holding the whole part): nothing subcycles, and no
        // element's critical increment is divided, whatever its size allows.
        let held = Levels::assign(&critical, &conn, 12, 3, 0..12);
        assert_eq!(held.deepest, 0);
        assert!(held.order().is_none());
        assert!(held.element.iter().all(|&l| l == [0, 0]));
    }

    #[test]
    fn one_level_or_none_asked_keeps_the_model_order() {
        let (critical, conn) = row();
        for l in [
            Levels::assign(&critical, &conn, 12, 0, []),
            Levels::assign(&[2.0; 5], &conn, 12, 4, []),
        ] {
            assert!(l.order().is_none());
            assert_eq!(l.deepest, 0);
            assert!(l.node.iter().all(|&k| k == 0));
            assert_eq!(l.updated(0, 0), 5);
        }
    }

    #[test]
    fn substeps_start_and_end_each_level_in_turn() {
        let starts = |k: u8| -> Vec<bool> {
            (0..4)
                .map(|i| Substep { index: i, cycle: 2 }.starts(k))
                .collect()
        };
        let ends = |k: u8| -> Vec<bool> {
            (0..4)
                .map(|i| Substep { index: i, cycle: 2 }.ends(k))
                .collect()
        };
        assert_eq!(starts(0), [true; 4]);
        assert_eq!(ends(0), [true; 4]);
        assert_eq!(starts(1), [true, false, true, false]);
        assert_eq!(ends(1), [false, true, false, true]);
        // Level 3 in a cycle of 4: cut to the cycle.
        assert_eq!(starts(3), [true, false, false, false]);
        assert_eq!(ends(3), [false, false, false, true]);
        assert_eq!(Substep { index: 1, cycle: 2 }.step(3, 0.5), 2.0);
        assert!(Substep::WHOLE.starts(5) && Substep::WHOLE.ends(5));
        assert_eq!(per_increment(3.0, 2), 0.75);
    }
}
