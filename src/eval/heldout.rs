//! Held-out sets: large sets of positions inside the endgame database, labelled exactly (every
//! legal move's final margin) and never trained on, to steer learning by (100,000 positions give a
//! standard error near 0.1 point where the 1,200-position judge set gives 1).
//!
//! Two kinds, drawn from seeds of their own: [`HeldoutKind::Train`] as the labelled training
//! positions are drawn (random and greedy games stopped at a uniform ply,
//! `eval::judge::game_position`, training's `games` draw) and [`HeldoutKind::Judge`] as the judge set's are
//! ([`super::judge`]'s three sources), both kept where the database answers and at least two
//! moves are legal (a forced move cannot be missed). A set is built once and cached with a
//! checksum; a damaged cache is an error that names the file.
//!
//! Scores ([`HeldoutScore`]): the share of positions where the network's best legal logit is an
//! optimal move, with its standard error; KL(target ‖ policy) with the target uniform over the
//! optimal moves (the cross-entropy less the target's own entropy, so 0 is a perfect fit); the
//! set loss `-log p(optimal moves)`; the mean seeds a move loses; each by seeds on the board.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::env::rng::pinned_heldout_seed;
use crate::rules::{Position, Rules};
use crate::search::MAX_ACTIONS;
use crate::solver::EndgameOracle;
use crate::solver::endgame::checksum;

/// Positions in each held-out set.
pub const HELDOUT_POSITIONS: usize = 100_000;

const MAGIC: &[u8; 8] = b"KALAHAHO";
const VERSION: u32 = 1;
/// Marks an illegal action in [`HeldoutSet`]'s move values.
const ILLEGAL: i16 = i16::MIN;
/// Positions drawn per parallel task (each from a seed of its own, so the set is the same on any
/// number of threads).
const CHUNK: usize = 256;

/// How a held-out set is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeldoutKind {
    /// As the labelled training positions are drawn (random and greedy games).
    Train,
    /// As the judge set's positions are drawn (mixed, minimax and endgame sources).
    Judge,
}

impl HeldoutKind {
    /// Both kinds.
    pub const ALL: [HeldoutKind; 2] = [HeldoutKind::Train, HeldoutKind::Judge];

    /// The kind's name in files, logs and reports.
    pub fn name(self) -> &'static str {
        match self {
            HeldoutKind::Train => "train",
            HeldoutKind::Judge => "judge",
        }
    }

    /// The seed its positions are drawn from (apart from every training and judge seed).
    fn seed(self) -> u64 {
        match self {
            HeldoutKind::Train => 0x4E1D_0001,
            HeldoutKind::Judge => 0x4E1D_0002,
        }
    }

    /// One drawn position (not yet checked against the database), if the draw gave one. Pinned
    /// to `SmallRng` (see [`pinned_heldout_seed`]).
    fn draw(self, rules: &Rules, rng: &mut SmallRng) -> Option<Position> {
        match self {
            HeldoutKind::Train => {
                let max_plies = 4 * rules.total_seeds() / rules.pits().max(1) as u32 + 8;
                super::judge::game_position(rules, rng, max_plies)
            }
            HeldoutKind::Judge => super::judge::draw_any(rules, rng),
        }
    }
}

/// A held-out set: positions and every legal action's exact final margin.
pub struct HeldoutSet {
    kind: HeldoutKind,
    positions: Vec<Position>,
    /// Each position's exact final margin for the player to move.
    values: Vec<i16>,
    /// Each action's exact final margin ([`ILLEGAL`] for illegal actions).
    moves: Vec<[i16; MAX_ACTIONS]>,
    checksum: u64,
}

/// Scores over the positions with one range of seeds on the board.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Fewest seeds on the board.
    pub min_seeds: u32,
    /// Most seeds on the board.
    pub max_seeds: u32,
    /// Positions counted.
    pub positions: usize,
    /// Share where the network's move is optimal.
    pub optimal_rate: f64,
    /// Mean KL(target ‖ policy), nats (none when scored from actions: a move is not a
    /// distribution).
    pub kl: Option<f64>,
    /// Mean seeds the network's move loses.
    pub mean_loss: f64,
}

