//! Saving and restoring: the framed byte format that a [`VecEnv`](super::VecEnv)'s state and
//! training's run state (`train::state`) are both written in, and the environment's own state
//! ([`VecEnv::save_state`](super::VecEnv::save_state),
//! [`VecEnv::load_state`](super::VecEnv::load_state)).
//!
//! # Framing
//! Little-endian throughout: an 8-byte magic naming what the bytes hold, a version `u32`, the
//! body, then a checksum `u64` of everything before it ([`crate::files::checksum`]).
//! A position is [`Position::to_bytes`]'s 34 bytes, decoded under rules the reader knows.
//! A [`Reader`] refuses a wrong magic, an unknown version, a checksum that does not match, a body
//! that ends early or has bytes left over, and counts larger than what is left.
//!
//! # The environment's state (magic `KALAHAVE`, version 1)
//! The rules (pits `u32`, seeds `u32`, then the capture, leftover and end keywords as strings,
//! each a `u32` length and its UTF-8 bytes, then the pie rule as a byte), the number of games
//! `u64`, then for each game: its position (34 bytes), whether its players exchanged seats (a
//! byte), the moves played (`u32`), the state of its random stream (`u64`), and the last step's
//! outputs for it: the reward (`f32`), whether the step ended a game (a byte) and, only when it
//! did, the finished game's final scores (two bytes), length (`u32`) and final observation
//! (`2m + 4` `f32`s). An environment restored from these bytes goes on exactly as the one saved.

use crate::files::checksum;
use crate::rules::{Position, PositionError, Rules, RulesError, RulesSpec};

