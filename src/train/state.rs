//! The run state a checkpoint keeps besides the weights and the optimizer, so that a resumed run
//! goes on as if it had never stopped: the replay buffer and the self-play games in flight (their
//! positions and what each has recorded). Every random stream of a run is drawn from the run's
//! seed and the iteration, so nothing else needs saving.
//!
//! # Format (version 2, little-endian; version 1, without the seeds lost per action, is read too)
//! `KALAHAST`, version `u32`, then the replay buffer (count `u64`, then each sample) and the
//! self-play games (count `u64`, then each game), then a checksum `u64` of everything before it
//! ([`crate::solver::endgame::checksum`]). A position is [`Position::to_bytes`]'s 34 bytes,
//! decoded under the run's rules.

use anyhow::{Context, bail, ensure};

use crate::rules::{Position, Rules};
use crate::search::MAX_ACTIONS;
use crate::solver::endgame::checksum;

const MAGIC: &[u8; 8] = b"KALAHAST";
const VERSION: u32 = 2;
/// The oldest version still read (version 1 kept no seeds lost per action).
const OLDEST: u32 = 1;

/// Appends little-endian values to a byte buffer.
#[derive(Default)]
pub struct Writer {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A buffer that starts with the magic and version.
    pub fn new() -> Writer {
        let mut w = Writer::default();
        w.bytes.extend_from_slice(MAGIC);
        w.u32(VERSION);
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

    /// A position.
    pub fn pos(&mut self, p: &Position) {
        self.bytes.extend_from_slice(&p.to_bytes());
    }

    /// A policy over [`MAX_ACTIONS`] actions.
    pub fn policy(&mut self, p: &[f32; MAX_ACTIONS]) {
        for &x in p {
            self.f32(x);
        }
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
    rules: Rules,
    version: u32,
}

impl<'a> Reader<'a> {
    /// Checks the magic, version and checksum of `bytes`; positions decode under `rules`.
    pub fn new(bytes: &'a [u8], rules: &Rules) -> anyhow::Result<Reader<'a>> {
        ensure!(
            bytes.len() >= 20 && &bytes[..8] == MAGIC,
            "not a kalaha run state"
        );
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        ensure!(
            checksum(&[body]) == u64::from_le_bytes(sum.try_into().expect("8 bytes")),
            "checksum mismatch (a truncated or damaged file)"
        );
        let mut r = Reader {
            bytes: body,
            at: 8,
            rules: *rules,
            version: 0,
        };
        let v = r.u32()?;
        ensure!(
            (OLDEST..=VERSION).contains(&v),
            "run state version {v}, expected {OLDEST} to {VERSION}"
        );
        r.version = v;
        Ok(r)
    }

    /// The format version of the state being read.
    pub fn version(&self) -> u32 {
        self.version
    }

    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end = self.at + n;
        ensure!(end <= self.bytes.len(), "run state ends early");
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// One byte.
    pub fn u8(&mut self) -> anyhow::Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// A `u32`.
    pub fn u32(&mut self) -> anyhow::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into()?))
    }

    /// An `i32`.
    pub fn i32(&mut self) -> anyhow::Result<i32> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into()?))
    }

    /// A `u64`.
    pub fn u64(&mut self) -> anyhow::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into()?))
    }

    /// An `f32`.
    pub fn f32(&mut self) -> anyhow::Result<f32> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into()?))
    }

    /// A position of the run's rules.
    pub fn pos(&mut self) -> anyhow::Result<Position> {
        let b: &[u8; 34] = self.take(34)?.try_into()?;
        Position::from_bytes(&self.rules, b).context("a position of other rules")
    }

    /// A policy over [`MAX_ACTIONS`] actions.
    pub fn policy(&mut self) -> anyhow::Result<[f32; MAX_ACTIONS]> {
        let mut p = [0.0; MAX_ACTIONS];
        for x in &mut p {
            *x = self.f32()?;
        }
        Ok(p)
    }

    /// A count of items that each take at least `min_bytes`, checked against what is left.
    pub fn count(&mut self, min_bytes: usize) -> anyhow::Result<usize> {
        let n = self.u64()? as usize;
        if n.saturating_mul(min_bytes) > self.bytes.len() - self.at {
            bail!("run state claims {n} items, more than it holds");
        }
        Ok(n)
    }

    /// Refuses bytes left over.
    pub fn end(&self) -> anyhow::Result<()> {
        ensure!(self.at == self.bytes.len(), "run state has bytes left over");
        Ok(())
    }
}