/// A network's score on a held-out set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeldoutScore {
    /// `train` or `judge`.
    pub set: String,
    /// The set's checksum (hex), so that two scores can be seen to be on the same positions.
    pub checksum: String,
    /// Positions scored.
    pub positions: usize,
    /// Share of positions where the network's move (best legal logit) is optimal.
    pub optimal_rate: f64,
    /// Standard error of that share.
    pub std_err: f64,
    /// Mean KL(target ‖ policy), the target uniform over the optimal moves, nats (none when
    /// scored from actions: a move is not a distribution).
    pub kl: Option<f64>,
    /// Mean `-log p(optimal moves)`, nats (none when scored from actions).
    pub set_loss: Option<f64>,
    /// Mean seeds the network's move loses.
    pub mean_loss: f64,
    /// The same by seeds on the board, in bands of six.
    pub bands: Vec<Band>,
}

/// Running totals of a score.
#[derive(Clone, Copy, Default)]
struct Tally {
    n: usize,
    optimal: usize,
    kl: f64,
    set: f64,
    lost: f64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.n += other.n;
        self.optimal += other.optimal;
        self.kl += other.kl;
        self.set += other.set;
        self.lost += other.lost;
    }

    fn rate(&self) -> f64 {
        self.optimal as f64 / self.n.max(1) as f64
    }

    fn mean(&self, x: f64) -> f64 {
        x / self.n.max(1) as f64
    }
}

/// Width of a [`Band`] in seeds on the board.
const BAND: u32 = 6;

impl HeldoutSet {
    /// Draws `n` positions of `kind` under `rules` and labels them with `oracle`.
    pub fn build(rules: &Rules, kind: HeldoutKind, n: usize, oracle: &EndgameOracle) -> HeldoutSet {
        let chunks = n.div_ceil(CHUNK);
        let drawn: Vec<Vec<(Position, i16, [i16; MAX_ACTIONS])>> = (0..chunks)
            .into_par_iter()
            .map(|c| {
                // Pinned (seed and `SmallRng`, not `GameRng`): the cached sets, named by their
                // checksums, were drawn with these and must be drawn again exactly.
                let mut rng = SmallRng::seed_from_u64(pinned_heldout_seed(kind.seed(), c as u64));
                let want = CHUNK.min(n - c * CHUNK);
                let mut out = Vec::with_capacity(want);
                let mut tries = 0;
                while out.len() < want && tries < want * 1000 {
                    tries += 1;
                    let Some(pos) = kind.draw(rules, &mut rng) else {
                        continue;
                    };
                    if pos.legal_moves().len() < 2 {
                        continue;
                    }
                    let Some(e) = oracle.moves(&pos) else {
                        continue;
                    };
                    let mut moves = [ILLEGAL; MAX_ACTIONS];
                    for &(mv, v) in &e.moves {
                        moves[mv.action(rules.pits())] = v as i16;
                    }
                    out.push((pos, e.value as i16, moves));
                }
                out
            })
            .collect();
        let mut set = HeldoutSet {
            kind,
            positions: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
            moves: Vec::with_capacity(n),
            checksum: 0,
        };
        for (p, v, m) in drawn.into_iter().flatten() {
            set.positions.push(p);
            set.values.push(v);
            set.moves.push(m);
        }
        set.checksum = checksum(&[&set.body()]);
        set
    }

    /// The cached set of `kind` with `n` positions for `rules` in `dir`, or builds and caches it
    /// (written to a temporary name and renamed). A damaged or foreign file is an error.
    pub fn load_or_build(
        rules: &Rules,
        kind: HeldoutKind,
        n: usize,
        oracle: &EndgameOracle,
        dir: &Path,
    ) -> anyhow::Result<HeldoutSet> {
        let path = Self::cache_path(rules, kind, n, oracle.max_seeds(), dir);
        if path.exists() {
            return Self::load(&path, rules, kind);
        }
        let set = Self::build(rules, kind, n, oracle);
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        crate::files::write_atomic(&path, |w| set.write(w))
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(set)
    }

