//! SVG charts drawn with `plotters`: the ratings with their confidence intervals, and a training
//! run's evaluation curve. Text is left to the SVG viewer's fonts, so no font files are needed.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// Series colours, in order.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

const FONT: &str = "sans-serif";

/// One row of the ratings chart.
pub struct RatingBar {
    /// Player name.
    pub name: String,
    /// Rating.
    pub elo: f64,
    /// 95% interval.
    pub lower: f64,
    /// 95% interval.
    pub upper: f64,
}

/// A forest plot as SVG text: one row per player (the first on top), its rating as a dot and its
/// 95% interval as a whisker on a shared Elo axis.
pub fn ratings_svg(title: &str, rows: &[RatingBar]) -> anyhow::Result<String> {
    let label_w = (rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0) as u32
        * 9
        + 20)
        .clamp(80, 520);
    let (w, row_h) = (label_w + 700, 44u32);
    let h = 90 + row_h * rows.len() as u32 + 60;
    let lo = rows.iter().map(|r| r.lower).fold(0.0f64, f64::min);
    let hi = rows.iter().map(|r| r.upper).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.05).max(10.0);
    let (lo, hi) = (lo - pad, hi + pad);
    // Row `i` sits at the centre of segment `n - 1 - i`, so the first row is drawn on top.
    let n = rows.len().max(1) as i32;
    let row_at = |i: usize| SegmentValue::CenterOf(n - 1 - i as i32);
    let name_of = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(k) | SegmentValue::Exact(k) => usize::try_from(n - 1 - k)
            .ok()
            .and_then(|i| rows.get(i))
            .map(|r| r.name.clone())
            .unwrap_or_default(),
        SegmentValue::Last => String::new(),
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(label_w)
            .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(rows.len().max(1))
            .y_label_formatter(&name_of)
            .y_label_style((FONT, 16))
            .x_labels(8)
            .x_label_formatter(&|v| format!("{:.0}", v + 0.0))
            .x_desc("Elo (95% CI)")
            .draw()?;
        for (i, r) in rows.iter().enumerate() {
            let col = PALETTE[i % PALETTE.len()];
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(r.lower, row_at(i)), (r.upper, row_at(i))],
                col.stroke_width(3),
            )))?;
            let cap = |x: f64| {
                EmptyElement::at((x, row_at(i)))
                    + PathElement::new(vec![(0, -8), (0, 8)], col.stroke_width(2))
            };
            chart.draw_series([cap(r.lower), cap(r.upper)])?;
            chart.draw_series(std::iter::once(
                EmptyElement::at((r.elo, row_at(i)))
                    + Rectangle::new([(-5, -5), (5, 5)], col.filled())
                    + Text::new(format!("{:.0}", r.elo), (8, -22), (FONT, 13)),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// A named series of `(x, y)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, x ascending.
    pub points: Vec<(f64, f64)>,
}

/// A line chart as SVG text with y from 0 to 1 (shares and rates), a legend below.
pub fn curve_svg(title: &str, x_label: &str, series: &[Series]) -> anyhow::Result<String> {
    let legend_h = 20 * series.len() as u32 + 30;
    let (w, h) = (900u32, 500 + legend_h);
    let xs = || series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let xmax = xs().fold(1.0f64, f64::max);
    let xmin = xs().fold(xmax, f64::min).min(0.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE)?;
        let (plot, legend) = root.split_vertically(h - legend_h);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 22))
            .margin(20)
            .x_label_area_size(45)
            .y_label_area_size(50)
            .build_cartesian_2d(xmin..xmax, 0.0f64..1.0)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_labels(6)
            .y_label_formatter(&|v| format!("{v:.1}"))
            .x_labels(9)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .x_desc(x_label)
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let col = PALETTE[i % PALETTE.len()];
            let points = s.points.iter().map(|&(x, y)| (x, y.clamp(0.0, 1.0)));
            chart.draw_series(LineSeries::new(points.clone(), col.stroke_width(2)))?;
            chart.draw_series(PointSeries::of_element(
                points,
                3,
                col.filled(),
                &|p, size, style| EmptyElement::at(p) + Circle::new((0, 0), size, style),
            ))?;
            let ly = 10 + 20 * i as i32;
            legend.draw(&Rectangle::new([(70, ly), (90, ly + 6)], col.filled()))?;
            legend.draw(&Text::new(s.name.as_str(), (100, ly - 4), (FONT, 14)))?;
        }
        root.present()?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratings_chart_is_svg_naming_every_player() {
        let rows =
            [("greedy", 120.0), ("random", 0.0), ("a<b&c", -40.0)].map(|(name, elo)| RatingBar {
                name: name.to_string(),
                elo,
                lower: elo - 50.0,
                upper: elo + 50.0,
            });
        let svg = ratings_svg("Elo ratings, kalah(6,4) (12 games)", &rows).unwrap();
        assert!(svg.trim_start().starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        for needle in [
            "greedy",
            "random",
            "a&lt;b&amp;c",
            "Elo (95% CI)",
            "Elo ratings",
        ] {
            assert!(svg.contains(needle), "{needle} in {svg}");
        }
    }

    #[test]
    fn the_curve_chart_is_svg_with_every_series_in_its_legend() {
        let series = [
            Series {
                name: "score vs random".into(),
                points: vec![(1.0, 0.5), (2.0, 0.9)],
            },
            Series {
                name: "solver: optimal-move rate".into(),
                points: vec![(2.0, 0.75)],
            },
            Series {
                name: "empty".into(),
                points: vec![],
            },
        ];
        let svg = curve_svg("Training evaluation: x", "iteration", &series).unwrap();
        assert!(svg.trim_start().starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        for s in &series {
            assert!(svg.contains(&s.name), "{} in {svg}", s.name);
        }
        assert!(svg.contains("iteration"));
        // No series at all still draws (an empty chart).
        assert!(curve_svg("t", "iteration", &[]).unwrap().contains("<svg"));
    }
}
