//! The perfect player's transposition table: two-entry buckets, at most as
//! many as the megabytes given allow (as chess engines bound theirs with a
//! Hash option), so a search of any length stays within the memory it was
//! given. The table starts small and doubles when half its slots are full,
//! up to that bound: a search that meets few positions (a small board) uses
//! a few MiB, not the whole budget.
//!
//! Each entry keeps the whole position (both bitboards), so a hit is never
//! another position's. A bucket's first entry keeps the result of the most
//! work (depth-preferred); its second takes whatever else comes
//! (always-replace). Entries left by an earlier deepening step give way
//! first.

/// The bytes of one entry: two bitboards and the packed data.
const ENTRY_BYTES: usize = 24;

/// What kind of bound an entry's score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A stored result: a score, what kind of bound it is, the step it holds
/// for (`None`: its whole subtree was searched, so it holds in every step),
/// the best move found (in the key's orientation) and how many free squares
/// the position had (the work it stands for, for replacement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub score: i32,
    pub bound: Bound,
    pub step: Option<u32>,
    pub best: Option<u32>,
    pub work: u32,
}

// The packed data word: bit 0 set in every stored entry (an all-zero slot is
// empty), bits 1-2 the bound, 3-10 the step + 1 (0: none), 11-18 the best
// square + 1 (0: none), 19-26 the work, 32-63 the score.
impl Entry {
    fn pack(self) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let byte = |v: Option<u32>| u64::from(v.map_or(0, |v| (v + 1) & 0xff));
        1 | bound << 1
            | byte(self.step) << 3
            | byte(self.best) << 11
            | u64::from(self.work & 0xff) << 19
            | u64::from(self.score.cast_unsigned()) << 32
    }

    fn unpack(data: u64) -> Entry {
        let bound = match (data >> 1) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        let byte = |shift: u32| {
            let v = u32::try_from((data >> shift) & 0xff).expect("a byte");
            v.checked_sub(1)
        };
        Entry {
            score: u32::try_from(data >> 32).expect("32 bits").cast_signed(),
            bound,
            step: byte(3),
            best: byte(11),
            work: u32::try_from((data >> 19) & 0xff).expect("a byte"),
        }
    }
}

/// The buckets a table starts with (48 KiB): it doubles from there.
const FIRST_BUCKETS: usize = 1 << 10;

/// A table of positions (as canonical bitboard pairs) and what the search
/// learnt about them, growing on demand up to a bound.
pub(super) struct Table {
    /// Two slots per bucket; a slot is `[mine, theirs, data]`, all zero when
    /// empty.
    slots: Vec<[u64; 3]>,
    buckets: u64,
    /// The most buckets the table may grow to.
    most: usize,
    /// Slots in use.
    used: usize,
}

impl Table {
    /// A table of at most `megabytes` MiB, and of no more buckets than
    /// `positions` (the most positions the search can meet) needs. It starts
    /// small and grows as it fills; if memory cannot be had, it stops growing.
    pub(super) fn new(megabytes: u32, positions: u64) -> Table {
        let by_memory = (usize::try_from(megabytes).unwrap_or(usize::MAX).saturating_mul(1 << 20)
            / (2 * ENTRY_BYTES))
            .max(1);
        let most = by_memory.min(usize::try_from(positions.div_ceil(2)).unwrap_or(usize::MAX)).max(1);
        let buckets = most.min(FIRST_BUCKETS);
        let mut table = Table { slots: Vec::new(), buckets: 0, most, used: 0 };
        if !table.allocate(buckets) {
            table.allocate(1);
        }
        table
    }

    /// Replaces the slots with `buckets` empty buckets; false (and nothing
    /// changed) if the memory cannot be had.
    fn allocate(&mut self, buckets: usize) -> bool {
        let mut slots = Vec::new();
        if slots.try_reserve_exact(2 * buckets).is_err() {
            return false;
        }
        slots.resize(2 * buckets, [0; 3]);
        self.slots = slots;
        self.buckets = buckets as u64;
        self.used = 0;
        true
    }

    /// Doubles the table (up to its bound) and puts every entry back.
    fn grow(&mut self) {
        let buckets = (self.slots.len()).min(self.most);
        let old = std::mem::take(&mut self.slots);
        if !self.allocate(buckets) {
            // No more memory: keep the table as it is, and stop growing.
            self.slots = old;
            self.most = usize::try_from(self.buckets).unwrap_or(usize::MAX);
            self.used = self.slots.iter().filter(|slot| slot[2] != 0).count();
            return;
        }
        for slot in old.into_iter().filter(|slot| slot[2] != 0) {
            let b = self.bucket((slot[0], slot[1]));
            if let Some(free) = self.slots[b..b + 2].iter_mut().find(|s| s[2] == 0) {
                *free = slot;
                self.used += 1;
            }
        }
    }

