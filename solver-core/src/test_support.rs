//! What the crate's unit tests share: a repeatable sequence of numbers for scattering
//! points and spheres.

/// A linear congruential sequence (Knuth's MMIX multiplier and increment): the same numbers
/// on every run and every machine.
pub struct Sequence(u64);

impl Sequence {
    pub fn new(seed: u64) -> Self {
        Sequence(seed)
    }

    /// The next number in [0, 1), from the state's top 53 bits.
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
