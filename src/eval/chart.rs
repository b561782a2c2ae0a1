//! PNG charts drawn by hand on an RGB canvas with an 8x8 bitmap font: the ratings with their
//! confidence intervals, and a training run's evaluation curve. No font or drawing library needed.

use font8x8::legacy::BASIC_LEGACY;

type Rgb = [u8; 3];

const BLACK: Rgb = [30, 30, 30];
const GREY: Rgb = [200, 200, 200];
/// Series colours, in order.
pub const PALETTE: [Rgb; 6] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [255, 127, 14],
    [148, 103, 189],
    [140, 86, 75],
];

/// An RGB image being drawn.
pub struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Canvas {
    /// A white canvas.
    pub fn new(w: usize, h: usize) -> Canvas {
        Canvas {
            w,
            h,
            px: vec![255; w * h * 3],
        }
    }

    fn set(&mut self, x: i64, y: i64, c: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let i = (y as usize * self.w + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    /// A filled rectangle.
    pub fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb) {
        for y in y0.min(y1)..=y0.max(y1) {
            for x in x0.min(x1)..=x0.max(x1) {
                self.set(x, y, c);
            }
        }
    }

    /// A line `width` pixels thick (Bresenham, thickened by a square brush).
    pub fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), width: i64, c: Rgb) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let r = (width - 1) / 2;
        loop {
            self.rect(x - r, y - r, x + r + (width - 1) % 2, y + r, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Text with its top-left corner at `(x, y)`, each font pixel `scale` pixels square.
    pub fn text(&mut self, x: i64, y: i64, s: &str, scale: i64, c: Rgb) {
        for (k, ch) in s.chars().enumerate() {
            let glyph = BASIC_LEGACY[(ch as usize).min(127)];
            let gx = x + k as i64 * 8 * scale;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits >> col & 1 == 1 {
                        let px = gx + col * scale;
                        let py = y + row as i64 * scale;
                        self.rect(px, py, px + scale - 1, py + scale - 1, c);
                    }
                }
            }
        }
    }

    /// Width in pixels of `s` at `scale`.
    pub fn text_width(s: &str, scale: i64) -> i64 {
        s.chars().count() as i64 * 8 * scale
    }

    /// The image as PNG bytes.
    pub fn png(&self) -> anyhow::Result<Vec<u8>> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.w as u32, self.h as u32);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut writer = enc.write_header()?;
            writer.write_image_data(&self.px)?;
        }
        Ok(out)
    }
}

/// "Nice" tick step for a range: 1, 2 or 5 times a power of ten, about `n` ticks.
fn tick_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * p)
}

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

/// A forest plot: one row per player, its rating as a dot and its 95% interval as a whisker on a
/// shared Elo axis.
pub fn ratings_png(title: &str, rows: &[RatingBar]) -> anyhow::Result<Vec<u8>> {
    let label_w = rows
        .iter()
        .map(|r| Canvas::text_width(&r.name, 2))
        .max()
        .unwrap_or(0)
        .clamp(80, 520);
    let (w, row_h) = (label_w + 700, 44i64);
    let h = 90 + row_h * rows.len() as i64 + 60;
    let mut c = Canvas::new(w as usize, h as usize);
    let title_scale = if Canvas::text_width(title, 2) > w - 40 {
        1
    } else {
        2
    };
    c.text(20, 16, title, title_scale, BLACK);
    let lo = rows.iter().map(|r| r.lower).fold(0.0f64, f64::min);
    let hi = rows.iter().map(|r| r.upper).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.05).max(10.0);
    let (lo, hi) = (lo - pad, hi + pad);
    let (x0, x1) = (label_w + 40, w - 40);
    let (y0, y1) = (70, 70 + row_h * rows.len() as i64);
    let xs = |v: f64| x0 + ((v - lo) / (hi - lo) * (x1 - x0) as f64).round() as i64;
    let step = tick_step(hi - lo, 6.0);
    let mut t = (lo / step).ceil() * step;
    while t <= hi {
        let x = xs(t);
        c.line((x, y0), (x, y1), 1, GREY);
        let s = format!("{:.0}", t + 0.0);
        c.text(x - Canvas::text_width(&s, 1) / 2, y1 + 8, &s, 1, BLACK);
        t += step;
    }
    c.line((x0, y1), (x1, y1), 1, BLACK);
    c.text(x0 + (x1 - x0) / 2 - 60, y1 + 26, "Elo (95% CI)", 1, BLACK);
    for (i, r) in rows.iter().enumerate() {
        let y = y0 + row_h * i as i64 + row_h / 2;
        let col = PALETTE[i % PALETTE.len()];
        c.text(20, y - 8, &r.name, 2, BLACK);
        c.line((xs(r.lower), y), (xs(r.upper), y), 3, col);
        c.line((xs(r.lower), y - 8), (xs(r.lower), y + 8), 2, col);
        c.line((xs(r.upper), y - 8), (xs(r.upper), y + 8), 2, col);
        c.rect(xs(r.elo) - 5, y - 5, xs(r.elo) + 5, y + 5, col);
        let s = format!("{:.0}", r.elo);
        c.text(xs(r.elo) + 10, y - 20, &s, 1, BLACK);
    }
    c.png()
}

