//! Rule options of Kalah(m,n): board size, capture, leftover, end and pie rules, and named presets.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::sow::SowTable;

/// Most pits per side the board layout holds.
pub const MAX_PITS: u8 = 15;
/// Most seeds the whole board may hold: every cell is a `u8`, and one store may end up with all.
pub const MAX_SEEDS: u32 = u8::MAX as u32;

/// What happens when the last seed lands in an empty pit on the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capture {
    /// Capture only if the opposite pit holds at least one seed.
    Standard,
    /// The lone last seed goes to the store even if the opposite pit is empty.
    Empty,
    /// No captures at all.
    Off,
}

/// Where the seeds left on the board go when the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Leftover {
    /// Each player banks the seeds on their own side.
    Owner,
    /// The player whose side is empty takes every seed left.
    Emptier,
    /// Seeds left on the board count for nobody.
    Discard,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// The moment either row is empty, whoever is to move.
    Immediate,
    /// When the player to move has no seed in their row.
    OnTurn,
}

macro_rules! keyword_enum {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),+) => {
        impl $ty {
            /// Every value, in the order the documentation lists them.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// The keyword used on the command line and in configs.
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl FromStr for $ty {
            type Err = RulesError;
            fn from_str(s: &str) -> Result<Self, RulesError> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(RulesError::UnknownKeyword {
                        option: $what,
                        value: s.to_string(),
                        expected: [$($name),+].join(", "),
                    }),
                }
            }
        }
    };
}

keyword_enum!(Capture, "capture", Standard => "standard", Empty => "empty", Off => "off");
keyword_enum!(Leftover, "leftover", Owner => "owner", Emptier => "emptier", Discard => "discard");
keyword_enum!(End, "end", Immediate => "immediate", OnTurn => "on-turn");

/// Why a set of rule options was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Pits per side outside `1..=MAX_PITS`.
    #[error("pits per side must be 1 to {MAX_PITS}, got {0}")]
    Pits(u32),
    /// No seeds at all, or more than the board's `u8` cells can hold.
    #[error(
        "{seeds} seeds per pit on {pits} pits a side makes {total} seeds; the board holds 1 to {MAX_SEEDS}"
    )]
    Seeds { pits: u32, seeds: u32, total: u64 },
    /// A keyword that names no value of an option.
    #[error("unknown {option} rule '{value}' (expected one of: {expected})")]
    UnknownKeyword {
        option: &'static str,
        value: String,
        expected: String,
    },
    /// A preset name that is not in the list.
    #[error("unknown rules preset '{0}' (expected one of: {list})", list = Preset::names())]
    UnknownPreset(String),
}

/// A complete, validated set of rule options for Kalah(m,n).
///
/// Cheap to copy: the sowing tables it points to are built once per board size and shared.
#[derive(Clone, Copy)]
pub struct Rules {
    pits: u8,
    seeds: u8,
    /// Capture option.
    pub capture: Capture,
    /// Leftover option.
    pub leftover: Leftover,
    /// End option.
    pub end: End,
    /// Whether North may answer `swap` at its first move.
    pub pie: bool,
    pub(crate) table: &'static SowTable,
}

impl Rules {
    /// Kalah(m,n) with the default options (standard capture, owner leftover, immediate end, no pie).
    pub fn new(pits: u32, seeds: u32) -> Result<Rules, RulesError> {
        if pits == 0 || pits > MAX_PITS as u32 {
            return Err(RulesError::Pits(pits));
        }
        let total = 2 * pits as u64 * seeds as u64;
        if seeds == 0 || total > MAX_SEEDS as u64 {
            return Err(RulesError::Seeds { pits, seeds, total });
        }
        Ok(Rules {
            pits: pits as u8,
            seeds: seeds as u8,
            capture: Capture::Standard,
            leftover: Leftover::Owner,
            end: End::Immediate,
            pie: false,
            table: SowTable::get(pits as u8),
        })
    }

    /// International Kalah(6,4) with the default options: the solved standard.
    pub fn kalah64() -> Rules {
        Rules::new(6, 4).expect("Kalah(6,4) is valid")
    }

    /// Pits per side (`m`).
    pub fn pits(&self) -> usize {
        self.pits as usize
    }

    /// Seeds per pit at the start (`n`).
    pub fn seeds(&self) -> u8 {
        self.seeds
    }

    /// Seeds on the board at the start, `2 m n`.
    pub fn total_seeds(&self) -> u32 {
        2 * self.pits as u32 * self.seeds as u32
    }

