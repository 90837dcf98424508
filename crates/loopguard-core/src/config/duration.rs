//! Human durations in the config: "90s", "30m", "2h", "1h30m", "1d".

use std::fmt::Write as _;

use jiff::SignedDuration;

/// Parses `<number><unit>` groups (units s, m, h, d); a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<SignedDuration, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration".to_owned());
    }
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(SignedDuration::from_secs(secs as i64));
    }
    let mut total: i64 = 0;
    let mut digits = String::new();
    for ch in s.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        let unit = match ch {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            ' ' => continue,
            other => return Err(format!("invalid duration `{text}`: unknown unit `{other}`")),
        };
        let n: i64 = digits
            .parse()
            .map_err(|_| format!("invalid duration `{text}`: a number must come before `{ch}`"))?;
        total = total
            .checked_add(n.checked_mul(unit).ok_or("duration too large")?)
            .ok_or("duration too large")?;
        digits.clear();
    }
    if !digits.is_empty() {
        return Err(format!(
            "invalid duration `{text}`: `{digits}` has no unit (s, m, h, d)"
        ));
    }
    Ok(SignedDuration::from_secs(total))
}

/// The duration as the config writes it: `1h30m`, `45s`, `1d`.
pub fn format_duration(d: SignedDuration) -> String {
    let mut left = d.as_secs().max(0);
    if left == 0 {
        return "0s".to_owned();
    }
    let mut out = String::new();
    for (unit, secs) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] {
        if left >= secs {
            let _ = write!(out, "{}{unit}", left / secs);
            left %= secs;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        assert_eq!(format_duration(SignedDuration::from_secs(5400)), "1h30m");
        assert_eq!(format_duration(SignedDuration::from_secs(45)), "45s");
        assert_eq!(format_duration(SignedDuration::from_secs(86_400)), "1d");
        for (text, secs) in [
            ("90s", 90),
            ("30m", 1800),
            ("2h", 7200),
            ("1h30m", 5400),
            ("1d", 86_400),
            ("45", 45),
        ] {
            assert_eq!(parse_duration(text).unwrap().as_secs(), secs, "{text}");
        }
        for bad in ["", "m", "10x", "5m3", "-3m"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