/// A named series of `(x, y)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, x ascending.
    pub points: Vec<(f64, f64)>,
}

/// A line chart with y from 0 to 1 (shares and rates), a legend below.
pub fn curve_png(title: &str, x_label: &str, series: &[Series]) -> anyhow::Result<Vec<u8>> {
    let (w, h) = (900i64, 520 + 20 * series.len() as i64);
    let mut c = Canvas::new(w as usize, h as usize);
    let title_scale = if Canvas::text_width(title, 2) > w - 40 {
        1
    } else {
        2
    };
    c.text(20, 16, title, title_scale, BLACK);
    let (x0, x1, y0, y1) = (70, w - 30, 60, 440);
    let xmax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let xmin = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(xmax, f64::min)
        .min(0.0);
    let xs = |v: f64| x0 + ((v - xmin) / (xmax - xmin).max(1e-9) * (x1 - x0) as f64) as i64;
    let ys = |v: f64| y1 - (v.clamp(0.0, 1.0) * (y1 - y0) as f64) as i64;
    for k in 0..=5 {
        let v = k as f64 / 5.0;
        c.line((x0, ys(v)), (x1, ys(v)), 1, GREY);
        c.text(x0 - 40, ys(v) - 4, &format!("{v:.1}"), 1, BLACK);
    }
    let step = tick_step(xmax - xmin, 8.0);
    let mut t = (xmin / step).ceil() * step;
    while t <= xmax + 1e-9 {
        let s = format!("{t:.0}");
        c.line((xs(t), y1), (xs(t), y1 + 4), 1, BLACK);
        c.text(xs(t) - Canvas::text_width(&s, 1) / 2, y1 + 8, &s, 1, BLACK);
        t += step;
    }
    c.line((x0, y0), (x0, y1), 1, BLACK);
    c.line((x0, y1), (x1, y1), 1, BLACK);
    c.text(x0 + (x1 - x0) / 2 - 40, y1 + 24, x_label, 1, BLACK);
    for (i, s) in series.iter().enumerate() {
        let col = PALETTE[i % PALETTE.len()];
        for p in s.points.windows(2) {
            c.line((xs(p[0].0), ys(p[0].1)), (xs(p[1].0), ys(p[1].1)), 2, col);
        }
        for p in &s.points {
            c.rect(xs(p.0) - 2, ys(p.1) - 2, xs(p.0) + 2, ys(p.1) + 2, col);
        }
        let ly = y1 + 50 + 20 * i as i64;
        c.rect(x0, ly, x0 + 20, ly + 6, col);
        c.text(x0 + 30, ly - 1, &s.name, 1, BLACK);
    }
    c.png()
}
