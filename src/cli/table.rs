//! The terminal table: one row per scheme, the invariants that show what structure
//! preservation buys, and Newton's cost.
use std::fmt::Write as _;

use super::entry::ModelEntry;
use super::outcome::Outcome;
use super::times::fmt_time;

/// The table's column headers after the scheme column.
const HEADERS: [&str; 8] = [
    "final|ΔE|",
    "max|ΔE|",
    "max|ΔJ|",
    "max|g|",
    "max|GM⁻¹p|",
    "Newton mean",
    "Newton max",
    "steps/s",
];

/// The header lines, the table and its legend, for `outcomes` of `model` at step size
/// `h` over `steps` steps.
pub fn render(model: &ModelEntry, h: f64, steps: usize, outcomes: &[Outcome]) -> String {
    let info = (model.describe)();
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = writeln!(
        out,
        "{} ({}): {} coordinate{}{}, {} constraint{}{}; h = {}, T = {} ({} steps)",
        model.name,
        model.type_name,
        info.coordinates,
        plural(info.coordinates),
        match info.group_storage {
            Some(q) => format!(" on a Lie group (stored in {q} numbers)"),
            None => String::new(),
        },
        info.constraints,
        plural(info.constraints),
        match info.nonholonomic.len() {
            0 => String::new(),
            k => format!(" and {k} nonholonomic"),
        },
        fmt_time(h),
        fmt_time(h * steps as f64),
        steps
    );
    if let Some(first) = outcomes.first() {
        let symbol = if first.scheme.generalized_energy {
            "E⁰"
        } else {
            "H⁰"
        };
        let mut initial = format!("initial values: {symbol} = {:.6e}", first.energy0);
        for (name, value) in &first.momentum0 {
            let _ = write!(initial, ", {name}⁰ = {value:.6e}");
        }
        let _ = writeln!(out, "{initial}");
    }
    out.push('\n');

    let width = outcomes
        .iter()
        .map(|o| o.scheme.label.chars().count())
        .chain([6])
        .max()
        .unwrap_or(6);
    // A model with nonholonomic constraints gets their residual after the holonomic ones.
    let nonholonomic = !info.nonholonomic.is_empty();
    let mut headers = HEADERS.to_vec();
    // The schemes that report the generalized energy show G v with their own v.
    let own_v = !outcomes.is_empty() && outcomes.iter().all(|o| o.scheme.generalized_energy);
    if own_v {
        headers[4] = "max|Gv|";
    }
    if nonholonomic {
        headers.insert(5, "max|Av|");
    }
    let _ = write!(out, "{:<width$}", "scheme");
    for header in &headers {
        let w = header.chars().count().max(10);
        let _ = write!(out, "  {header:>w$}");
    }
    out.push('\n');
    for o in outcomes {
        let s = &o.summary;
        let _ = write!(out, "{:<width$}", o.scheme.label);
        let momentum = s
            .max_momentum_error
            .map_or_else(|| "-".to_owned(), |m| format!("{m:.2e}"));
        let mut cells = vec![
            format!("{:.2e}", s.final_energy_error),
            format!("{:.2e}", s.max_energy_error),
            momentum,
            format!("{:.2e}", s.max_position_residual),
            format!("{:.2e}", s.max_velocity_residual),
            format!("{:.2}", s.mean_iterations),
            format!("{}", s.max_iterations),
            format!("{:.0}", s.steps_per_second),
        ];
        if nonholonomic {
            let a = s.max_nonholonomic_residual.unwrap_or(f64::NAN);
            cells.insert(5, format!("{a:.2e}"));
        }
        for (header, cell) in headers.iter().zip(cells) {
            let w = header.chars().count().max(10);
            let _ = write!(out, "  {cell:>w$}");
        }
        out.push('\n');
    }
    out.push('\n');
    let generalized: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.scheme.generalized_energy)
        .map(|o| o.scheme.label.as_str())
        .collect();
    if generalized.len() < outcomes.len() {
        let _ = writeln!(out, "ΔE = H(q, p) − H⁰: energy error");
    }
    if !generalized.is_empty() {
        let _ = writeln!(
            out,
            "ΔE = E − E⁰ for {}: the generalized energy E = p·v − T + V with the state's own v",
            generalized.join(", ")
        );
    }
    let hamiltonian: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.scheme.hamiltonian_velocity)
        .map(|o| o.scheme.label.as_str())
        .collect();
    if !hamiltonian.is_empty() {
        let _ = writeln!(
            out,
            "  for {}, v = M₄⁻¹ p (the regular mass matrix), so E is their Hamiltonian H = T* + V \
             wherever q·v = 0",
            hamiltonian.join(", ")
        );
    }
    if info.forced {
        let _ = writeln!(
            out,
            "the model is forced: ΔE subtracts the forces' work W = Σ h F(q^½, v^½, tⁿ + h/2)·v^½ \
             (E − E⁰ = W for the energy–momentum schemes), and the momentum maps change by \
             the forces' impulse"
        );
        let staged: Vec<&str> = outcomes
            .iter()
            .filter(|o| o.scheme.stage_family)
            .map(|o| o.scheme.label.as_str())
            .collect();
        if !staged.is_empty() {
            let _ = writeln!(
                out,
                "  for {}, whose forces act at the stages, W = Σ ∫ F·q̇ dt along each step's cubic \
                 Hermite interpolant (three-point Gauss): ΔE is the scheme's error to O(h⁴)",
                staged.join(", ")
            );
        }
    }
    let _ = match info.momentum_maps.as_slice() {
        [] => writeln!(out, "ΔJ: the model declares no momentum map"),
        [one] => writeln!(out, "ΔJ = J − J⁰: drift of the momentum map {one}"),
        many => writeln!(
            out,
            "ΔJ = J − J⁰: largest drift of the momentum maps {}",
            many.join(", ")
        ),
    };
    let _ = writeln!(
        out,
        "g(q), {}: constraint residuals at the nodes, position and velocity level",
        if own_v {
            "G v (the state's own v)"
        } else if generalized.is_empty() {
            "G M⁻¹ p"
        } else {
            "G M⁻¹ p (G v with the state's own v for EML)"
        }
    );
    if nonholonomic {
        let _ = writeln!(
            out,
            "A(q) v: nonholonomic constraint residual at the nodes ({})",
            info.nonholonomic.join(", ")
        );
    }
    let converted: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.scheme.node_form)
        .map(|o| o.scheme.label.as_str())
        .collect();
    if !converted.is_empty() {
        let _ = writeln!(
            out,
            "for {}: q, p are the node (x_k, p_k), v = M⁻¹ p, and J is the node's (the conserved \
             Noether quantity); the standard layer's segment state (q, v) is not written",
            converted.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "max: over the run, initial state included; steps/s: time in step() only"
    );
    for o in outcomes.iter().filter(|o| !o.observables.is_empty()) {
        let ranges: Vec<String> = o
            .observables
            .iter()
            .map(|(name, lo, hi)| format!("{name} in [{lo:.6e}, {hi:.6e}]"))
            .collect();
        let _ = writeln!(out, "{}: {}", o.scheme.label, ranges.join(", "));
    }
    for o in outcomes {
        if let Some(f) = &o.failure {
            let _ = writeln!(
                out,
                "{}: stopped at t = {} after {} of {} steps (Newton failed in step {}).",
                o.scheme.label,
                fmt_time(f.t),
                o.summary.steps,
                steps,
                f.step
            );
        }
        if o.interrupted {
            let _ = writeln!(
                out,
                "{}: interrupted (Ctrl-C) at t = {} after {} of {} steps.",
                o.scheme.label,
                fmt_time(h * o.summary.steps as f64),
                o.summary.steps,
                steps
            );
        }
        if let Some(v) = &o.violation {
            let _ = writeln!(
                out,
                "{}: max|g| = {:.2e} at t = {} (step {}) exceeds --constraint-tolerance {}.",
                o.scheme.label,
                v.residual,
                fmt_time(v.t),
                v.step,
                fmt_time(v.tolerance)
            );
        }
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Rows of cells as left-aligned columns two spaces apart (no trailing spaces).
pub fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (cell, width) in row.iter().zip(&widths) {
            let _ = write!(line, "{cell:<width$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
