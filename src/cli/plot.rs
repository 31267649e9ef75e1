//! The figure of a run or a comparison: energy error, momentum-map drift and the two
//! constraint residuals over time, one line per scheme, as SVG or PNG.
//!
//! A panel whose values span two decades or more is drawn on a logarithmic axis: the
//! line shows `log₁₀` of the value against ticks labelled `10ᵏ`, and exact zeros sit on
//! the bottom of the axis. (plotters' own log axis drops every tick below 2.2e-16,
//! which is where an energy–momentum scheme's errors live.)
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use super::args::PlotFormat;
use super::error::CliError;
use super::outcome::{Outcome, Series};

/// Figure size in pixels (also the SVG's user units).
const SIZE: (u32, u32) = (1200, 820);
/// Height of the strip with the title and the legend.
const HEADER: u32 = 80;
/// Line colours (Okabe–Ito, distinguishable with colour-vision deficiencies).
const COLORS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];
/// Most decades a log axis shows below its top.
const MAX_DECADES: i32 = 20;
const FONT: &str = "sans-serif";

/// One panel: a caption, the y-axis quantity and where its values are.
struct Panel {
    caption: &'static str,
    y_desc: String,
    values: fn(&Series) -> &[f64],
}

/// What the figure shows.
pub struct Figure<'a> {
    /// The title line.
    pub title: String,
    /// End of the time axis.
    pub t_end: f64,
    /// The momentum maps' names, for the axis label.
    pub momentum_maps: &'a [&'static str],
    /// One line per outcome in every panel.
    pub outcomes: &'a [Outcome],
}

