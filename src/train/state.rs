//! The run state a checkpoint keeps besides the weights and the optimizer, so that a resumed run
//! goes on as if it had never stopped: the replay buffer and the self-play games in flight (their
//! positions and what each has recorded). Every random stream of a run is drawn from the run's
//! seed and the iteration, so nothing else needs saving.
//!
//! # Format (version 2, little-endian; version 1, without the seeds lost per action, is read too)
//! `KALAHAST`, version `u32`, then the replay buffer (count `u64`, then each sample) and the
//! self-play games (count `u64`, then each game), then a checksum `u64` of everything before it:
//! the framing of [`crate::env::state`], which a saved environment uses too. A position is
//! [`Position::to_bytes`]'s 34 bytes, decoded under the run's rules.

use std::ops::{Deref, DerefMut};

use anyhow::Context;

use crate::env::state;
use crate::rules::{Position, Rules};
use crate::search::MAX_ACTIONS;

const MAGIC: &[u8; 8] = b"KALAHAST";
const VERSION: u32 = 2;
/// The oldest version still read (version 1 kept no seeds lost per action).
const OLDEST: u32 = 1;

/// Appends a run state's values to a byte buffer (the framing and values of
/// [`state::Writer`], which it derefs to).
pub struct Writer(state::Writer);

impl Writer {
    /// A buffer that starts with the run state's magic and version.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Writer {
        Writer(state::Writer::new(MAGIC, VERSION))
    }

    /// A policy over [`MAX_ACTIONS`] actions.
    pub fn policy(&mut self, p: &[f32; MAX_ACTIONS]) {
        for &x in p {
            self.0.f32(x);
        }
    }

    /// The bytes with their checksum at the end.
    pub fn finish(self) -> Vec<u8> {
        self.0.finish()
    }
}

impl Deref for Writer {
    type Target = state::Writer;
    fn deref(&self) -> &state::Writer {
        &self.0
    }
}

impl DerefMut for Writer {
    fn deref_mut(&mut self) -> &mut state::Writer {
        &mut self.0
    }
}

/// Reads what a [`Writer`] wrote, refusing truncated or corrupt input (a [`state::Reader`],
/// which it derefs to, that knows the run's rules).
pub struct Reader<'a> {
    inner: state::Reader<'a>,
    rules: Rules,
}

impl<'a> Reader<'a> {
    /// Checks the magic, version and checksum of `bytes`; positions decode under `rules`.
    pub fn new(bytes: &'a [u8], rules: &Rules) -> anyhow::Result<Reader<'a>> {
        Ok(Reader {
            inner: state::Reader::new(bytes, MAGIC, OLDEST, VERSION, "run state")?,
            rules: *rules,
        })
    }

    /// A position of the run's rules.
    pub fn pos(&mut self) -> anyhow::Result<Position> {
        self.inner
            .pos(&self.rules)
            .context("a position of other rules")
    }

    /// A policy over [`MAX_ACTIONS`] actions.
    pub fn policy(&mut self) -> anyhow::Result<[f32; MAX_ACTIONS]> {
        let mut p = [0.0; MAX_ACTIONS];
        for x in &mut p {
            *x = self.inner.f32()?;
        }
        Ok(p)
    }

    /// Refuses bytes left over.
    pub fn end(&self) -> anyhow::Result<()> {
        Ok(self.inner.end()?)
    }
}

impl<'a> Deref for Reader<'a> {
    type Target = state::Reader<'a>;
    fn deref(&self) -> &state::Reader<'a> {
        &self.inner
    }
}

impl<'a> DerefMut for Reader<'a> {
    fn deref_mut(&mut self) -> &mut state::Reader<'a> {
        &mut self.inner
    }
}