    /// The memory the slots take, in bytes.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * ENTRY_BYTES
    }

    /// The bucket of `key`'s first slot.
    fn bucket(&self, key: (u64, u64)) -> usize {
        let mut h = key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ key.1.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        // Multiply-shift maps the hash onto any number of buckets evenly.
        let index = (u128::from(h) * u128::from(self.buckets)) >> 64;
        2 * usize::try_from(index).expect("below the bucket count")
    }

    /// What the table holds for `key`, if anything.
    pub(super) fn get(&self, key: (u64, u64)) -> Option<Entry> {
        let b = self.bucket(key);
        self.slots[b..b + 2]
            .iter()
            .find(|slot| slot[2] != 0 && (slot[0], slot[1]) == key)
            .map(|slot| Entry::unpack(slot[2]))
    }

    /// Stores `entry` for `key` during the step whose horizon is `horizon`:
    /// over the same position's entry if there is one, else in the first
    /// slot if that holds less work or a stale step's result, else in the
    /// second.
    pub(super) fn put(&mut self, key: (u64, u64), entry: Entry, horizon: u32) {
        let b = self.bucket(key);
        let new = [key.0, key.1, entry.pack()];
        for slot in &mut self.slots[b..b + 2] {
            if slot[2] != 0 && (slot[0], slot[1]) == key {
                *slot = new;
                return;
            }
        }
        if self.used * 2 >= self.slots.len() && self.slots.len() / 2 < self.most {
            self.grow();
            return self.put(key, entry, horizon);
        }
        let first = self.slots[b];
        let second_empty = self.slots[b + 1][2] == 0;
        if first[2] == 0 || second_empty {
            self.used += 1;
        }
        let keep_first = first[2] != 0 && {
            let old = Entry::unpack(first[2]);
            let stale = old.step.is_some_and(|step| step != horizon);
            !stale && old.work > entry.work
        };
        if keep_first {
            self.slots[b + 1] = new;
        } else {
            // The first slot's old entry moves down rather than vanish.
            self.slots[b + 1] = first;
            self.slots[b] = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_pack_and_unpack() {
        for entry in [
            Entry { score: -65, bound: Bound::Upper, step: None, best: Some(63), work: 64 },
            Entry { score: 0, bound: Bound::Exact, step: Some(64), best: None, work: 0 },
            Entry { score: 12, bound: Bound::Lower, step: Some(0), best: Some(0), work: 9 },
        ] {
            assert_eq!(Entry::unpack(entry.pack()), entry);
        }
    }

    #[test]
    fn a_table_starts_small_and_grows_up_to_its_bound() {
        let entry = |work| Entry { score: 1, bound: Bound::Exact, step: None, best: None, work };
        let mut table = Table::new(256, u64::MAX);
        assert!(table.bytes() <= 1 << 20, "{}", table.bytes());
        for i in 1..=20_000u64 {
            table.put((i, 0), entry(1), 0);
        }
        // Grown to hold most of them (a third key in one bucket pushes one
        // out: 16,260 kept when written).
        let kept = (1..=20_000u64).filter(|&i| table.get((i, 0)).is_some()).count();
        assert!(kept > 15_000, "{kept}");
        assert!(table.bytes() <= 4 << 20, "{}", table.bytes());
        // A 1 MiB table stops growing at 1 MiB.
        let mut small = Table::new(1, u64::MAX);
        for i in 1..=100_000u64 {
            small.put((i, 0), entry(1), 0);
        }
        assert!(small.bytes() <= 1 << 20 && small.bytes() > 1 << 19, "{}", small.bytes());
        assert!(small.get((100_000, 0)).is_some());
    }

    #[test]
    fn a_full_table_keeps_the_deepest_and_the_newest() {
        let mut table = Table::new(1, 2);
        assert_eq!(table.buckets, 1);
        let entry = |work| Entry { score: 1, bound: Bound::Exact, step: None, best: None, work };
        table.put((1, 0), entry(9), 5);
        table.put((2, 0), entry(3), 5);
        table.put((3, 0), entry(4), 5);
        assert_eq!(table.get((1, 0)), Some(entry(9)));
        assert_eq!(table.get((2, 0)), None);
        assert_eq!(table.get((3, 0)), Some(entry(4)));
        // The same position's entry is replaced in place.
        table.put((3, 0), entry(2), 5);
        assert_eq!(table.get((3, 0)), Some(entry(2)));
        assert_eq!(table.get((1, 0)), Some(entry(9)));
    }
}
