//! Elo ratings by maximum likelihood: the Bradley–Terry model with draws counted as half a win,
//! fitted by Newton's method, with 95% confidence intervals from the Fisher information.
//!
//! Player `i` scores against `j` with probability `p = 1 / (1 + 10^((r_j - r_i) / 400))`. The
//! log-likelihood of the observed scores `s_ij` out of `n_ij` games is concave in the ratings, so
//! Newton's method from zero converges in a few steps; one player (the anchor) is held at 0. The
//! inverse of the negated Hessian at the optimum is the covariance of the other ratings, and each
//! interval is the rating ± 1.96 standard errors.
//!
//! The maximum does not exist when some group of players never lost a half point to the rest
//! (a player with a perfect score is "infinitely" strong). Then every pairing that was played gets
//! one virtual draw (a weak prior that pulls such ratings to a finite lower bound), and the fit
//! says so with `regularized`.

use serde::Serialize;

/// Elo points per natural-log unit of the logistic: `400 / ln 10`.
pub const ELO_SCALE: f64 = 400.0 / std::f64::consts::LN_10;

/// The results between two players: `games` played, and `score` (wins plus half the draws) of
/// player `a` against player `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairScore {
    /// Index of the first player.
    pub a: usize,
    /// Index of the second player.
    pub b: usize,
    /// Games between them.
    pub games: f64,
    /// Points of `a` (a win 1, a draw 0.5).
    pub score: f64,
}

/// One fitted rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo, relative to the anchor (0).
    pub elo: f64,
    /// 95% confidence interval, lower end (equal to `elo` for the anchor).
    pub lower: f64,
    /// 95% confidence interval, upper end.
    pub upper: f64,
}

/// The fit of every player.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// One rating per player, in the order given.
    pub ratings: Vec<Rating>,
    /// Whether virtual draws were added because the plain maximum does not exist.
    pub regularized: bool,
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// The anchor is not one of the players.
    #[error("anchor index {0} is not a player")]
    Anchor(usize),
    /// Some player never played anyone connected to the anchor.
    #[error("player {0} has no games linking it to the others")]
    Disconnected(usize),
}

/// Fits Elo ratings for `players` players from pairwise scores, holding `anchor` at 0.
pub fn fit(players: usize, results: &[PairScore], anchor: usize) -> Result<Fit, FitError> {
    if anchor >= players {
        return Err(FitError::Anchor(anchor));
    }
    // Linked: games in either direction, ignoring who won.
    let linked = reach(players, anchor, |i, j| {
        results
            .iter()
            .any(|r| r.games > 0.0 && ((r.a == i && r.b == j) || (r.a == j && r.b == i)))
    });
    if let Some(i) = (0..players).find(|&i| !linked[i]) {
        return Err(FitError::Disconnected(i));
    }
    let regularized = !mle_exists(players, results);
    let mut data: Vec<PairScore> = results.iter().copied().filter(|r| r.games > 0.0).collect();
    if regularized {
        for r in &mut data {
            r.games += 1.0;
            r.score += 0.5;
        }
    }
    let theta = newton(players, &data, anchor);
    let cov = covariance(players, &data, anchor, &theta);
    let ratings = (0..players)
        .map(|i| {
            let elo = theta[i] * ELO_SCALE;
            let half = 1.96 * cov[i].max(0.0).sqrt() * ELO_SCALE;
            Rating {
                elo,
                lower: elo - half,
                upper: elo + half,
            }
        })
        .collect();
    Ok(Fit {
        ratings,
        regularized,
    })
}

/// Players reachable from `from` along `edge(i, j)`.
fn reach(players: usize, from: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; players];
    seen[from] = true;
    let mut stack = vec![from];
    while let Some(i) = stack.pop() {
        for (j, s) in seen.iter_mut().enumerate() {
            if !*s && edge(i, j) {
                *s = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// The maximum exists exactly when the "took points from" graph is strongly connected: from any
/// player one can reach every other along edges `i -> j` where `j` scored something against `i`.
fn mle_exists(players: usize, results: &[PairScore]) -> bool {
    let took = |i: usize, j: usize| {
        results.iter().any(|r| {
            (r.a == j && r.b == i && r.score > 0.0) || (r.a == i && r.b == j && r.score < r.games)
        })
    };
    (0..players).all(|s| reach(players, s, took).into_iter().all(|x| x))
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Gradient and negated Hessian of the log-likelihood in natural units.
fn derivatives(players: usize, data: &[PairScore], theta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut g = vec![0.0; players];
    let mut h = vec![vec![0.0; players]; players];
    for r in data {
        let p = sigmoid(theta[r.a] - theta[r.b]);
        let d = r.score - r.games * p;
        g[r.a] += d;
        g[r.b] -= d;
        let w = r.games * p * (1.0 - p);
        h[r.a][r.a] += w;
        h[r.b][r.b] += w;
        h[r.a][r.b] -= w;
        h[r.b][r.a] -= w;
    }
    (g, h)
}

/// The free players (all but the anchor), in order.
fn free(players: usize, anchor: usize) -> Vec<usize> {
    (0..players).filter(|&i| i != anchor).collect()
}

fn newton(players: usize, data: &[PairScore], anchor: usize) -> Vec<f64> {
    let mut theta = vec![0.0; players];
    let idx = free(players, anchor);
    for _ in 0..100 {
        let (g, h) = derivatives(players, data, &theta);
        let a: Vec<Vec<f64>> = idx
            .iter()
            .map(|&i| idx.iter().map(|&j| h[i][j]).collect())
            .collect();
        let b: Vec<f64> = idx.iter().map(|&i| g[i]).collect();
        let Some(step) = solve(a, b) else { break };
        // Damped: a step of more than 2 natural units (~350 Elo) is cut back, which keeps the
        // iteration stable from zero even for lopsided results.
        let big = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        let scale = if big > 2.0 { 2.0 / big } else { 1.0 };
        for (k, &i) in idx.iter().enumerate() {
            theta[i] += scale * step[k];
        }
        if big < 1e-10 {
            break;
        }
    }
    theta
}

/// Variance of each rating (natural units), 0 for the anchor.
fn covariance(players: usize, data: &[PairScore], anchor: usize, theta: &[f64]) -> Vec<f64> {
    let (_, h) = derivatives(players, data, theta);
    let idx = free(players, anchor);
    let mut var = vec![0.0; players];
    for (k, &i) in idx.iter().enumerate() {
        let a: Vec<Vec<f64>> = idx
            .iter()
            .map(|&r| idx.iter().map(|&c| h[r][c]).collect())
            .collect();
        let mut e = vec![0.0; idx.len()];
        e[k] = 1.0;
        if let Some(col) = solve(a, e) {
            var[i] = col[k];
        }
    }
    var
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        let pivot = a[c].clone();
        for r in c + 1..n {
            let f = a[r][c] / pivot[c];
            for (x, p) in a[r][c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

/// The Elo difference that a score share `p` (0 < p < 1) means: `400 log10(p / (1 - p))`.
pub fn elo_of_share(p: f64) -> f64 {
    400.0 * (p / (1.0 - p)).log10()
}