/// Why saved bytes were refused. `what` names the kind of state being read (`"run state"`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Bytes that do not start with the expected magic.
    #[error("not a kalaha {what}")]
    Magic { what: &'static str },
    /// A checksum that does not match the bytes.
    #[error("checksum mismatch (a truncated or damaged file)")]
    Checksum,
    /// A version this build does not read.
    #[error("{what} version {got}, expected {oldest} to {newest}")]
    Version {
        what: &'static str,
        got: u32,
        oldest: u32,
        newest: u32,
    },
    /// A body shorter than what it says it holds.
    #[error("{what} ends early")]
    EndsEarly { what: &'static str },
    /// A count of items larger than the bytes left could hold.
    #[error("{what} claims {count} items, more than it holds")]
    Count { what: &'static str, count: u64 },
    /// Bytes after the last item.
    #[error("{what} has bytes left over")]
    LeftOver { what: &'static str },
    /// A position that is not one of the rules.
    #[error("a position of other rules: {0}")]
    Position(#[from] PositionError),
    /// Rule options that are not valid.
    #[error("rules: {0}")]
    Rules(#[from] RulesError),
    /// A string that is not UTF-8.
    #[error("{what} holds a string that is not UTF-8")]
    Utf8 { what: &'static str },
    /// A valid state that does not fit where it is loaded (other rules, another number of
    /// games) or whose values are out of range; the message says which.
    #[error("{0}")]
    Mismatch(String),
}

/// Appends little-endian values to a byte buffer that starts with a magic and a version.
#[derive(Default)]
pub struct Writer {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A buffer that starts with `magic` and `version`.
    pub fn new(magic: &[u8; 8], version: u32) -> Writer {
        let mut w = Writer::default();
        w.bytes.extend_from_slice(magic);
        w.u32(version);
        w
    }

    /// One byte.
    pub fn u8(&mut self, x: u8) {
        self.bytes.push(x);
    }

    /// A `u32`.
    pub fn u32(&mut self, x: u32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }

    /// An `i32`.
    pub fn i32(&mut self, x: i32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }

    /// A `u64`.
    pub fn u64(&mut self, x: u64) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }

    /// An `f32`.
    pub fn f32(&mut self, x: f32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }

    /// A string: its length (`u32`) and its UTF-8 bytes.
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// A position ([`Position::to_bytes`]).
    pub fn pos(&mut self, p: &Position) {
        self.bytes.extend_from_slice(&p.to_bytes());
    }

    /// Rule options: pits, seeds, the three keywords, the pie rule.
    pub fn rules(&mut self, rules: &Rules) {
        let s = rules.spec();
        self.u32(s.pits);
        self.u32(s.seeds);
        self.str(s.capture.name());
        self.str(s.leftover.name());
        self.str(s.end.name());
        self.u8(s.pie as u8);
    }

    /// The bytes with their checksum at the end.
    pub fn finish(mut self) -> Vec<u8> {
        let c = checksum(&[&self.bytes]);
        self.u64(c);
        self.bytes
    }
}

/// Reads what a [`Writer`] wrote, refusing truncated or corrupt input.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    version: u32,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// Checks the magic, the version (`oldest` to `newest`) and the checksum of `bytes`, a
    /// `what` (named in errors).
    pub fn new(
        bytes: &'a [u8],
        magic: &[u8; 8],
        oldest: u32,
        newest: u32,
        what: &'static str,
    ) -> Result<Reader<'a>, StateError> {
        if bytes.len() < 20 || &bytes[..8] != magic {
            return Err(StateError::Magic { what });
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if checksum(&[body]) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(StateError::Checksum);
        }
        let mut r = Reader {
            bytes: body,
            at: 8,
            version: 0,
            what,
        };
        let got = r.u32()?;
        if !(oldest..=newest).contains(&got) {
            return Err(StateError::Version {
                what,
                got,
                oldest,
                newest,
            });
        }
        r.version = got;
        Ok(r)
    }

    /// The format version of the bytes being read.
    pub fn version(&self) -> u32 {
        self.version
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], StateError> {
        if n > self.bytes.len() - self.at {
            return Err(StateError::EndsEarly { what: self.what });
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], StateError> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, StateError> {
        Ok(self.take(1)?[0])
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32, StateError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// An `i32`.
    pub fn i32(&mut self) -> Result<i32, StateError> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64, StateError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// An `f32`.
    pub fn f32(&mut self) -> Result<f32, StateError> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    /// A string [`Writer::str`] wrote.
    pub fn str(&mut self) -> Result<&'a str, StateError> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|_| StateError::Utf8 { what: self.what })
    }

    /// A position of `rules`.
    pub fn pos(&mut self, rules: &Rules) -> Result<Position, StateError> {
        Ok(Position::from_bytes(rules, &self.array()?)?)
    }

    /// Rule options [`Writer::rules`] wrote, validated.
    pub fn rules(&mut self) -> Result<Rules, StateError> {
        let (pits, seeds) = (self.u32()?, self.u32()?);
        let spec = RulesSpec {
            pits,
            seeds,
            capture: self.str()?.parse()?,
            leftover: self.str()?.parse()?,
            end: self.str()?.parse()?,
            pie: match self.u8()? {
                0 => false,
                1 => true,
                b => {
                    return Err(StateError::Mismatch(format!(
                        "pie rule byte is {b}, not 0 or 1"
                    )));
                }
            },
        };
        Ok(spec.build()?)
    }

    /// A count of items that each take at least `min_bytes`, checked against what is left.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, StateError> {
        let n = self.u64()?;
        if (n as usize).saturating_mul(min_bytes) > self.bytes.len() - self.at {
            return Err(StateError::Count {
                what: self.what,
                count: n,
            });
        }
        Ok(n as usize)
    }

    /// Refuses bytes left over.
    pub fn end(&self) -> Result<(), StateError> {
        if self.at != self.bytes.len() {
            return Err(StateError::LeftOver { what: self.what });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::VecEnv;
    use super::*;

    /// Every output of two environments, compared.
    fn assert_same(a: &VecEnv, b: &VecEnv) {
        assert_eq!(a.obs(), b.obs());
        assert_eq!(a.mask(), b.mask());
        assert_eq!(a.to_play(), b.to_play());
        assert_eq!(a.reward(), b.reward());
        assert_eq!(a.done(), b.done());
        for i in 0..a.games() {
            assert_eq!(a.position(i), b.position(i));
            assert_eq!((a.swapped(i), a.game_len(i)), (b.swapped(i), b.game_len(i)));
            assert_eq!(a.outcome(i), b.outcome(i));
            if a.done()[i] {
                assert_eq!(a.final_obs().row(i), b.final_obs().row(i));
            }
        }
    }

    #[test]
    fn a_saved_environment_goes_on_exactly_as_the_original() {
        let rules = Rules::new(4, 3).unwrap().with_pie(true);
        let mut env = VecEnv::new(rules, 37, 5).unwrap();
        for k in 0..200 {
            if k % 3 == 0 {
                // The highest legal action: pie answers included.
                let actions: Vec<u32> = (0..37)
                    .map(|i| 15 - env.legal_bits(i).leading_zeros() % 16)
                    .collect();
                env.step(&actions).unwrap();
            } else {
                env.step_random();
            }
            if k > 40 && env.done().iter().any(|&d| d) {
                break;
            }
        }
        assert!(
            env.done().iter().any(|&d| d),
            "a game ended in the last step"
        );
        let bytes = env.save_state();
        let mut back = VecEnv::from_state(&bytes).unwrap();
        assert_eq!((back.games(), *back.rules()), (37, rules));
        assert_same(&env, &back);
        let mut loaded = VecEnv::new(rules, 37, 99).unwrap();
        loaded.step_random();
        loaded.load_state(&bytes).unwrap();
        assert_same(&env, &loaded);
        for _ in 0..120 {
            env.step_random();
            back.step_random();
            loaded.step_random();
            assert_same(&env, &back);
            assert_same(&env, &loaded);
        }
    }

    #[test]
    fn a_damaged_or_foreign_saved_environment_is_refused_and_changes_nothing() {
        let rules = Rules::kalah64();
        let mut env = VecEnv::new(rules, 3, 1).unwrap();
        env.step_random();
        let bytes = env.save_state();
        let mut target = VecEnv::new(rules, 3, 2).unwrap();
        let before = target.save_state();
        let reseal = |body: &[u8]| {
            let mut b = body.to_vec();
            b.extend_from_slice(&checksum(&[body]).to_le_bytes());
            b
        };
        let body = &bytes[..bytes.len() - 8];
        // Header 12, rules 43, count 8: game 0's position starts at 63, its seat byte at 97.
        let mut seat = body.to_vec();
        seat[97] = 2;
        let mut side = body.to_vec();
        side[63 + 32] = 7;
        let mut pie = body.to_vec();
        pie[54] = 3;
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (bytes[..bytes.len() - 3].to_vec(), "checksum mismatch"),
            (
                b"KALAHAST\x02\x00\x00\x00........".to_vec(),
                "not a kalaha saved environment",
            ),
            (
                reseal(&body[..body.len() - 1]),
                "saved environment claims 3 items, more than it holds",
            ),
            (reseal(&body[..20]), "saved environment ends early"),
            (
                reseal(&[body, &[0][..]].concat()),
                "saved environment has bytes left over",
            ),
            (reseal(&seat), "game 0: seat-exchange byte is 2, not 0 or 1"),
            (
                reseal(&side),
                "a position of other rules: side-to-move byte is 7",
            ),
            (reseal(&pie), "pie rule byte is 3"),
            (
                VecEnv::new(rules.with_pie(true), 3, 1)
                    .unwrap()
                    .save_state(),
                "the saved environment plays",
            ),
            (
                VecEnv::new(rules, 4, 1).unwrap().save_state(),
                "the saved environment has 4 games, this one 3",
            ),
        ];
        for (bad, why) in cases {
            let e = target.load_state(&bad).unwrap_err().to_string();
            assert!(e.contains(why), "{e:?} should say {why:?}");
            assert_eq!(
                target.save_state(),
                before,
                "a refused state changed the environment"
            );
        }
        assert!(VecEnv::from_state(&bytes[..20]).is_err());
    }

    #[test]
    fn damaged_or_cut_bytes_are_refused_naming_the_problem() {
        let mut w = Writer::new(b"KALAHATS", 3);
        w.u64(2);
        w.str("on-turn");
        w.rules(&Rules::kalah64().with_pie(true));
        let bytes = w.finish();
        let open = |b: &[u8]| Reader::new(b, b"KALAHATS", 2, 3, "test state").map(|_| ());
        assert!(open(&bytes).is_ok());
        let mut r = Reader::new(&bytes, b"KALAHATS", 2, 3, "test state").unwrap();
        assert_eq!(r.version(), 3);
        assert!(matches!(
            r.count(1000),
            Err(StateError::Count { count: 2, .. })
        ));
        let mut r = Reader::new(&bytes, b"KALAHATS", 2, 3, "test state").unwrap();
        assert_eq!(r.u64(), Ok(2));
        assert_eq!(r.str(), Ok("on-turn"));
        assert_eq!(r.rules(), Ok(Rules::kalah64().with_pie(true)));
        assert_eq!(r.end(), Ok(()));
        assert_eq!(r.u8(), Err(StateError::EndsEarly { what: "test state" }));

        let mut flipped = bytes.clone();
        flipped[14] ^= 1;
        assert_eq!(open(&flipped), Err(StateError::Checksum));
        assert_eq!(open(&bytes[..bytes.len() - 1]), Err(StateError::Checksum));
        assert_eq!(open(b"nope"), Err(StateError::Magic { what: "test state" }));
        let e = Reader::new(&bytes, b"KALAHATS", 1, 2, "test state").map(|_| ());
        assert_eq!(
            e.unwrap_err().to_string(),
            "test state version 3, expected 1 to 2"
        );
    }
}