    /// Sets the capture option.
    pub fn with_capture(mut self, capture: Capture) -> Rules {
        self.capture = capture;
        self
    }

    /// Sets the leftover option.
    pub fn with_leftover(mut self, leftover: Leftover) -> Rules {
        self.leftover = leftover;
        self
    }

    /// Sets the end option.
    pub fn with_end(mut self, end: End) -> Rules {
        self.end = end;
        self
    }

    /// Turns the pie rule on or off.
    pub fn with_pie(mut self, pie: bool) -> Rules {
        self.pie = pie;
        self
    }

    /// A short description such as `Kalah(6,4) capture=standard leftover=owner end=immediate`.
    pub fn describe(&self) -> String {
        format!(
            "Kalah({},{}) capture={} leftover={} end={}{}",
            self.pits,
            self.seeds,
            self.capture,
            self.leftover,
            self.end,
            if self.pie { " pie" } else { "" }
        )
    }

    /// The plain-data form of these rules, for configs and checkpoints.
    pub fn spec(&self) -> RulesSpec {
        RulesSpec {
            pits: self.pits as u32,
            seeds: self.seeds as u32,
            capture: self.capture,
            leftover: self.leftover,
            end: self.end,
            pie: self.pie,
        }
    }
}

impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.spec() == other.spec()
    }
}
impl Eq for Rules {}

impl fmt::Debug for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::kalah64()
    }
}

/// Rule options as plain data (serde), validated into [`Rules`] by [`RulesSpec::build`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// Pits per side.
    pub pits: u32,
    /// Seeds per pit at the start.
    pub seeds: u32,
    /// Capture option.
    pub capture: Capture,
    /// Leftover option.
    pub leftover: Leftover,
    /// End option.
    pub end: End,
    /// Pie rule.
    pub pie: bool,
}

impl Default for RulesSpec {
    fn default() -> RulesSpec {
        Rules::kalah64().spec()
    }
}

impl RulesSpec {
    /// Validates the options.
    pub fn build(&self) -> Result<Rules, RulesError> {
        Ok(Rules::new(self.pits, self.seeds)?
            .with_capture(self.capture)
            .with_leftover(self.leftover)
            .with_end(self.end)
            .with_pie(self.pie))
    }
}

/// Rule options as a person names them: an optional preset, then any option given on top of it
/// (keywords as on the command line). The one rule-choice type: the command line's rule flags
/// convert into it, training configs read it as their `[rules]` table (keys `preset`, `pits`,
/// `seeds`, `capture`, `leftover`, `end`, `pie`, each optional), and the Python `Rules` takes it
/// as keyword arguments.
///
/// `S` is the string type of the keywords: `String` (the default, what serde reads) or `&str`
/// for choices borrowed from elsewhere.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RuleChoices<S = String> {
    /// Preset name (`international` when absent).
    pub preset: Option<S>,
    /// Pits per side.
    pub pits: Option<u32>,
    /// Seeds per pit.
    pub seeds: Option<u32>,
    /// Capture keyword: `standard`, `empty` or `off`.
    pub capture: Option<S>,
    /// Leftover keyword: `owner`, `emptier` or `discard`.
    pub leftover: Option<S>,
    /// End keyword: `immediate` or `on-turn`.
    pub end: Option<S>,
    /// Pie rule on or off.
    pub pie: Option<bool>,
}

impl<S: AsRef<str>> RuleChoices<S> {
    /// Validates the choices into rules: the preset (Kalah(6,4) when absent), then each option
    /// given on top of it; the error names the first bad keyword or size.
    pub fn build(&self) -> Result<Rules, RulesError> {
        let mut spec = match &self.preset {
            Some(name) => name.as_ref().parse::<Preset>()?.rules().spec(),
            None => RulesSpec::default(),
        };
        spec.pits = self.pits.unwrap_or(spec.pits);
        spec.seeds = self.seeds.unwrap_or(spec.seeds);
        if let Some(c) = &self.capture {
            spec.capture = c.as_ref().parse()?;
        }
        if let Some(l) = &self.leftover {
            spec.leftover = l.as_ref().parse()?;
        }
        if let Some(e) = &self.end {
            spec.end = e.as_ref().parse()?;
        }
        spec.pie = self.pie.unwrap_or(spec.pie);
        spec.build()
    }
}

/// The named rule sets the guides describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// International Kalah(6,4), the solved standard and the default.
    International,
    /// Swedish sets: Kalah(6,6), standard rules.
    Swedish,
    /// Danish families: Kalah(6,6), the player whose side is empty takes the leftover.
    Danish,
    /// The Norwegian guide: Kalah(6,4), the game ends when the player to move has no seed.
    Norwegian,
    /// Children: Kalah(6,3) without captures.
    Children,
}

