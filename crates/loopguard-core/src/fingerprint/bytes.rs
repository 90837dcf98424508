//! The narrowed scan's search ([`super::parsers::Scan::Bytes`]): the first of a runner's
//! run bytes (1 to 4) in a buffer, in one pass.
//!
//! One byte is memchr's. A set of two to four is searched by one table lookup per byte:
//! the set's bytes are ASCII and their low nibbles differ ([`RunBytes::new`] checks it
//! when the program is compiled), so a 16-byte table indexed by a byte's low nibble holds
//! the only set byte that byte can be, and the byte is in the set exactly when it equals
//! its entry. A vector shuffle looks up 64 (AVX-512BW) or 32 (AVX2) bytes at once, and one
//! compare finds the hits: two instructions a vector whatever the set's size, where a
//! compare per byte of the set took four. Elsewhere, memchr's searches.

/// The bytes every line a runner still needs inside its passing run holds (see
/// [`super::collect::LineParser::run_bytes`]), and their table.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RunBytes {
    bytes: &'static [u8],
    /// Entry `n`: the set's byte whose low nibble is `n`, or (no such byte) `n ^ 1`, whose
    /// low nibble is not `n`, so that no byte equals it there.
    table: [u8; 16],
}

impl RunBytes {
    /// The set `bytes`: 1 to 4 ASCII bytes whose low nibbles differ. Anything else does
    /// not compile (as a `const`).
    pub(crate) const fn new(bytes: &'static [u8]) -> RunBytes {
        assert!(!bytes.is_empty() && bytes.len() <= 4, "1 to 4 run bytes");
        let mut table = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            table[n] = n as u8 ^ 1;
            n += 1;
        }
        let mut used = 0u16;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            assert!(b.is_ascii(), "run bytes are ASCII");
            let nibble = (b & 15) as usize;
            assert!(
                used & 1 << nibble == 0,
                "run bytes have distinct low nibbles"
            );
            used |= 1 << nibble;
            table[nibble] = b;
            i += 1;
        }
        RunBytes { bytes, table }
    }

    /// The first position in `hay` of any of the bytes.
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        if let [b] = *self.bytes {
            return memchr::memchr(b, hay);
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                // SAFETY: the CPU has AVX-512BW (and so AVX-512F), detected above.
                return unsafe { x86::find_512(&self.table, hay) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, detected above.
                return unsafe { x86::find_256(&self.table, hay) };
            }
        }
        self.portable(hay)
    }

    /// memchr's searches, and for four bytes two of them.
    fn portable(&self, hay: &[u8]) -> Option<usize> {
        match *self.bytes {
            [a] => memchr::memchr(a, hay),
            [a, b] => memchr::memchr2(a, b, hay),
            [a, b, c] => memchr::memchr3(a, b, c, hay),
            [a, b, c, d] => find_of_four([a, b, c, d], hay),
            _ => unreachable!("RunBytes::new allows 1 to 4 bytes"),
        }
    }
}

/// Whether `b` is one of the bytes of the set whose table is `table`: the test each vector
/// lane makes.
#[cfg(any(test, target_arch = "x86_64"))]
fn in_table(table: &[u8; 16], b: u8) -> bool {
    table[usize::from(b & 15)] == b
}

/// Bytes searched at a time for four bytes: small enough that the second search reads the
/// window from the CPU's cache, not from memory again.
const WINDOW: usize = 16 << 10;

/// memchr has no search for four bytes: per window, the first three, then the fourth
/// before the first hit of those.
fn find_of_four([a, b, c, d]: [u8; 4], hay: &[u8]) -> Option<usize> {
    let mut from = 0;
    while from < hay.len() {
        let window = &hay[from..hay.len().min(from + WINDOW)];
        let three = memchr::memchr3(a, b, c, window);
        let before = &window[..three.unwrap_or(window.len())];
        if let Some(i) = memchr::memchr(d, before).or(three) {
            return Some(from + i);
        }
        from += window.len();
    }
    None
}

