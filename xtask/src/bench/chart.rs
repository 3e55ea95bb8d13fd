//! The pictures of `docs/benchmarks/`: which figures each shows, and the
//! plain SVG charts they are drawn as.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::report::Report;
use super::COLORS;
use crate::Result;

impl Report<'_> {
    pub(super) fn picture(
        &self,
        doc: &mut String,
        dir: &Path,
        link: &str,
        name: &str,
        svg: &str,
        alt: &str,
    ) -> Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        let _ = writeln!(doc, "![{alt}]({link}/{name})\n");
        Ok(())
    }

    /// Commits around each implementation's first SIGKILL and SIGTERM.
    pub(super) fn failover_chart(&self, impls: &[(&str, &str)]) -> String {
        let mut series = Vec::new();
        let mut k = 0;
        for (ci, (i, label)) in impls.iter().enumerate() {
            for sig in ["KILL", "TERM"] {
                let Some(fact) = self
                    .facts
                    .of(i, "failover")
                    .find(|x| x.text("signal") == sig)
                else {
                    continue;
                };
                let Some(kill) = fact.num("kill_us") else {
                    continue;
                };
                let text = std::fs::read_to_string(self.samples.join(fact.text("samples")))
                    .unwrap_or_default();
                let row = k as f64;
                let points: Vec<(f64, f64)> = text
                    .lines()
                    .filter_map(|l| l.split_whitespace().next()?.parse::<f64>().ok())
                    .map(|end| ((end - kill) / 1000.0, row))
                    .filter(|(x, _)| (-1000.0..=5000.0).contains(x))
                    .map(|(x, y)| ((x / 5.0).round() * 5.0, y))
                    .collect();
                let mut points = points;
                points.dedup_by(|a, b| a.0 == b.0);
                series.push(Series {
                    name: format!("{label}, SIG{sig} (row {k})"),
                    color: COLORS[ci % COLORS.len()],
                    points,
                    dots: true,
                });
                k += 1;
            }
        }
        chart(&Chart {
            title: "Failover timeline: commits around the signal to the leader (t = 0)",
            x_label: "ms after the signal",
            y_label: "row",
            x_log: false,
            y_log: false,
            series,
            marks: vec![(0.0, "signal")],
        })
    }

    /// Each controller's RSS over the run.
    pub(super) fn rss_chart(&self, impls: &[(&str, &str)]) -> String {
        let text = std::fs::read_to_string(self.rss).unwrap_or_default();
        let mut by: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
        let mut t0 = f64::INFINITY;
        let rows: Vec<(f64, String, String, f64)> = text
            .lines()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                Some((
                    w.first()?.parse().ok()?,
                    w.get(1)?.to_string(),
                    w.get(2)?.to_string(),
                    w.get(3)?.parse().ok()?,
                ))
            })
            .collect();
        for r in &rows {
            t0 = t0.min(r.0);
        }
        for (t, i, node, kb) in rows {
            by.entry((i, node))
                .or_default()
                .push(((t - t0) / 1e6, kb / 1024.0));
        }
        let mut series = Vec::new();
        for ((i, node), points) in by {
            let k = impls.iter().position(|(x, _)| *x == i).unwrap_or(3);
            let label = impls.get(k).map_or(i.as_str(), |(_, l)| l);
            series.push(Series {
                name: format!("{label} node {node}"),
                color: COLORS[k % COLORS.len()],
                points,
                dots: false,
            });
        }
        chart(&Chart {
            title: "Controller RSS over the run (each line one controller)",
            x_label: "seconds since the first sample",
            y_label: "RSS (MiB, log scale)",
            x_log: false,
            y_log: true,
            series,
            marks: Vec::new(),
        })
    }
}

/// A cumulative distribution of sorted samples, scaled by `1 / unit`.
pub(super) fn cdf(name: &str, color: &'static str, sorted: &[f64], unit: f64) -> Series {
    let n = sorted.len() as f64;
    let step = (sorted.len() / 400).max(1);
    let mut points: Vec<(f64, f64)> = sorted
        .iter()
        .enumerate()
        .step_by(step)
        .map(|(k, v)| (v / unit, (k + 1) as f64 / n))
        .collect();
    if let Some(last) = sorted.last() {
        points.push((last / unit, 1.0));
    }
    Series {
        name: name.to_string(),
        color,
        points,
        dots: false,
    }
}