impl Preset {
    /// Every preset.
    pub const ALL: &'static [Preset] = &[
        Preset::International,
        Preset::Swedish,
        Preset::Danish,
        Preset::Norwegian,
        Preset::Children,
    ];

    /// The name used by `--rules`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::International => "international",
            Preset::Swedish => "swedish",
            Preset::Danish => "danish",
            Preset::Norwegian => "norwegian",
            Preset::Children => "children",
        }
    }

    fn names() -> String {
        Preset::ALL
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The preset's rule options.
    pub fn rules(self) -> Rules {
        let r = |m, n| Rules::new(m, n).expect("presets are valid");
        match self {
            Preset::International => r(6, 4),
            Preset::Swedish => r(6, 6),
            Preset::Danish => r(6, 6).with_leftover(Leftover::Emptier),
            Preset::Norwegian => r(6, 4).with_end(End::OnTurn),
            Preset::Children => r(6, 3).with_capture(Capture::Off),
        }
    }
}

impl Rules {
    /// The name of a set of rules, as checkpoint folders and training runs are named: the preset's
    /// name (`kalah64` for international), else `kalah` and the board size (`kalah65`; `kalah10x12`
    /// when either number has two digits) followed by each option that differs from the default
    /// (`-capture-off`, `-leftover-emptier`, `-end-on-turn`); then `-pie` with the pie rule. Two
    /// different rule sets never share a name.
    pub fn canonical_name(&self) -> String {
        let base = self.with_pie(false);
        let mut name = match Preset::ALL.iter().find(|p| p.rules() == base) {
            Some(Preset::International) => "kalah64".to_string(),
            Some(p) => p.name().to_string(),
            None => {
                let (m, n) = (self.pits(), self.seeds());
                let mut s = if m < 10 && n < 10 {
                    format!("kalah{m}{n}")
                } else {
                    format!("kalah{m}x{n}")
                };
                let d = RulesSpec::default();
                if self.capture != d.capture {
                    s += &format!("-capture-{}", self.capture);
                }
                if self.leftover != d.leftover {
                    s += &format!("-leftover-{}", self.leftover);
                }
                if self.end != d.end {
                    s += &format!("-end-{}", self.end);
                }
                s
            }
        };
        if self.pie {
            name += "-pie";
        }
        name
    }
}

