//! A deque in fixed-size chunks, for the journal: pushing never moves what is stored. A `VecDeque` doubles and
//! copies everything it holds as it grows, a pause of milliseconds at a few hundred thousand entries, and the
//! journal grows under the mock's lock, so every request in flight waited for it (the load test's p99). Evicting
//! the oldest entries (a bounded journal) frees whole chunks.

use std::collections::VecDeque;

/// Items per chunk: one allocation of `CHUNK` items, never reallocated.
const CHUNK: usize = 4096;

/// Items in chunks of [`CHUNK`]; every chunk but the first (which loses items at the front) and the last (which
/// gains them at the back) is full, so a position maps to its chunk by arithmetic.
#[derive(Clone, Debug)]
pub(crate) struct Segments<T> {
    chunks: VecDeque<VecDeque<T>>,
    len: usize,
}

impl<T> Default for Segments<T> {
    fn default() -> Segments<T> {
        Segments { chunks: VecDeque::new(), len: 0 }
    }
}

impl<T> Segments<T> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn push_back(&mut self, item: T) {
        match self.chunks.back_mut() {
            Some(last) if last.len() < CHUNK => last.push_back(item),
            _ => {
                let mut chunk = VecDeque::with_capacity(CHUNK);
                chunk.push_back(item);
                self.chunks.push_back(chunk);
            }
        }
        self.len += 1;
    }

    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let first = self.chunks.front_mut()?;
        let item = first.pop_front();
        if first.is_empty() {
            self.chunks.pop_front();
        }
        if item.is_some() {
            self.len -= 1;
        }
        item
    }

    pub(crate) fn front(&self) -> Option<&T> {
        self.chunks.front()?.front()
    }

    /// Which chunk holds `position`, and where in it.
    fn locate(&self, position: usize) -> Option<(usize, usize)> {
        let first = self.chunks.front()?.len();
        if position < first {
            return Some((0, position));
        }
        let rest = position - first;
        Some((1 + rest / CHUNK, rest % CHUNK))
    }

    pub(crate) fn get(&self, position: usize) -> Option<&T> {
        let (chunk, offset) = self.locate(position)?;
        self.chunks.get(chunk)?.get(offset)
    }

    pub(crate) fn get_mut(&mut self, position: usize) -> Option<&mut T> {
        let (chunk, offset) = self.locate(position)?;
        self.chunks.get_mut(chunk)?.get_mut(offset)
    }

    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.chunks.iter().flat_map(|chunk| chunk.iter())
    }

    pub(crate) fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any mix of pushes and pops behaves as a VecDeque: the same items, the same positions.
        #[test]
        fn behaves_as_a_vecdeque(operations in proptest::collection::vec(0u8..4, 0..20_000)) {
            let (mut segments, mut reference) = (Segments::default(), VecDeque::new());
            for (i, operation) in operations.into_iter().enumerate() {
                if operation == 0 {
                    prop_assert_eq!(segments.pop_front(), reference.pop_front());
                } else {
                    segments.push_back(i);
                    reference.push_back(i);
                }
            }
            prop_assert_eq!(segments.len(), reference.len());
            prop_assert_eq!(segments.front(), reference.front());
            for position in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, reference.len().saturating_sub(1), reference.len()] {
                prop_assert_eq!(segments.get(position), reference.get(position));
            }
            prop_assert!(segments.iter().eq(reference.iter()));
            prop_assert!(segments.iter().rev().eq(reference.iter().rev()));
        }
    }

    #[test]
    fn pushing_never_moves_what_is_stored() {
        let mut segments = Segments::default();
        segments.push_back(0u64);
        let first: *const u64 = segments.get(0).unwrap();
        for i in 1..(3 * CHUNK as u64) {
            segments.push_back(i);
        }
        assert!(std::ptr::eq(first, segments.get(0).unwrap()), "the first item stayed where it was");
        *segments.get_mut(CHUNK + 5).unwrap() = 7;
        assert_eq!(segments.get(CHUNK + 5), Some(&7));
    }
}
