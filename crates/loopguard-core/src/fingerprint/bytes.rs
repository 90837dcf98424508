//! The narrowed scan's search ([`super::parsers::Scan::Bytes`]): the first of a runner's
//! run bytes (1 to 4) in a buffer, in one pass.
//!
//! memchr finds one, two or three bytes, 32 at a time, and has no search for four (two
//! passes did it: three bytes, then the fourth before their first hit). Where the CPU has
//! AVX-512 (BW), two to four bytes are found in one pass, 64 at a time, each vector
//! compared with every byte into a mask register. Over 1 GiB of passing test lines held
//! in the CPU's cache, on this project's 2-core Xeon: three bytes 33 → 24 ms, four bytes
//! 45–50 → 33 ms; one byte stays memchr's (13–20 ms), which no vector of 64 beats.

/// The first position in `hay` of any of `bytes` (1 to 4 of them).
pub(crate) fn find_byte(bytes: &[u8], hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() > 1 && std::arch::is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW, which `wide` needs (detected above).
        return unsafe { wide::find(bytes, hay) };
    }
    portable(bytes, hay)
}

/// memchr's searches, and for four bytes two of them.
fn portable(bytes: &[u8], hay: &[u8]) -> Option<usize> {
    match *bytes {
        [a] => memchr::memchr(a, hay),
        [a, b] => memchr::memchr2(a, b, hay),
        [a, b, c] => memchr::memchr3(a, b, c, hay),
        [a, b, c, d] => find_of_four([a, b, c, d], hay),
        _ => unreachable!("run_bytes names 1 to 4 bytes"),
    }
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

/// The one-pass search in 64-byte vectors (x86-64 with AVX-512BW).
#[cfg(target_arch = "x86_64")]
mod wide {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_maskz_loadu_epi8,
        _mm512_set1_epi8,
    };

    /// [`super::find_byte`] for 2 to 4 bytes.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub(super) unsafe fn find(bytes: &[u8], hay: &[u8]) -> Option<usize> {
        match *bytes {
            [a, b] => find_n([a, b], hay),
            [a, b, c] => find_n([a, b, c], hay),
            [a, b, c, d] => find_n([a, b, c, d], hay),
            _ => unreachable!("2 to 4 bytes"),
        }
    }

    #[target_feature(enable = "avx512bw")]
    fn find_n<const N: usize>(set: [u8; N], hay: &[u8]) -> Option<usize> {
        let mut needles = [_mm512_set1_epi8(0); N];
        for (needle, &b) in needles.iter_mut().zip(&set) {
            *needle = _mm512_set1_epi8(b as i8);
        }
        let mut at = 0;
        // Two vectors a step: the compares of one overlap the loads of the other.
        while at + 128 <= hay.len() {
            // SAFETY: `at + 128 <= hay.len()`: both 64-byte loads lie within `hay`.
            let (a, b) = unsafe {
                let p = hay.as_ptr().add(at);
                (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(64).cast()),
                )
            };
            let (ha, hb) = (hits(a, &needles), hits(b, &needles));
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
            // The lanes not loaded are zeros: a run byte of 0 would match them.
            let h = hits(v, &needles) & keep;
            if h != 0 {
                return Some(at + h.trailing_zeros() as usize);
            }
            at += 64;
        }
        None
    }

    /// One bit per byte of `v` that equals one of `needles`.
    #[target_feature(enable = "avx512bw")]
    fn hits<const N: usize>(v: __m512i, needles: &[__m512i; N]) -> u64 {
        let mut mask = 0;
        for &needle in needles {
            mask |= _mm512_cmpeq_epi8_mask(v, needle);
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_of_any_of_its_bytes() {
        assert_eq!(find_byte(b"F", b"abcF"), Some(3));
        assert_eq!(find_byte(b"F;", b"a;F"), Some(1));
        assert_eq!(find_byte(b"F;#", b"xyz"), None);
        assert_eq!(find_byte(b"F;#", b""), None);
        // Four bytes: the first of any, across windows too.
        let mut hay = vec![b'x'; 3 * WINDOW];
        assert_eq!(find_byte(b"FR=#", &hay), None);
        hay[2 * WINDOW + 5] = b'#';
        assert_eq!(find_byte(b"FR=#", &hay), Some(2 * WINDOW + 5));
        hay[2 * WINDOW + 9] = b'F';
        hay[WINDOW + 1] = b'=';
        assert_eq!(find_byte(b"FR=#", &hay), Some(WINDOW + 1));
        hay[WINDOW] = b'#';
        assert_eq!(find_byte(b"FR=#", &hay), Some(WINDOW));
        // A byte of 0 is not found in the lanes past the end of the input.
        assert_eq!(find_byte(b"\0F", b"abc"), None);
        assert_eq!(find_byte(b"\0F", b"ab\0"), Some(2));
    }

    proptest::proptest! {
        /// Every search (the vectors where the CPU has them) agrees with the obvious one,
        /// at every length and offset: the loops of two vectors, of one, and the tail.
        #[test]
        fn agrees_with_a_byte_at_a_time(
            hay in proptest::collection::vec(
                proptest::prop_oneof![30 => proptest::strategy::Just(b'x'), 1 => proptest::sample::select(b"F;R=#\0".to_vec())],
                0..400,
            ),
            from in 0..400usize,
            set in proptest::sample::subsequence(b"F;R=#\0".to_vec(), 1..=4),
        ) {
            let hay = &hay[from.min(hay.len())..];
            let expected = hay.iter().position(|b| set.contains(b));
            proptest::prop_assert_eq!(find_byte(&set, hay), expected);
            proptest::prop_assert_eq!(portable(&set, hay), expected);
        }
    }
}