/// Draws `figure` into `path` in `format`.
pub fn write(path: &Path, format: PlotFormat, figure: &Figure) -> Result<(), CliError> {
    static FONTS: Once = Once::new();
    // The same metrics for SVG and PNG, on every machine: no system font is looked up.
    FONTS.call_once(|| {
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
    let error = |message: String| CliError::Plot {
        path: path.to_owned(),
        message,
    };
    match format {
        PlotFormat::Svg => draw(
            SVGBackend::new(path, SIZE).into_drawing_area(),
            figure,
            false,
        )
        .map_err(|e| error(e.to_string())),
        PlotFormat::Png => draw(
            BitMapBackend::new(path, SIZE).into_drawing_area(),
            figure,
            true,
        )
        .map_err(|e| error(e.to_string())),
        PlotFormat::None => Ok(()),
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    figure: &Figure,
    segments: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (header, body) = root.split_vertically(HEADER);

    // Title, then the legend: one entry per scheme, shared by all panels.
    header.draw(&Text::new(
        figure.title.clone(),
        (24, 12),
        (FONT, 22).into_font().color(&BLACK),
    ))?;
    let label_font = (FONT, 17).into_font().color(&BLACK);
    let mut x = 24;
    for (i, outcome) in figure.outcomes.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let y = 58;
        header.draw(&PathElement::new(
            vec![(x, y), (x + 36, y)],
            color.stroke_width(3),
        ))?;
        let label = format!("{} ({})", outcome.scheme.label, outcome.scheme.name);
        header.draw(&Text::new(
            label.clone(),
            (x + 44, y - 10),
            label_font.clone(),
        ))?;
        let (w, _) = header.estimate_text_size(&label, &label_font)?;
        x += 44 + w as i32 + 36;
    }

    let momentum = match figure.momentum_maps {
        [] => "no momentum maps".to_owned(),
        [one] => format!("|J − J⁰|, J = {one}"),
        _ => "max over the maps |J − J⁰|".to_owned(),
    };
    // H(q, p), or the generalized energy E for the schemes that report it (the table's
    // legend says which is which).
    let generalized = figure.outcomes.iter().map(|o| o.scheme.generalized_energy);
    let energy = match (
        generalized.clone().all(|g| g),
        generalized.clone().any(|g| g),
    ) {
        (true, _) => "|E − E⁰|",
        (false, true) => "|H − H⁰|, |E − E⁰|",
        (false, false) => "|H − H⁰|",
    };
    let panels = [
        Panel {
            caption: "energy error",
            y_desc: energy.to_owned(),
            values: |s| &s.energy,
        },
        Panel {
            caption: "momentum-map drift",
            y_desc: momentum,
            values: |s| &s.momentum,
        },
        Panel {
            caption: "constraint residual, position level",
            y_desc: "max |g(q)|".to_owned(),
            values: |s| &s.position,
        },
        Panel {
            caption: "constraint residual, velocity level",
            y_desc: "max |G(q) M⁻¹ p|".to_owned(),
            values: |s| &s.velocity,
        },
    ];
    let zeros_on_a_log_axis = panels.iter().any(|p| {
        let columns = || figure.outcomes.iter().map(|o| (p.values)(&o.series));
        matches!(Scale::choose(columns()), Scale::Log { .. }) && columns().any(|c| c.contains(&0.0))
    });
    if zeros_on_a_log_axis {
        let note = "log axes: exact zeros are drawn on the bottom edge";
        let font = (FONT, 14).into_font().color(&RGBColor(90, 90, 90));
        let (w, _) = header.estimate_text_size(note, &font)?;
        let x = i32::try_from(SIZE.0.saturating_sub(w + 24)).unwrap_or(0);
        header.draw(&Text::new(note, (x, 51), font))?;
    }
    for (area, panel) in body.split_evenly((2, 2)).iter().zip(&panels) {
        draw_panel(area, panel, figure, segments)?;
    }
    root.present()
}

/// How a panel's y axis maps values.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    /// `log₁₀` of the value, axis from `10^lo` to `10^hi`, a tick every `step`
    /// decades (`lo` and `hi` are multiples of it, so both ends are labelled).
    Log { lo: i32, hi: i32, step: i32 },
    /// Linear from 0 to `top`, in multiples of `unit` (a power of ten, shown in the
    /// axis label, so that tick labels stay short and plotters' tick placement works
    /// with round-off-sized values).
    Linear { top: f64, unit: f64 },
    /// Every value is zero.
    Zero,
}

impl Scale {
    /// Log if the positive values span two decades or more.
    fn choose<'a>(columns: impl Iterator<Item = &'a [f64]>) -> Self {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for x in columns.flatten().copied() {
            if x.is_finite() && x > 0.0 {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if hi <= 0.0 {
            Self::Zero
        } else if hi >= 100.0 * lo {
            let top = hi.log10().ceil() as i32;
            let bottom = (lo.log10().floor() as i32).clamp(top - MAX_DECADES, top - 1);
            // The finest tick step (a "nice" one, as plotters picks) that labels the
            // axis with at most 11 ticks once both ends are aligned to it.
            let mut aligned = (bottom, top, 1);
            for step in [1, 2, 5, 10] {
                let (b, t) = (
                    bottom - bottom.rem_euclid(step),
                    top + (step - top.rem_euclid(step)) % step,
                );
                aligned = (b, t, step);
                if (t - b) / step <= 10 {
                    break;
                }
            }
            let (lo, hi, step) = aligned;
            Self::Log { lo, hi, step }
        } else {
            Self::Linear {
                top: hi * 1.08,
                unit: 10f64.powi(hi.log10().floor() as i32),
            }
        }
    }

    fn range(self) -> std::ops::Range<f64> {
        match self {
            Self::Log { lo, hi, .. } => f64::from(lo)..f64::from(hi),
            Self::Linear { top, unit } => 0.0..top / unit,
            Self::Zero => -1.0..1.0,
        }
    }

    /// The plotted coordinate of `x`; zeros go to the bottom of a log axis.
    fn map(self, x: f64) -> f64 {
        match self {
            Self::Log { lo, .. } => x.log10().max(f64::from(lo)),
            Self::Linear { unit, .. } => x / unit,
            Self::Zero => x,
        }
    }
}

/// `10⁻¹⁴`.
fn power_of_ten(k: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if k < 0 {
        s.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        s.push(DIGITS[usize::from(d - b'0')]);
    }
    s
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    figure: &Figure,
    segments: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let scale = Scale::choose(figure.outcomes.iter().map(|o| (panel.values)(&o.series)));
    let mut chart = ChartBuilder::on(area)
        .caption(panel.caption, (FONT, 18))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(48)
        .y_label_area_size(84)
        .build_cartesian_2d(0.0..figure.t_end, scale.range())?;

    let y_desc = match scale {
        Scale::Log { .. } => format!("{} (log scale)", panel.y_desc),
        Scale::Zero => format!("{} (identically 0)", panel.y_desc),
        Scale::Linear { unit, .. } if unit != 1.0 => format!(
            "{} (× {})",
            panel.y_desc,
            power_of_ten(unit.log10().round() as i32)
        ),
        Scale::Linear { .. } => panel.y_desc.clone(),
    };
    let log_labels = |y: &f64| {
        let k = y.round();
        if (y - k).abs() < 1e-9 {
            power_of_ten(k as i32)
        } else {
            String::new()
        }
    };
    let linear_labels = |y: &f64| format!("{}", (y * 1e6).round() / 1e6);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc("time t [s]")
        .y_desc(y_desc)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .light_line_style(RGBColor(235, 235, 235))
        .x_max_light_lines(1);
    match scale {
        Scale::Log { lo, hi, step } => {
            mesh.y_labels(usize::try_from((hi - lo) / step).unwrap_or(1) + 1)
                .y_max_light_lines(0)
                .y_label_formatter(&log_labels);
        }
        _ => {
            mesh.y_labels(6).y_label_formatter(&linear_labels);
        }
    }
    mesh.draw()?;

    for (i, outcome) in figure.outcomes.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let series = &outcome.series;
        let points: Vec<(f64, f64)> = series
            .t
            .iter()
            .zip((panel.values)(series))
            .filter(|(_, y)| y.is_finite())
            .map(|(&t, &y)| (t, scale.map(y)))
            .collect();
        let style = color.stroke_width(2);
        if segments {
            // The bitmap backend joins wide polylines with unlimited miters: a line
            // that zigzags from pixel to pixel would grow spikes.
            chart.draw_series(
                points
                    .windows(2)
                    .map(|w| PathElement::new(vec![w[0], w[1]], style)),
            )?;
        } else {
            chart.draw_series(LineSeries::new(points, style))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_logarithmic_only_across_decades() {
        let em = [0.0, 1e-16, 3e-15];
        let via = [0.0, 1e-3, 0.2];
        assert_eq!(
            Scale::choose([&em[..], &via[..]].into_iter()),
            Scale::Log {
                lo: -16,
                hi: 0,
                step: 2
            }
        );
        assert_eq!(
            Scale::choose([&[1e-17, 0.5][..]].into_iter()),
            Scale::Log {
                lo: -18,
                hi: 0,
                step: 2
            }
        );
        assert_eq!(
            Scale::choose([&[1e-5, 5e-3][..]].into_iter()),
            Scale::Log {
                lo: -5,
                hi: -2,
                step: 1
            }
        );
        // 20 decades from 10⁻³ down: ticks every 5, at 10⁻²⁵ … 10⁰.
        assert_eq!(
            Scale::choose([&[1e-40, 1e-3][..]].into_iter()),
            Scale::Log {
                lo: -25,
                hi: 0,
                step: 5
            }
        );
        assert!(matches!(
            Scale::choose([&[0.0, 2e-3, 5e-3][..]].into_iter()),
            Scale::Linear { .. }
        ));
        assert_eq!(Scale::choose([&[0.0, 0.0][..]].into_iter()), Scale::Zero);
        let log = Scale::Log {
            lo: -16,
            hi: 0,
            step: 2,
        };
        assert_eq!(log.map(0.0), -16.0);
    }

    #[test]
    fn powers_of_ten_use_superscripts() {
        assert_eq!(power_of_ten(-14), "10⁻¹⁴");
        assert_eq!(power_of_ten(0), "10⁰");
        assert_eq!(power_of_ten(3), "10³");
    }
}
