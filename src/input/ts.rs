//! RFC 3339 timestamps, read without a date library: the log format only
//! needs "when", to the millisecond, as a number.

use crate::model::Ms;

/// Parse `2026-10-10T09:14:03.512Z` (or with `+02:00`, a space for `T`,
/// any number of fraction digits) into milliseconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Option<Ms> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    // 60 allows a leap second.
    if hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let h = num(i + 1..i + 3)?;
            let m = num(i + 4..i + 6)?;
            if h > 23 || m > 59 {
                return None;
            }
            let o = h * 60 + m;
            if *sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset_min * 60;
    Some(secs * 1000 + millis)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-10-10T09:14:03.512Z`: a time as [`parse_rfc3339`] reads it back,
/// in UTC to the millisecond.
pub fn format_rfc3339(ms: Ms) -> String {
    let days = ms.div_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{}Z", clock(ms))
}

/// Year, month and day of a count of days since 1970-01-01 (Howard
/// Hinnant's days-to-civil algorithm; the inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `2026-10-10T09:14:03.512Z`: a dated time in RFC 3339, UTC. A time of
/// day without a date (a transcript's `[09:14:03]`, counted from the
/// epoch's first day) has none, nor has a year past 9999.
pub fn rfc3339(ms: Ms) -> Option<String> {
    let days = ms.div_euclid(86_400_000);
    let (y, _, _) = civil_from_days(days);
    (days != 0 && (0..=9999).contains(&y)).then(|| format_rfc3339(ms))
}

/// `09:14:03.512` style clock time of a timestamp (UTC), for reports.
pub fn clock(ms: Ms) -> String {
    let s = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        ms.rem_euclid(1000)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_what_it_parses() {
        for s in [
            "1970-01-01T00:00:00.000Z",
            "2026-10-10T09:00:04.100Z",
            "2000-02-29T23:59:59.999Z",
            "2100-03-01T00:00:00.001Z",
            "1969-12-31T23:59:59.500Z",
        ] {
            let ms = parse_rfc3339(s).unwrap();
            assert_eq!(format_rfc3339(ms), s);
        }
    }

    #[test]
    fn parses_the_formats_recorders_write() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339("2026-10-10T09:00:04.100Z"),
            Some(1_791_622_804_100)
        );
        assert_eq!(
            parse_rfc3339("2026-10-10T11:00:04.1+02:00"),
            Some(1_791_622_804_100)
        );
        assert_eq!(
            parse_rfc3339("2026-10-10 09:00:04.100123Z"),
            Some(1_791_622_804_100)
        );
        assert_eq!(
            parse_rfc3339("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        for s in [
            "",
            "yesterday",
            "2026-10-10",
            "2026-13-10T09:00:00Z",
            "2026-02-30T09:00:00Z",
            "2026-10-10T25:00:00Z",
            "2026-10-10T09:00:00",
            "2026-10-10T09:00:00.Z",
            "2026-10-10T09:00:00Zjunk",
            "２０２６-10-10T09:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }

    #[test]
    fn rfc3339_round_trips() {
        for s in ["2026-10-10T09:00:04.100Z", "2000-02-29T23:59:59.999Z"] {
            assert_eq!(rfc3339(parse_rfc3339(s).unwrap()).as_deref(), Some(s));
        }
        assert_eq!(rfc3339(9 * 3_600_000), None);
    }

    #[test]
    fn clock_formats_utc() {
        assert_eq!(clock(1_791_622_804_100), "09:00:04.100");
    }
}
