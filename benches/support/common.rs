//! What the benchmarks' log generators share (`genlog.rs`, `benchgen.rs`):
//! a small deterministic random source and the clock of a long call.
#![allow(dead_code)]

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// The time `ms` after 2026-10-10T00:00Z, in RFC 3339. The clock runs on
/// through months and years, so a long call stays in time order.
pub fn ts(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = ((s / 3600) % 24, (s / 60) % 60, s % 60);
    let (y, mo, d) = civil(20_736 + (s / 86_400) as i64);
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{sec:02}.{:03}Z",
        ms % 1000
    )
}

/// Year, month and day of a day counted from 1970-01-01 (2026-10-10 is
/// day 20,736), by the proleptic Gregorian calendar.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(mo <= 2), mo, d)
}

#[cfg(test)]
#[test]
fn the_clock_runs_through_months() {
    assert_eq!(ts(0), "2026-10-10T00:00:00.000Z");
    assert_eq!(ts(21 * 86_400_000 + 1_500), "2026-10-31T00:00:01.500Z");
    assert_eq!(ts(22 * 86_400_000), "2026-11-01T00:00:00.000Z");
    assert_eq!(ts(82 * 86_400_000), "2026-12-31T00:00:00.000Z");
    assert_eq!(ts(83 * 86_400_000), "2027-01-01T00:00:00.000Z");
}