impl FromStr for Preset {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Preset, RulesError> {
        let key = s.to_ascii_lowercase();
        Preset::ALL
            .iter()
            .copied()
            .find(|p| p.name() == key || (key == "kalah64" && *p == Preset::International))
            .ok_or_else(|| RulesError::UnknownPreset(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_choices_read_the_config_keys_and_resolve_as_the_flags_do() {
        let c: RuleChoices = toml::from_str(
            "preset = \"danish\"\npits = 4\ncapture = \"empty\"\nend = \"on-turn\"\npie = true",
        )
        .unwrap();
        let r = c.build().unwrap();
        assert_eq!(
            r,
            Rules::new(4, 6)
                .unwrap()
                .with_leftover(Leftover::Emptier)
                .with_capture(Capture::Empty)
                .with_end(End::OnTurn)
                .with_pie(true)
        );
        let back: RuleChoices = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // Nothing given: international Kalah(6,4); borrowed keywords build the same rules.
        assert_eq!(
            RuleChoices::<String>::default().build().unwrap(),
            Rules::kalah64()
        );
        let borrowed = RuleChoices {
            preset: Some("danish"),
            pits: Some(4),
            capture: Some("empty"),
            end: Some("on-turn"),
            pie: Some(true),
            ..RuleChoices::default()
        };
        assert_eq!(borrowed.build().unwrap(), r);
        // Unknown keys and bad keywords are refused, naming them.
        assert!(toml::from_str::<RuleChoices>("pit = 4").is_err());
        let bad = RuleChoices {
            capture: Some("sometimes"),
            ..RuleChoices::default()
        };
        assert_eq!(
            bad.build().unwrap_err().to_string(),
            "unknown capture rule 'sometimes' (expected one of: standard, empty, off)"
        );
        let bad = RuleChoices {
            preset: Some("dutch"),
            ..RuleChoices::default()
        };
        assert!(
            bad.build()
                .unwrap_err()
                .to_string()
                .starts_with("unknown rules preset 'dutch'")
        );
    }

    #[test]
    fn board_size_limits_are_refused_with_the_numbers() {
        assert_eq!(Rules::new(0, 4).unwrap_err(), RulesError::Pits(0));
        assert_eq!(Rules::new(16, 4).unwrap_err(), RulesError::Pits(16));
        assert!(Rules::new(15, 8).is_ok());
        let err = Rules::new(6, 22).unwrap_err();
        assert_eq!(
            err.to_string(),
            "22 seeds per pit on 6 pits a side makes 264 seeds; the board holds 1 to 255"
        );
        assert!(Rules::new(6, 21).is_ok());
        assert!(Rules::new(12, 10).is_ok());
        assert!(Rules::new(6, 0).is_err());
        assert!(Rules::new(6, u32::MAX).is_err());
    }

    #[test]
    fn presets_match_the_table_of_rules_md() {
        let p = |name: &str| name.parse::<Preset>().unwrap().rules();
        assert_eq!(p("international"), Rules::kalah64());
        assert_eq!(
            p("swedish").spec(),
            RulesSpec {
                pits: 6,
                seeds: 6,
                ..RulesSpec::default()
            }
        );
        assert_eq!(p("danish").leftover, Leftover::Emptier);
        assert_eq!(p("danish").seeds(), 6);
        assert_eq!(p("norwegian").end, End::OnTurn);
        assert_eq!(p("children").capture, Capture::Off);
        assert_eq!(p("children").seeds(), 3);
        assert!(
            "nope"
                .parse::<Preset>()
                .unwrap_err()
                .to_string()
                .contains("international")
        );
    }

    #[test]
    fn canonical_names_follow_the_presets_then_the_options() {
        let name = |r: Rules| r.canonical_name();
        let p = |n: &str| n.parse::<Preset>().unwrap().rules();
        assert_eq!(name(Rules::kalah64()), "kalah64");
        assert_eq!(name(Rules::kalah64().with_pie(true)), "kalah64-pie");
        assert_eq!(name(p("norwegian")), "norwegian");
        assert_eq!(name(p("children")), "children");
        assert_eq!(name(p("swedish")), "swedish");
        assert_eq!(name(p("danish")), "danish");
        assert_eq!(name(p("danish").with_pie(true)), "danish-pie");
        assert_eq!(name(Rules::new(6, 5).unwrap()), "kalah65");
        assert_eq!(name(Rules::new(10, 12).unwrap()), "kalah10x12");
        assert_eq!(
            name(Rules::new(6, 3).unwrap().with_capture(Capture::Off)),
            "children"
        );
        assert_eq!(
            name(Rules::new(6, 3).unwrap().with_capture(Capture::Empty)),
            "kalah63-capture-empty"
        );
        assert_eq!(
            name(
                Rules::new(8, 5)
                    .unwrap()
                    .with_leftover(Leftover::Discard)
                    .with_end(End::OnTurn)
                    .with_pie(true)
            ),
            "kalah85-leftover-discard-end-on-turn-pie"
        );
        // Kalah(6,4) with the Norwegian end under another leftover is not Norwegian.
        assert_eq!(
            name(p("norwegian").with_leftover(Leftover::Emptier)),
            "kalah64-leftover-emptier-end-on-turn"
        );
    }

    #[test]
    fn no_two_rule_sets_share_a_canonical_name() {
        let mut seen = std::collections::HashMap::new();
        for pits in 1..=MAX_PITS as u32 {
            for seeds in 1..=MAX_SEEDS {
                let Ok(r) = Rules::new(pits, seeds) else {
                    continue;
                };
                for &c in Capture::ALL {
                    for &l in Leftover::ALL {
                        for &e in End::ALL {
                            for pie in [false, true] {
                                let r =
                                    r.with_capture(c).with_leftover(l).with_end(e).with_pie(pie);
                                if let Some(other) = seen.insert(r.canonical_name(), r) {
                                    panic!("{r:?} and {other:?} are both {}", r.canonical_name());
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn keywords_round_trip_and_unknown_ones_name_the_option() {
        for c in Capture::ALL {
            assert_eq!(c.name().parse::<Capture>().unwrap(), *c);
        }
        for l in Leftover::ALL {
            assert_eq!(l.name().parse::<Leftover>().unwrap(), *l);
        }
        for e in End::ALL {
            assert_eq!(e.name().parse::<End>().unwrap(), *e);
        }
        let err = "sometimes".parse::<End>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown end rule 'sometimes' (expected one of: immediate, on-turn)"
        );
    }
}
