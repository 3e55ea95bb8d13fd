//! The lines the benchmark scripts print (`IMPL KIND k=v ...`), and the
//! median of a phase's samples.

use std::collections::BTreeMap;

/// One line of a benchmark script's output (`tests/interop/bench-brokers.sh`,
/// `tests/interop/bench.sh`): `IMPL KIND k=v ...`.
pub(crate) struct BenchLine {
    pub(crate) implementation: String,
    pub(crate) kind: String,
    pub(crate) fields: BTreeMap<String, String>,
    pub(crate) raw: String,
}

impl BenchLine {
    pub(crate) fn parse(line: &str) -> Option<BenchLine> {
        let mut words = line.split_whitespace();
        let implementation = words.next()?.to_string();
        let kind = words.next()?.to_string();
        let fields = words
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Some(BenchLine {
            implementation,
            kind,
            fields,
            raw: line.to_string(),
        })
    }

    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    /// The value of `key`, or "?" when the line has none (for documents).
    pub(crate) fn text(&self, key: &str) -> &str {
        self.get(key).unwrap_or("?")
    }

    pub(crate) fn num(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|v| v.parse().ok())
    }
}

/// The median of `values` (the mean of the middle two for an even count).
pub(crate) fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}
