//! Positions whose distance is known before the search reaches it: a capture's win, a loss
//! whose longest line is a capture. A search by levels keeps them here until their level,
//! where they join its frontier. They can be a tenth of the positions (KRNKR: 6.4 million,
//! most of them red's wins by taking the rook), so they wait on disk, in a temporary file of
//! blocks of one level's entries each; memory holds only where each level's blocks are.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Entries a thread gathers before it writes them out, sorted by level.
const LOCAL_ENTRIES: usize = 1 << 16;

/// Entries read back at a time when a level is taken.
const READ_ENTRIES: usize = 1 << 16;

/// Per level, the positions (slot and side to move) waiting for it, in a temporary file
/// removed when dropped.
pub(super) struct Pending {
    path: PathBuf,
    file: Mutex<Blocks>,
}

/// The file and where each level's blocks lie in it.
struct Blocks {
    file: File,
    /// The file's length.
    end: u64,
    /// Per level, the offset and entry count of each of its blocks.
    levels: Vec<Vec<(u64, u32)>>,
    /// Entries written, over every level.
    written: u64,
    /// The first write that failed (reported by [`Pending::check`]).
    error: Option<std::io::Error>,
}

/// A thread's entries on their way into a [`Pending`]; written out when full or dropped.
pub(super) struct LocalPending<'a> {
    to: &'a Pending,
    entries: Vec<(u16, u64)>,
}

impl Pending {
    /// No position waiting; the file `path` is created.
    ///
    /// # Errors
    /// The file cannot be created.
    pub(super) fn create(path: &Path) -> std::io::Result<Pending> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Pending {
            path: path.to_path_buf(),
            file: Mutex::new(Blocks {
                file,
                end: 0,
                levels: Vec::new(),
                written: 0,
                error: None,
            }),
        })
    }

    /// The file the positions wait in.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// A buffer for one thread's entries.
    pub(super) fn local(&self) -> LocalPending<'_> {
        LocalPending {
            to: self,
            entries: Vec::new(),
        }
    }

    /// The first error met writing entries out since the last call, if any.
    ///
    /// # Errors
    /// That error.
    pub(super) fn check(&self) -> std::io::Result<()> {
        match self.blocks().error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Calls `f` with the positions waiting for `level`, as (side to move, slot), a batch at
    /// a time, and forgets them.
    ///
    /// # Errors
    /// The file cannot be read back.
    pub(super) fn take(
        &self,
        level: u16,
        mut f: impl FnMut(&[(usize, u64)]),
    ) -> std::io::Result<()> {
        let blocks = {
            let mut b = self.blocks();
            let blocks = b.levels.get_mut(level as usize).map(std::mem::take);
            blocks.unwrap_or_default()
        };
        let mut batch: Vec<(usize, u64)> = Vec::new();
        let mut bytes = Vec::new();
        for (offset, count) in blocks {
            bytes.resize(8 * count as usize, 0);
            {
                let mut b = self.blocks();
                b.file.seek(SeekFrom::Start(offset))?;
                b.file.read_exact(&mut bytes)?;
            }
            batch.extend(bytes.chunks_exact(8).map(|b| {
                let e = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                ((e & 1) as usize, e >> 1)
            }));
            if batch.len() >= READ_ENTRIES {
                f(&batch);
                batch.clear();
            }
        }
        if !batch.is_empty() {
            f(&batch);
        }
        Ok(())
    }

    /// The highest level some position waits for, if any.
    pub(super) fn last_level(&self) -> Option<u16> {
        let b = self.blocks();
        b.levels
            .iter()
            .rposition(|l| !l.is_empty())
            .map(|l| l as u16)
    }

    /// Entries written, over every level (taken or not).
    pub(super) fn written(&self) -> u64 {
        self.blocks().written
    }

    fn blocks(&self) -> std::sync::MutexGuard<'_, Blocks> {
        self.file.lock().expect("no panic holds the lock")
    }

    /// Writes `entries` out, a block per level; a failure is kept for [`Pending::check`].
    fn add(&self, entries: &mut Vec<(u16, u64)>) {
        entries.sort_unstable_by_key(|&(level, _)| level);
        let mut b = self.blocks();
        for group in entries.chunk_by(|x, y| x.0 == y.0) {
            let level = group[0].0 as usize;
            let bytes: Vec<u8> = group.iter().flat_map(|(_, e)| e.to_le_bytes()).collect();
            let at = b.end;
            let written = b
                .file
                .seek(SeekFrom::Start(at))
                .and_then(|_| b.file.write_all(&bytes));
            if let Err(e) = written {
                b.error.get_or_insert(e);
                break;
            }
            b.end += bytes.len() as u64;
            b.written += group.len() as u64;
            if b.levels.len() <= level {
                b.levels.resize_with(level + 1, Vec::new);
            }
            b.levels[level].push((at, group.len() as u32));
        }
        entries.clear();
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl LocalPending<'_> {
    /// Slot `slot` of `side` to move waits for `level`.
    pub(super) fn push(&mut self, level: u16, side: usize, slot: u64) {
        self.entries.push((level, slot << 1 | side as u64));
        if self.entries.len() >= LOCAL_ENTRIES {
            self.to.add(&mut self.entries);
        }
    }
}

impl Drop for LocalPending<'_> {
    fn drop(&mut self) {
        if !self.entries.is_empty() {
            self.to.add(&mut self.entries);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(pending: &Pending, level: u16) -> Vec<(usize, u64)> {
        let mut all = Vec::new();
        pending
            .take(level, |batch| all.extend_from_slice(batch))
            .unwrap();
        all
    }

    #[test]
    fn entries_wait_for_their_level() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending");
        let pending = Pending::create(&path).unwrap();
        {
            let mut local = pending.local();
            for k in 0..(LOCAL_ENTRIES as u64 + 5) {
                local.push(3 + (k % 2) as u16, (k % 2) as usize, k);
            }
        }
        pending.check().unwrap();
        assert_eq!(pending.written(), LOCAL_ENTRIES as u64 + 5);
        assert_eq!(pending.last_level(), Some(4));
        let at_4 = taken(&pending, 4);
        assert!(at_4.iter().all(|&(side, slot)| side == 1 && slot % 2 == 1));
        assert_eq!(at_4.len(), LOCAL_ENTRIES / 2 + 2);
        assert_eq!(pending.last_level(), Some(3));
        assert!(taken(&pending, 9).is_empty());
        assert_eq!(taken(&pending, 3).len(), LOCAL_ENTRIES / 2 + 3);
        assert_eq!(pending.last_level(), None);
        drop(pending);
        assert!(!path.exists(), "the file is removed");
    }
}
