//! The statistics of judged moves: an optimal-move rate with its standard error, and the paired
//! comparison of two players with its exact sign test.

use serde::{Deserialize, Serialize};

/// An optimal-move rate over some of the judged positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Positions counted.
    pub positions: usize,
    /// Share of them where the network's move is optimal.
    pub optimal_rate: f64,
    /// Standard error of that share, `sqrt(p (1 - p) / n)`.
    pub std_err: f64,
}

impl Rate {
    pub(super) fn of(optimal: usize, n: usize) -> Rate {
        let p = optimal as f64 / n.max(1) as f64;
        Rate {
            positions: n,
            optimal_rate: p,
            std_err: (p * (1.0 - p) / n.max(1) as f64).sqrt(),
        }
    }
}

/// Two networks compared position by position on one judge set (pie decisions left out).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Positions where the first network's move is optimal and the second's is not.
    pub only_first: usize,
    /// Positions where the second network's move is optimal and the first's is not.
    pub only_second: usize,
    /// Two-sided exact sign test over those positions of "both networks are as good".
    pub p_value: f64,
}

impl Paired {
    /// The paired comparison of two players' per-position correctness, position by position.
    pub fn of(
        first: impl IntoIterator<Item = bool>,
        second: impl IntoIterator<Item = bool>,
    ) -> Paired {
        let (mut only_first, mut only_second) = (0, 0);
        for (a, b) in first.into_iter().zip(second) {
            match (a, b) {
                (true, false) => only_first += 1,
                (false, true) => only_second += 1,
                _ => {}
            }
        }
        Paired {
            only_first,
            only_second,
            p_value: sign_test(only_first, only_first + only_second),
        }
    }
}

/// Two-sided exact sign test: the chance of a split at least as uneven as `k` of `n` when each
/// side is equally likely.
pub fn sign_test(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let low = k.min(n - k);
    // ln C(n, i) - n ln 2, summed over i = 0..=low.
    let mut ln_c = 0.0f64;
    let mut tail = 0.0f64;
    for i in 0..=low {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_c - n as f64 * std::f64::consts::LN_2).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_test_matches_the_binomial_tails() {
        // n = 10: P(X <= 1) = 11 / 1024, two-sided 22 / 1024.
        assert!((sign_test(1, 10) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(9, 10) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(5, 10), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // 22 against 15 is chance; 40 against 10 is not; large n does not underflow.
        assert!(
            (0.3..0.4).contains(&sign_test(22, 37)),
            "{}",
            sign_test(22, 37)
        );
        assert!(sign_test(40, 50) < 1e-4);
        assert!(sign_test(600, 1200) > 0.9 && sign_test(500, 1200) < 1e-6);
    }

    #[test]
    fn rates_carry_their_standard_error() {
        let r = Rate::of(90, 100);
        assert!((r.optimal_rate - 0.9).abs() < 1e-12);
        assert!((r.std_err - 0.03).abs() < 1e-12);
        assert_eq!(Rate::of(0, 0).positions, 0);
    }
}
