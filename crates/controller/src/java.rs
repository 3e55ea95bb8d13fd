//! Small emulations of Java library behaviour that leaks into Kafka's bytes
//! and output: `java.util.Date.toString()`, random UUIDs as Kafka makes them and
//! the text form of `org.apache.kafka.common.Uuid`. The `java.util.HashMap`
//! iteration order lives in [`kraft_protocol::java_hash_map`].

use uuid::Uuid;

pub(crate) use kraft_protocol::java_hash_map::JavaHashMap;

pub use kraft_protocol::kafka_uuid::{parse as uuid_from_text, to_string as uuid_to_text};

/// A random UUID as `Uuid.randomUuid()` makes them: never the reserved
/// all-zero / `(0, 1)` values and never one whose text contains `-`.
pub fn random_uuid() -> Uuid {
    loop {
        let u = Uuid::new_v4();
        let (hi, lo) = u.as_u64_pair();
        if (hi == 0 && lo <= 1) || uuid_to_text(&u).contains('-') {
            continue;
        }
        return u;
    }
}

/// A random directory id as Kafka's storage tool makes them: not one of the
/// 100 reserved ids `(0, 0..100)` and not starting with `-`.
pub fn random_directory_id() -> Uuid {
    loop {
        let u = Uuid::new_v4();
        let (hi, lo) = u.as_u64_pair();
        if (hi == 0 && lo < 100) || uuid_to_text(&u).starts_with('-') {
            continue;
        }
        return u;
    }
}

/// Whether `uuid` is one of Kafka's reserved directory ids (`DirectoryId.reserved`).
pub fn is_reserved_directory_id(uuid: &Uuid) -> bool {
    let (hi, lo) = uuid.as_u64_pair();
    hi == 0 && lo < 100
}

/// `java.util.Date.toString()` for a UTC instant: `EEE MMM dd HH:mm:ss zzz yyyy`.
pub(crate) fn java_date_string_utc(unix_ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = unix_ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    format!(
        "{weekday} {} {d:02} {:02}:{:02}:{:02} UTC {y}",
        MONTHS[(m - 1) as usize],
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Days since 1970-01-01 to (year, month 1-12, day 1-31), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn random_ids_avoid_reserved_values() {
        for _ in 0..100 {
            let r = random_uuid();
            assert!(!uuid_to_text(&r).contains('-'));
            assert!(!is_reserved_directory_id(&random_directory_id()));
        }
    }

    #[test]
    fn date_string_matches_java() {
        // Java: new Date(1796010438000L).toString() in UTC.
        assert_eq!(
            java_date_string_utc(1_796_010_438_000),
            "Mon Nov 30 03:47:18 UTC 2026"
        );
        assert_eq!(java_date_string_utc(0), "Thu Jan 01 00:00:00 UTC 1970");
    }
}