    /// Both kinds of set ([`HeldoutKind::ALL`]) with `n` positions each, loaded from `dir` or
    /// built there ([`HeldoutSet::load_or_build`]).
    pub fn load_or_build_all(
        rules: &Rules,
        n: usize,
        oracle: &EndgameOracle,
        dir: &Path,
    ) -> anyhow::Result<Vec<HeldoutSet>> {
        HeldoutKind::ALL
            .iter()
            .map(|&k| HeldoutSet::load_or_build(rules, k, n, oracle, dir))
            .collect()
    }

    /// Both kinds of set for `rules` with `n` positions each, labelled by the endgame database of
    /// `db_seeds` seeds, loaded from or built into the solver's cache folder
    /// ([`crate::solver::default_cache_dir`]) with the database itself.
    pub fn in_cache(rules: &Rules, n: usize, db_seeds: u32) -> anyhow::Result<Vec<HeldoutSet>> {
        let dir = crate::solver::default_cache_dir()
            .context("no cache folder for the held-out sets (set KALAHA_CACHE or HOME)")?;
        let (db, _) = EndgameOracle::load_or_build(rules, db_seeds, Some(&dir), None);
        HeldoutSet::load_or_build_all(rules, n, &db, &dir)
    }

    /// Where the set of `kind` with `n` positions, labelled by a database of `db_seeds`, is cached.
    pub fn cache_path(
        rules: &Rules,
        kind: HeldoutKind,
        n: usize,
        db_seeds: u32,
        dir: &Path,
    ) -> PathBuf {
        dir.join(format!(
            "heldout-{}-{}-{n}-db{db_seeds}.bin",
            rules.canonical_name(),
            kind.name()
        ))
    }