/// The table lookups in vectors. A shuffle's lane whose index byte has its top bit set is
/// zero, and such a byte (not ASCII) equals no entry: the top bit needs no mask.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, __m512i, _mm_loadu_si128, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8,
        _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_shuffle_epi8, _mm512_broadcast_i32x4,
        _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_shuffle_epi8,
    };

    /// [`super::RunBytes::find`] 64 bytes at a time.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub(super) unsafe fn find_512(table: &[u8; 16], hay: &[u8]) -> Option<usize> {
        // SAFETY: `table` is 16 readable bytes.
        let table = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(table.as_ptr().cast()) });
        let hits = |v: __m512i| _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(table, v), v);
        let mut at = 0;
        // Two vectors a step: the lookups of one overlap the loads of the other.
        while at + 128 <= hay.len() {
            // SAFETY: `at + 128 <= hay.len()`: both 64-byte loads lie within `hay`.
            let (a, b) = unsafe {
                let p = hay.as_ptr().add(at);
                (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(64).cast()),
                )
            };
            let (ha, hb) = (hits(a), hits(b));
            if ha | hb != 0 {
                let i = if ha != 0 {
                    ha.trailing_zeros()
                } else {
                    64 + hb.trailing_zeros()
                };
                return Some(at + i as usize);
            }
            at += 128;
        }
        while at < hay.len() {
            let left = hay.len() - at;
            let keep = if left >= 64 {
                u64::MAX
            } else {
                (1 << left) - 1
            };
            // SAFETY: the masked load reads only the lanes in `keep`, which lie within
            // `hay`; lanes outside it are not read (and cannot fault).
            let v = unsafe { _mm512_maskz_loadu_epi8(keep, hay.as_ptr().add(at).cast()) };
            // The lanes not loaded are zeros, which equal entry 0 when the set holds 0.
            let h = hits(v) & keep;
            if h != 0 {
                return Some(at + h.trailing_zeros() as usize);
            }
            at += 64;
        }
        None
    }

    /// [`super::RunBytes::find`] 32 bytes at a time; the tail a byte at a time.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_256(table: &[u8; 16], hay: &[u8]) -> Option<usize> {
        // SAFETY: `table` is 16 readable bytes.
        let lookup = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(table.as_ptr().cast()) });
        let hits = |v: __m256i| {
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(lookup, v), v)) as u32
        };
        let mut at = 0;
        while at + 64 <= hay.len() {
            // SAFETY: `at + 64 <= hay.len()`: both 32-byte loads lie within `hay`.
            let (a, b) = unsafe {
                let p = hay.as_ptr().add(at);
                (
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(32).cast()),
                )
            };
            let found = u64::from(hits(a)) | u64::from(hits(b)) << 32;
            if found != 0 {
                return Some(at + found.trailing_zeros() as usize);
            }
            at += 64;
        }
        hay[at..]
            .iter()
            .position(|&b| super::in_table(table, b))
            .map(|i| at + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOUR: RunBytes = RunBytes::new(b"FR=#");

    #[test]
    fn finds_the_first_of_any_of_its_bytes() {
        assert_eq!(RunBytes::new(b"F").find(b"abcF"), Some(3));
        assert_eq!(RunBytes::new(b"F;").find(b"a;F"), Some(1));
        assert_eq!(RunBytes::new(b"F;#").find(b"xyz"), None);
        assert_eq!(RunBytes::new(b"F;#").find(b""), None);
        // Four bytes: the first of any, across windows too.
        let mut hay = vec![b'x'; 3 * WINDOW];
        assert_eq!(FOUR.find(&hay), None);
        hay[2 * WINDOW + 5] = b'#';
        assert_eq!(FOUR.find(&hay), Some(2 * WINDOW + 5));
        hay[2 * WINDOW + 9] = b'F';
        hay[WINDOW + 1] = b'=';
        assert_eq!(FOUR.find(&hay), Some(WINDOW + 1));
        hay[WINDOW] = b'#';
        assert_eq!(FOUR.find(&hay), Some(WINDOW));
        // A byte of 0 is not found in the lanes past the end of the input.
        assert_eq!(RunBytes::new(b"\0F").find(b"abc"), None);
        assert_eq!(RunBytes::new(b"\0F").find(b"ab\0"), Some(2));
        // Bytes that share a set byte's low nibble, or add the top bit to one, are not it.
        assert_eq!(FOUR.find(b"\xc6V&v\x86F"), Some(5));
    }

    /// Hay bytes: mostly filler, then the set's candidates, bytes that share their low
    /// nibbles (`V`, `&`, `b`, `-`), and bytes with the top bit set (UTF-8's).
    fn hay_byte() -> impl proptest::strategy::Strategy<Value = u8> {
        proptest::prop_oneof![
            30 => proptest::strategy::Just(b'x'),
            3 => proptest::sample::select(b"F;R=#`\0".to_vec()),
            2 => proptest::sample::select(b"V&b-\x86\xc6\xa3\xbb\x80\xff".to_vec()),
        ]
    }

    proptest::proptest! {
        /// Every search (the vectors where the CPU has them) agrees with the obvious one,
        /// at every length and offset: the loops of two vectors, of one, and the tail.
        #[test]
        fn agrees_with_a_byte_at_a_time(
            hay in proptest::collection::vec(hay_byte(), 0..400),
            from in 0..400usize,
            set in proptest::sample::subsequence(b"F;R=#`".to_vec(), 1..=4),
        ) {
            // Bytes whose low nibbles differ: a set with two alike is refused when it is
            // built (`F` and `V` would be).
            let set: &'static [u8] = set.leak();
            let bytes = RunBytes::new(set);
            let hay = &hay[from.min(hay.len())..];
            let expected = hay.iter().position(|b| set.contains(b));
            proptest::prop_assert_eq!(bytes.find(hay), expected);
            proptest::prop_assert_eq!(bytes.portable(hay), expected);
            let in_set = hay.iter().position(|&b| in_table(&bytes.table, b));
            proptest::prop_assert_eq!(in_set, expected);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") && set.len() > 1 {
                // SAFETY: the CPU has AVX2.
                let avx2 = unsafe { x86::find_256(&bytes.table, hay) };
                proptest::prop_assert_eq!(avx2, expected);
            }
        }
    }
}
