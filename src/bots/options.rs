//! The search options of a network player: one type and one parser for every place that takes
//! them, so that each is checked the same way and refused with the same words: a `policy:` bot
//! spec's `:margin=W`, `:c_scale=X`, `:prove=on|off` and `:minimax=A`, `kalaha judge`'s
//! `--margin-weight`, `--c-scale`, `--prove` and `--minimax-weight`, and Python's `margin_weight=`,
//! `c_scale=`, `prove=` and `minimax_weight=` keywords.

/// The `c_scale=X` values a player may ask for.
pub const PLAY_C_SCALES: std::ops::RangeInclusive<f64> = 0.001..=100.0;

/// What a network player's options change in its checkpoint's search (`None`: the checkpoint's).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchOptions {
    /// `:margin=W`: the utility's margin weight, `(1 - W) * value + W * margin`.
    pub margin: Option<f32>,
    /// `:c_scale=X`: the scale of the Q transform (`SearchConfig::c_scale`).
    pub c_scale: Option<f32>,
    /// `:prove=on` or `:prove=off`: whether the search proves subtrees (`SearchConfig::prove`).
    pub prove: Option<bool>,
    /// `:minimax=A`: the weight of implicit minimax backups (`SearchConfig::minimax_weight`).
    pub minimax: Option<f32>,
    /// `:alphabeta=BUDGET` (bot specs only): alpha-beta over the network's margin head instead of
    /// the Gumbel search (`crate::search::alphabeta`).
    pub alphabeta: Option<crate::search::alphabeta::Budget>,
}

/// A weight named `what`: a number from 0 to 1.
fn weight(what: &str, w: f64) -> Result<f32, String> {
    if (0.0..=1.0).contains(&w) {
        Ok(w as f32)
    } else {
        Err(format!("{what} {w} is not a number from 0 to 1"))
    }
}

/// A margin weight: a number from 0 to 1.
pub fn margin_weight(w: f64) -> Result<f32, String> {
    weight("margin weight", w)
}

/// A minimax-backup weight: a number from 0 to 1.
pub fn minimax_weight(a: f64) -> Result<f32, String> {
    weight("minimax weight", a)
}

/// A Q-transform scale: a number in [`PLAY_C_SCALES`].
pub fn c_scale(x: f64) -> Result<f32, String> {
    if PLAY_C_SCALES.contains(&x) {
        Ok(x as f32)
    } else {
        Err(format!(
            "c_scale {x} is not a number from {} to {}",
            PLAY_C_SCALES.start(),
            PLAY_C_SCALES.end()
        ))
    }
}

/// `on` or `off`.
pub fn prove(word: &str) -> Result<bool, String> {
    match word {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("prove={word}: expected prove=on or prove=off")),
    }
}

impl SearchOptions {
    /// The options given, each checked (see [`margin_weight`], [`c_scale`], [`minimax_weight`]).
    pub fn new(
        margin: Option<f64>,
        c_scale_: Option<f64>,
        prove: Option<bool>,
        minimax: Option<f64>,
    ) -> Result<SearchOptions, String> {
        Ok(SearchOptions {
            margin: margin.map(margin_weight).transpose()?,
            c_scale: c_scale_.map(c_scale).transpose()?,
            prove,
            minimax: minimax.map(minimax_weight).transpose()?,
            alphabeta: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_checked_with_its_range() {
        let o = SearchOptions::new(Some(0.5), Some(3.0), Some(true), Some(0.25)).unwrap();
        assert_eq!(
            (o.margin, o.c_scale, o.prove, o.minimax),
            (Some(0.5), Some(3.0), Some(true), Some(0.25))
        );
        for bad in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(
                SearchOptions::new(Some(bad), None, None, None).is_err(),
                "{bad}"
            );
            let e = SearchOptions::new(None, None, None, Some(bad)).unwrap_err();
            assert!(e.contains("minimax weight"), "{e}");
        }
        for bad in [0.0, 101.0, f64::NAN, -1.0] {
            let e = SearchOptions::new(None, Some(bad), None, None).unwrap_err();
            assert!(e.contains("0.001 to 100"), "{e}");
        }
        assert_eq!(prove("on"), Ok(true));
        assert!(prove("yes").is_err());
    }
}
