//! A seeded generator: plenty for resampling, and no dependency for ten
//! lines.

/// A xorshift64* generator: the bootstraps' resampling, and the order of
/// each interleaved round (`runner::rounds`), both from a recorded seed.
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator seeded with `seed` (a zero seed would stay zero).
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(seed.max(1))
    }

    /// 0..n in a random order (Fisher-Yates).
    pub(crate) fn shuffled(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        order
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform draw in (0, 1].
    pub(super) fn unit(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw (Box-Muller).
    pub(super) fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Fill `out` with draws (with replacement) from `from`.
    pub(super) fn resample(&mut self, from: &[f64], out: &mut [f64]) {
        for slot in out.iter_mut() {
            *slot = from[(self.next() % from.len() as u64) as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_draws_the_same_orders_and_every_order_comes_up() {
        let draw = |seed| {
            let mut rng = XorShift::new(seed);
            (0..200).map(|_| rng.shuffled(2)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        let firsts = draw(7).iter().filter(|o| o[0] == 0).count();
        assert!(
            (60..=140).contains(&firsts),
            "case 0 first in {firsts} of 200"
        );
        let mut three = XorShift::new(1).shuffled(3);
        three.sort_unstable();
        assert_eq!(three, [0, 1, 2]);
    }
}