    /// The positions, records of 34 + 2 + 2 * [`MAX_ACTIONS`] bytes.
    fn body(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.positions.len() * (36 + 2 * MAX_ACTIONS));
        for ((p, v), m) in self.positions.iter().zip(&self.values).zip(&self.moves) {
            b.extend_from_slice(&p.to_bytes());
            b.extend_from_slice(&v.to_le_bytes());
            for x in m {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        b
    }

    fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&[self.kind as u8])?;
        w.write_all(&(self.positions.len() as u64).to_le_bytes())?;
        w.write_all(&self.body())?;
        w.write_all(&self.checksum.to_le_bytes())
    }

    fn load(path: &Path, rules: &Rules, kind: HeldoutKind) -> anyhow::Result<HeldoutSet> {
        let damaged = || {
            format!(
                "held-out set {} is damaged (delete it to build it again)",
                path.display()
            )
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .with_context(|| format!("cannot read {}", path.display()))?;
        let parse = || -> anyhow::Result<HeldoutSet> {
            ensure!(
                bytes.len() >= 29 && &bytes[..8] == MAGIC,
                "not a held-out set"
            );
            let version = u32::from_le_bytes(bytes[8..12].try_into()?);
            ensure!(version == VERSION, "version {version}, expected {VERSION}");
            ensure!(bytes[12] == kind as u8, "a set of another kind");
            let n = u64::from_le_bytes(bytes[13..21].try_into()?) as usize;
            let rec = 36 + 2 * MAX_ACTIONS;
            ensure!(bytes.len() == 21 + n * rec + 8, "wrong length");
            let body = &bytes[21..21 + n * rec];
            let sum = u64::from_le_bytes(bytes[21 + n * rec..].try_into()?);
            ensure!(checksum(&[body]) == sum, "checksum mismatch");
            let mut set = HeldoutSet {
                kind,
                positions: Vec::with_capacity(n),
                values: Vec::with_capacity(n),
                moves: Vec::with_capacity(n),
                checksum: sum,
            };
            for r in body.chunks_exact(rec) {
                let p = Position::from_bytes(rules, r[..34].try_into()?)
                    .context("a position of other rules")?;
                let i16_at = |k: usize| i16::from_le_bytes([r[k], r[k + 1]]);
                let mut m = [ILLEGAL; MAX_ACTIONS];
                for (a, x) in m.iter_mut().enumerate() {
                    *x = i16_at(36 + 2 * a);
                }
                set.positions.push(p);
                set.values.push(i16_at(34));
                set.moves.push(m);
            }
            Ok(set)
        };
        parse().with_context(damaged)
    }

    /// The set's kind.
    pub fn kind(&self) -> HeldoutKind {
        self.kind
    }

    /// Its positions.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// No position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Scores a network from its logits (`len() * actions` floats, position by position; illegal
    /// actions are masked here). Errors if the logits do not fit the set.
    pub fn score(&self, logits: &[f32], actions: usize) -> anyhow::Result<HeldoutScore> {
        if logits.len() != self.len() * actions || actions > MAX_ACTIONS {
            bail!(
                "{} logits for {} positions of {actions} actions",
                logits.len(),
                self.len()
            );
        }
        Ok(self.score_by(true, |i| {
            self.tally_one(i, &logits[i * actions..(i + 1) * actions])
        }))
    }

    /// Scores an agent from one action per position (in set order, each legal): the optimal
    /// rate and the seeds lost, without KL or set loss (a move is not a distribution). Errors
    /// name the first illegal action or a count that does not fit the set.
    pub fn score_actions(&self, picks: &[usize]) -> anyhow::Result<HeldoutScore> {
        crate::eval::judge::check_actions(self.positions.iter(), picks)?;
        Ok(self.score_by(false, |i| {
            let (value, played) = (self.values[i], self.moves[i][picks[i]]);
            Tally {
                n: 1,
                optimal: (played == value) as usize,
                lost: (value - played) as f64,
                ..Tally::default()
            }
        }))
    }

    /// The score of the tallies of every position, by bands of seeds on the board; `dist`: the
    /// tallies hold KL and set loss (scored from logits).
    fn score_by(&self, dist: bool, tally: impl Fn(usize) -> Tally) -> HeldoutScore {
        let band = |p: &Position| p.board_seeds().div_ceil(BAND).max(1) as usize;
        let bands = self.positions.iter().map(band).max().unwrap_or(1);
        let mut all = Tally::default();
        let mut by_band = vec![Tally::default(); bands + 1];
        for (i, pos) in self.positions.iter().enumerate() {
            let t = tally(i);
            all.add(&t);
            by_band[band(pos)].add(&t);
        }
        let n = all.n;
        let p = all.rate();
        let kept = |x: f64| dist.then_some(x);
        HeldoutScore {
            set: self.kind.name().to_string(),
            checksum: format!("{:016x}", self.checksum),
            positions: n,
            optimal_rate: p,
            std_err: (p * (1.0 - p) / n.max(1) as f64).sqrt(),
            kl: kept(all.mean(all.kl)),
            set_loss: kept(all.mean(all.set)),
            mean_loss: all.mean(all.lost),
            bands: by_band
                .iter()
                .enumerate()
                .filter(|(_, t)| t.n > 0)
                .map(|(b, t)| Band {
                    min_seeds: (b as u32 - 1) * BAND + 1,
                    max_seeds: b as u32 * BAND,
                    positions: t.n,
                    optimal_rate: t.rate(),
                    kl: kept(t.mean(t.kl)),
                    mean_loss: t.mean(t.lost),
                })
                .collect(),
        }
    }

    /// The score of position `i` from its logits.
    fn tally_one(&self, i: usize, logits: &[f32]) -> Tally {
        let (value, moves) = (self.values[i], &self.moves[i]);
        let legal = |a: usize| moves[a] != ILLEGAL;
        let mut pick = None::<usize>;
        let mut top = f32::NEG_INFINITY;
        for (a, &l) in logits.iter().enumerate() {
            if legal(a) && (pick.is_none() || l > top) {
                pick = Some(a);
                top = l;
            }
        }
        let pick = pick.expect("held-out positions have legal moves");
        let z: f64 = (0..logits.len())
            .filter(|&a| legal(a))
            .map(|a| ((logits[a] - top) as f64).exp())
            .sum();
        let log_p = |a: usize| (logits[a] - top) as f64 - z.ln();
        let optimal: Vec<usize> = (0..logits.len())
            .filter(|&a| legal(a) && moves[a] == value)
            .collect();
        let k = optimal.len() as f64;
        let mean_log_p = optimal.iter().map(|&a| log_p(a)).sum::<f64>() / k;
        let p_set: f64 = optimal.iter().map(|&a| log_p(a).exp()).sum();
        Tally {
            n: 1,
            optimal: (moves[pick] == value) as usize,
            kl: -k.ln() - mean_log_p,
            set: -p_set.max(f64::MIN_POSITIVE).ln(),
            lost: (value - moves[pick]) as f64,
        }
    }
}

