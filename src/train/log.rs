//! Logging: an iteration's throughput, self-play and losses, and an evaluation's results, to
//! TensorBoard and as the progress line.

use super::learner::Losses;
use super::selfplay::SelfPlayStats;
use super::tb::TbLog;
use super::{Evaluation, heldout};

/// What an iteration did, for its log and progress line.
pub(super) struct Iteration<'a> {
    /// The iteration (the logs' step).
    pub number: u32,
    /// Its new samples.
    pub selfplay: &'a SelfPlayStats,
    /// Its summed losses over `steps` gradient steps.
    pub losses: &'a Losses,
    pub steps: u32,
    /// `[positions, evaluations, samples]` a second.
    pub rates: [f64; 3],
    /// The learning rate at its end.
    pub lr: f64,
    /// Samples in the replay buffer.
    pub replay: usize,
    /// The network has a move head (its loss goes into the progress line).
    pub moves_head: bool,
}

/// Logs an iteration's throughput, self-play and losses to TensorBoard; its progress line.
pub(super) fn log_iteration(log: &mut TbLog, it: &Iteration) -> String {
    let (st, losses, steps, rates) = (it.selfplay, it.losses, it.steps, it.rates);
    let step = it.number as u64;
    let n = steps.max(1) as f64;
    let share = |x: u64, of: u64| x as f64 / of.max(1) as f64;
    let lr_now = it.lr;
    log.scalar("throughput/positions_per_sec", rates[0], step);
    log.scalar("throughput/evals_per_sec", rates[1], step);
    log.scalar("throughput/samples_per_sec", rates[2], step);
    log.scalar("selfplay/games", st.games as f64, step);
    log.scalar(
        "selfplay/exact_share",
        share(st.exact_positions, st.positions),
        step,
    );
    log.scalar(
        "selfplay/exploratory_share",
        share(st.exploratory, st.positions),
        step,
    );
    if st.games > 0 {
        let g = st.games;
        log.scalar("selfplay/game_length", share(st.game_moves, g), step);
        log.scalar(
            "selfplay/first_player_win_rate",
            share(st.results[0], g),
            step,
        );
        log.scalar("selfplay/draw_rate", share(st.results[2], g), step);
    }
    log.scalar("replay/size", it.replay as f64, step);
    if steps > 0 {
        log.scalar("loss/policy", losses.policy / n, step);
        log.scalar("loss/value", losses.value / n, step);
        log.scalar("loss/margin", losses.margin / n, step);
        log.scalar("policy/entropy", losses.entropy / n, step);
        log.scalar("loss/moves", losses.moves / n, step);
        log.scalar("optim/lr", lr_now, step);
    }
    let mut msg = format!(
        "pos/s {:.0}  evals/s {:.0}  samples/s {:.0}  loss p {:.3} v {:.3} m {:.4}  exact {:.0}%",
        rates[0],
        rates[1],
        rates[2],
        losses.policy / n,
        losses.value / n,
        losses.margin / n,
        100.0 * share(st.exact_positions, st.positions)
    );
    if it.moves_head {
        msg.push_str(&format!("  moves {:.3}", losses.moves / n));
    }
    if st.games > 0 {
        msg.push_str(&format!(
            "  1st wins {:.0}%",
            100.0 * share(st.results[0], st.games)
        ));
    }
    msg
}

/// Logs an evaluation to TensorBoard at its iteration; its part of the progress line.
pub(super) fn log_evaluation(log: &mut TbLog, e: &Evaluation) -> String {
    let step = e.iteration as u64;
    let mut msg = String::new();
    for r in &e.games {
        let tag = format!("eval/{}/{}", r.opponent, r.seat.name());
        log.scalar(&format!("{tag}/win_rate"), r.win_rate(), step);
        log.scalar(&format!("{tag}/mean_margin"), r.mean_margin, step);
    }
    for pair in e.games.chunks(2) {
        let w = pair.iter().map(|r| r.wins).sum::<u32>() as f64;
        let g = pair.iter().map(|r| r.games).sum::<u32>().max(1) as f64;
        log.scalar(&format!("eval/{}/win_rate", pair[0].opponent), w / g, step);
        msg.push_str(&format!("  vs {} {:.0}%", pair[0].opponent, 100.0 * w / g));
    }
    for h in &e.heldout {
        let tag = format!("eval/heldout_{}", h.set);
        log.scalar(&format!("{tag}/optimal_rate"), h.optimal_rate, step);
        // The trainer scores logits: KL and set loss are always there.
        if let (Some(kl), Some(set_loss)) = (h.kl, h.set_loss) {
            log.scalar(&format!("{tag}/kl"), kl, step);
            log.scalar(&format!("{tag}/set_loss"), set_loss, step);
        }
        log.scalar(&format!("{tag}/mean_loss"), h.mean_loss, step);
        for b in &h.bands {
            let band = format!("{tag}/seeds_{}_{}", b.min_seeds, b.max_seeds);
            log.scalar(&format!("{band}/optimal_rate"), b.optimal_rate, step);
            if let Some(kl) = b.kl {
                log.scalar(&format!("{band}/kl"), kl, step);
            }
        }
        msg.push_str(&format!("  {}", heldout::summary(h)));
    }
    if let Some(j) = &e.solver {
        log.scalar("eval/solver/optimal_rate", j.optimal_rate, step);
        log.scalar("eval/solver/std_err", j.std_err, step);
        log.scalar("eval/solver/mean_loss", j.mean_loss, step);
        log.scalar("eval/solver/inside_db", j.inside_db.optimal_rate, step);
        log.scalar("eval/solver/outside_db", j.outside_db.optimal_rate, step);
        for (name, r) in &j.phases {
            log.scalar(&format!("eval/solver/{name}"), r.optimal_rate, step);
        }
        msg.push_str(&format!(
            "  optimal {:.1}%±{:.1} (out of db {:.1}%, in {:.1}%) loss {:.2}",
            100.0 * j.optimal_rate,
            100.0 * j.std_err,
            100.0 * j.outside_db.optimal_rate,
            100.0 * j.inside_db.optimal_rate,
            j.mean_loss
        ));
        if let Some(pie) = &j.pie {
            log.scalar("eval/solver/pie_openings", pie.openings.optimal_rate, step);
            log.scalar("eval/solver/pie_swaps", pie.swaps.optimal_rate, step);
            msg.push_str(&format!(
                "  pie: openings {:.0}% swaps {:.0}%",
                100.0 * pie.openings.optimal_rate,
                100.0 * pie.swaps.optimal_rate
            ));
        }
        if j.unsolved > 0 {
            msg.push_str(&format!(
                " on {} judged ({} unproved left out)",
                j.positions, j.unsolved
            ));
        }
    }
    if let Some(t) = &e.trained {
        // The trained weights beside their moving average (the figures above).
        let mut parts = Vec::new();
        for h in &t.heldout {
            let tag = format!("eval/trained/heldout_{}", h.set);
            log.scalar(&format!("{tag}/optimal_rate"), h.optimal_rate, step);
            parts.push(format!("{} {:.2}%", h.set, 100.0 * h.optimal_rate));
        }
        if let Some(j) = &t.solver {
            log.scalar("eval/trained/solver/optimal_rate", j.optimal_rate, step);
            parts.push(format!("optimal {:.1}%", 100.0 * j.optimal_rate));
        }
        if !parts.is_empty() {
            msg.push_str(&format!("  [trained: {}]", parts.join(" ")));
        }
    }
    msg
}