/// One line or set of dots in a [`Chart`].
pub(super) struct Series {
    name: String,
    color: &'static str,
    points: Vec<(f64, f64)>,
    dots: bool,
}

/// A plain SVG chart: no fonts, no dependencies.
pub(super) struct Chart<'a> {
    pub(super) title: &'a str,
    pub(super) x_label: &'a str,
    pub(super) y_label: &'a str,
    pub(super) x_log: bool,
    pub(super) y_log: bool,
    pub(super) series: Vec<Series>,
    pub(super) marks: Vec<(f64, &'a str)>,
}

fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if log {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        return (a..=b).map(|e| 10f64.powi(e)).collect();
    }
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(mag * 10.0);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 20 {
        out.push(t);
        t += step;
    }
    out
}

pub(super) fn chart(c: &Chart) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 420.0, 70.0, 250.0, 40.0, 50.0);
    let all: Vec<(f64, f64)> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| (!c.x_log || *x > 0.0) && (!c.y_log || *y > 0.0))
        .collect();
    let range = |v: Vec<f64>, log: bool| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() || !hi.is_finite() {
            return (1.0, 10.0);
        }
        if log {
            (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
            )
        } else if hi - lo < 1e-9 {
            (lo - 1.0, hi + 1.0)
        } else {
            (lo, hi)
        }
    };
    let mut xs: Vec<f64> = all.iter().map(|p| p.0).collect();
    xs.extend(c.marks.iter().map(|m| m.0));
    let (x0, x1) = range(xs, c.x_log);
    let (y0, y1) = range(all.iter().map(|p| p.1).collect(), c.y_log);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let sx = |x: f64| {
        let t = if c.x_log {
            (x.log10() - x0.log10()) / (x1.log10() - x0.log10())
        } else {
            (x - x0) / (x1 - x0)
        };
        left + t * pw
    };
    let sy = |y: f64| {
        let t = if c.y_log {
            (y.log10() - y0.log10()) / (y1.log10() - y0.log10())
        } else {
            (y - y0) / (y1 - y0)
        };
        top + ph - t * ph
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\
         <text x=\"{}\" y=\"22\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        left + pw / 2.0,
        c.title
    );
    for t in ticks(x0, x1, c.x_log) {
        if t < x0 - 1e-9 || t > x1 + 1e-9 {
            continue;
        }
        let x = sx(t);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            top + ph,
            top + ph + 15.0,
            tick_label(t)
        );
    }
    for t in ticks(y0, y1, c.y_log) {
        if t < y0 - 1e-9 || t > y1 + 1e-9 {
            continue;
        }
        let y = sy(t);
        let _ = write!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left + pw,
            left - 6.0,
            y + 4.0,
            tick_label(t)
        );
    }
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
         <text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">{}</text>",
        left + pw / 2.0,
        h - 12.0,
        c.x_label,
        top + ph / 2.0,
        top + ph / 2.0,
        c.y_label
    );
    for (x, label) in &c.marks {
        let px = sx(*x);
        let _ = write!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{label}</text>",
            top + ph,
            px + 3.0,
            top + 12.0
        );
    }
    for (k, series) in c.series.iter().enumerate() {
        let pts: Vec<(f64, f64)> = series
            .points
            .iter()
            .copied()
            .filter(|(x, y)| (!c.x_log || *x > 0.0) && (!c.y_log || *y > 0.0))
            .map(|(x, y)| (sx(x), sy(y)))
            .collect();
        if series.dots {
            for (x, y) in &pts {
                let _ = write!(
                    s,
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"1.6\" fill=\"{}\"/>",
                    series.color
                );
            }
        } else if !pts.is_empty() {
            let path: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = write!(
                s,
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>",
                series.color,
                path.join(" ")
            );
        }
        let ly = top + 10.0 + 16.0 * k as f64;
        let lx = left + pw + 12.0;
        let _ = write!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\">{}</text>",
            ly - 9.0,
            series.color,
            lx + 14.0,
            series.name
        );
    }
    s.push_str("</svg>\n");
    s
}

fn tick_label(t: f64) -> String {
    if t.abs() >= 1000.0 || t.fract() == 0.0 {
        format!("{t:.0}")
    } else if t.abs() >= 1.0 {
        format!("{t:.1}")
    } else {
        format!("{t}")
    }
}