impl HeldoutSet {
    /// The logits of `evaluator` on every position, in batches.
    pub fn logits(&self, evaluator: &mut dyn crate::search::Evaluator) -> Vec<f32> {
        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
        let mut out = Vec::new();
        for chunk in self.positions.chunks(8192) {
            evaluator.evaluate(chunk, &mut l, &mut v, &mut m);
            out.extend_from_slice(&l);
        }
        out
    }

    /// Whether the best legal logit of each position is an optimal move (for paired tests).
    pub fn correct(&self, logits: &[f32], actions: usize) -> Vec<bool> {
        logits
            .chunks_exact(actions)
            .enumerate()
            .map(|(i, l)| self.tally_one(i, l).optimal == 1)
            .collect()
    }
}

/// The score of `evaluator` on each of `sets`.
pub fn score_all(
    sets: &[HeldoutSet],
    evaluator: &mut dyn crate::search::Evaluator,
    actions: usize,
) -> Vec<HeldoutScore> {
    sets.iter()
        .map(|s| {
            s.score(&s.logits(evaluator), actions)
                .expect("an evaluator gives one logit per action")
        })
        .collect()
}

/// One line of a score for the progress line and reports.
pub fn summary(s: &HeldoutScore) -> String {
    let kl = s.kl.map_or(String::new(), |kl| format!(" kl {kl:.3}"));
    format!(
        "{} {:.2}%±{:.2}{kl} lost {:.3}",
        s.set,
        100.0 * s.optimal_rate,
        100.0 * s.std_err,
        s.mean_loss
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Endgame;

    fn small() -> (Rules, EndgameOracle) {
        let rules = Rules::new(4, 3).unwrap();
        let oracle = EndgameOracle::from_db(&rules, Endgame::build(&rules, 12, None));
        (rules, oracle)
    }

    /// Logits that put `best` on the optimal moves (the first of them when `first_only`) and 0
    /// on the others.
    fn oracle_logits(set: &HeldoutSet, best: f32, first_only: bool) -> Vec<f32> {
        let mut out = Vec::new();
        for i in 0..set.len() {
            let mut found = false;
            for a in 0..5 {
                let opt = set.moves[i][a] == set.values[i] && !(first_only && found);
                found |= opt;
                out.push(if opt { best } else { 0.0 });
            }
        }
        out
    }

    #[test]
    fn sets_are_reproducible_cached_and_checked() {
        let (rules, oracle) = small();
        for kind in HeldoutKind::ALL {
            let a = HeldoutSet::build(&rules, kind, 600, &oracle);
            let b = HeldoutSet::build(&rules, kind, 600, &oracle);
            assert_eq!(a.len(), 600);
            assert_eq!(a.checksum, b.checksum, "{kind:?}");
            for (i, p) in a.positions.iter().enumerate() {
                assert!(p.legal_moves().len() >= 2);
                assert_eq!(oracle.moves(p).unwrap().value, a.values[i] as i32);
            }
        }
        let dir = std::env::temp_dir().join(format!("kalaha-heldout-{}", std::process::id()));
        let kind = HeldoutKind::Judge;
        let built = HeldoutSet::load_or_build(&rules, kind, 300, &oracle, &dir).unwrap();
        let loaded = HeldoutSet::load_or_build(&rules, kind, 300, &oracle, &dir).unwrap();
        assert_eq!(built.checksum, loaded.checksum);
        assert_eq!(built.positions, loaded.positions);
        assert_eq!(built.moves, loaded.moves);
        // One flipped byte is refused, naming the file.
        let path = HeldoutSet::cache_path(&rules, kind, 300, 12, &dir);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let err = HeldoutSet::load_or_build(&rules, kind, 300, &oracle, &dir)
            .err()
            .expect("a damaged set is refused");
        assert!(format!("{err:#}").contains("damaged"), "{err:#}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn scores_measure_the_fit() {
        let (rules, oracle) = small();
        let set = HeldoutSet::build(&rules, HeldoutKind::Train, 500, &oracle);
        // Sharp on every optimal move: all optimal, no seed lost, KL near 0, set loss near 0.
        let s = set.score(&oracle_logits(&set, 30.0, false), 5).unwrap();
        assert_eq!(s.optimal_rate, 1.0);
        assert_eq!(s.mean_loss, 0.0);
        assert!(s.kl.unwrap() < 1e-6 && s.set_loss.unwrap() < 1e-6, "{s:?}");
        // Sharp on one optimal move: still all optimal and no set loss, but a KL where moves tie.
        let one = set.score(&oracle_logits(&set, 30.0, true), 5).unwrap();
        assert_eq!(one.optimal_rate, 1.0);
        assert!(
            one.set_loss.unwrap() < 1e-6 && one.kl.unwrap() > 0.01,
            "{one:?}"
        );
        // Sharp on the worst moves: the optimal rate falls and seeds are lost.
        let worst: Vec<f32> = oracle_logits(&set, 30.0, false)
            .iter()
            .map(|x| 30.0 - x)
            .collect();
        let bad = set.score(&worst, 5).unwrap();
        assert!(bad.optimal_rate < 0.9 && bad.mean_loss > 0.0, "{bad:?}");
        let counted: usize = s.bands.iter().map(|b| b.positions).sum();
        assert_eq!(counted, set.len());
        assert!(set.score(&[0.0; 3], 5).is_err(), "logits that do not fit");
        // Scored from the moves the worst logits pick: the same rate and seeds lost, no KL.
        let picks: Vec<usize> = worst
            .chunks_exact(5)
            .zip(set.positions())
            .map(|(l, p)| {
                let legal: Vec<usize> = p.legal_moves().iter().map(|m| m.action(4)).collect();
                *legal
                    .iter()
                    .max_by(|a, b| l[**a].total_cmp(&l[**b]).then(b.cmp(a)))
                    .unwrap()
            })
            .collect();
        let by_moves = set.score_actions(&picks).unwrap();
        assert_eq!(by_moves.optimal_rate, bad.optimal_rate);
        assert_eq!(by_moves.mean_loss, bad.mean_loss);
        assert_eq!((by_moves.kl, by_moves.set_loss), (None, None));
        assert!(by_moves.bands.iter().all(|b| b.kl.is_none()));
        let mut wrong = picks.clone();
        wrong[3] = 9;
        let e = set.score_actions(&wrong).unwrap_err().to_string();
        assert!(e.contains("position 3"), "{e}");
        assert!(
            set.score_actions(&picks[1..]).is_err(),
            "a count that does not fit"
        );
    }
}
