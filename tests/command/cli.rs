//! The `livens` command as a user runs it: a subprocess per test, on short horizons.
//! The table's figures are checked against the same run done here with the library.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use livens::prelude::*;
use livens_models::{LagrangeTop, Pendulum3d};

/// Runs `livens` with `args`; returns the exit code, stdout and stderr.
fn livens(args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_livens"))
        .args(args)
        .output()
        .expect("the livens binary runs");
    (
        status.code().expect("exited, not killed"),
        String::from_utf8(stdout).expect("UTF-8 stdout"),
        String::from_utf8(stderr).expect("UTF-8 stderr"),
    )
}

/// A fresh, empty directory for one test's output.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The CSV as a header and rows of numbers.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header = lines.next().expect("a header line");
    let header: Vec<String> = header.split(',').map(String::from).collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .map(|x| x.parse().unwrap_or_else(|e| panic!("{x:?}: {e}")))
                .collect()
        })
        .collect();
    for row in &rows {
        assert_eq!(row.len(), header.len(), "every row has every column");
    }
    (header, rows)
}

/// A minimal XML check: the document starts with `<svg` or `<?xml`, every tag is
/// closed in order, and the root element is `svg`.
fn assert_well_formed_svg(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let text = text.trim_start();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{path:?} does not start like SVG"
    );
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let tag = &rest[start + 1..];
        // The tag ends at the first '>' outside quotes.
        let mut quote = None;
        let end = tag
            .char_indices()
            .find(|&(_, c)| match quote {
                Some(q) if c == q => {
                    quote = None;
                    false
                }
                Some(_) => false,
                None if c == '"' || c == '\'' => {
                    quote = Some(c);
                    false
                }
                None => c == '>',
            })
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("{path:?}: unterminated tag"));
        let body = &tag[..end];
        rest = &tag[end + 1..];
        if body.starts_with('?') || body.starts_with('!') {
            continue;
        }
        let name = |s: &str| {
            s.split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or("")
                .to_owned()
        };
        if let Some(closing) = body.strip_prefix('/') {
            let expected = open
                .pop()
                .unwrap_or_else(|| panic!("{path:?}: stray </{closing}>"));
            assert_eq!(name(closing), expected, "{path:?}: mismatched closing tag");
        } else {
            if open.is_empty() {
                roots += 1;
                assert_eq!(name(body), "svg", "{path:?}: root element");
            }
            if !body.ends_with('/') {
                open.push(name(body));
            }
        }
    }
    assert!(open.is_empty(), "{path:?}: unclosed {open:?}");
    assert_eq!(roots, 1, "{path:?}: one root element");
}

/// The columns of a table row: the figures after the scheme label.
fn table_row(stdout: &str, label: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no table row {label} in:\n{stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap_or_else(|e| panic!("{x:?}: {e}")))
        .collect()
}

/// What the table shows, computed here with the library: final and max |H − H⁰|,
/// max |J − J⁰|, max |g|, max |G M⁻¹ p| (initial state included), mean and max
/// Newton iterations; and the final signed H − H⁰ as the CSV has it.
fn expected<Mdl, S, const D: usize, const M: usize, const K: usize>(
    model: Mdl,
    scheme: S,
    state: NodeState<f64, D, M>,
    h: f64,
    steps: usize,
) -> ([f64; 7], f64)
where
    Mdl: Step<f64, S, State = NodeState<f64, D, M>> + Model<f64, D, M> + MomentumMaps<f64, D, K>,
    S: SchemeInfo,
{
    let mut sim = Integrator::new(model, scheme, h, state);
    let d0 = Diagnostics::of(sim.model(), &state);
    let j0 = sim.model().momentum_maps(&state.q, &state.p);
    let mut w = [
        0.0,
        0.0,
        0.0,
        d0.position_residual,
        d0.velocity_residual,
        0.0,
        0.0,
    ];
    let mut last = 0.0;
    for _ in 0..steps {
        let report = sim.step().expect("a short run converges");
        let s = sim.state();
        let d = Diagnostics::of(sim.model(), s);
        let j = sim.model().momentum_maps(&s.q, &s.p);
        last = d.hamiltonian - d0.hamiltonian;
        w[0] = last.abs();
        w[1] = w[1].max(last.abs());
        w[2] = w[2].max((j - j0).abs().max());
        w[3] = w[3].max(d.position_residual);
        w[4] = w[4].max(d.velocity_residual);
        w[5] += f64::from(report.iterations) / steps as f64;
        w[6] = w[6].max(f64::from(report.iterations));
    }
    (w, last)
}

/// The table's figures equal the library's to the printed precision (three
/// significant digits, two decimals for the mean iterations).
fn assert_row_matches(row: &[f64], expected: &[f64; 7], label: &str) {
    assert_eq!(row.len(), 8, "{label}: eight figures");
    for (i, (&shown, &exact)) in row.iter().zip(expected).enumerate() {
        let tolerance = if i == 5 { 0.005 } else { 0.0051 * exact.abs() };
        assert!(
            (shown - exact).abs() <= tolerance,
            "{label}, column {i}: table {shown} vs library {exact:e}"
        );
    }
    assert!(row[7] > 0.0, "{label}: steps per second");
}

#[test]
fn list_shows_every_model_with_its_schemes_and_parameters() {
    let (code, out, err) = livens(&["list"]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "pendulum",
        "Pendulum3d",
        "top",
        "LagrangeTop",
        "GglEm (EM)",
        "GglViA (VI-A)",
        "g = 9.81",
        "m = 0.7069",
    ] {
        assert!(out.contains(needle), "{needle} missing from:\n{out}");
    }
}

#[test]
fn run_writes_the_csv_and_the_plot_and_its_table_matches_the_library() {
    let dir = scratch("run");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run", "pendulum", "--scheme", "EM", "--dt", "0.05", "--t-end", "1", "--out", out_dir,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("h = 0.05, T = 1 (20 steps)"), "{out}");

    let model = Pendulum3d::new();
    let (figures, last) = expected(model, GglEm, model.initial_state().unwrap(), 0.05, 20);
    assert_row_matches(&table_row(&out, "EM"), &figures, "EM");

    let (header, rows) = read_csv(&dir.join("pendulum-GglEm.csv"));
    let mut columns = vec!["t".to_owned()];
    for block in ["q", "v", "p"] {
        columns.extend(["x", "y", "z"].map(|c| format!("{block}[q.{c}]")));
    }
    columns.extend(
        [
            "lambda[length]",
            "gamma[length]",
            "energy",
            "hamiltonian",
            "energy_error",
            "momentum[j3]",
            "momentum_error[j3]",
            "position_residual",
            "velocity_residual",
            "velocity_residual_v",
            "newton_iterations",
            "newton_residual",
        ]
        .map(String::from),
    );
    assert_eq!(header, columns);
    assert_eq!(rows.len(), 21, "the initial state and 20 steps");
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let final_row = rows.last().unwrap();
    assert!((final_row[col("t")] - 1.0).abs() < 1e-12);
    // The CSV writes each number so that it reads back bit for bit.
    assert_eq!(final_row[col("energy_error")], last);
    assert_eq!(rows[0][col("newton_iterations")], 0.0);
    assert!(rows[1..].iter().all(|r| r[col("newton_iterations")] >= 1.0));

    assert_well_formed_svg(&dir.join("pendulum-GglEm.svg"));
}

#[test]
fn compare_plots_one_line_per_scheme_and_its_table_matches_the_library() {
    let dir = scratch("compare");
    let (code, out, err) = livens(&[
        "compare",
        "top",
        "--schemes",
        "GglEm,GglViA",
        "--t-end",
        "0.02",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("h = 0.002, T = 0.02 (10 steps)"), "{out}");

    let model = LagrangeTop::new();
    let state = model.initial_state().unwrap();
    let (em, _) = expected(model, GglEm, state, LagrangeTop::DEFAULT_STEP, 10);
    let (via, _) = expected(model, GglViA, state, LagrangeTop::DEFAULT_STEP, 10);
    assert_row_matches(&table_row(&out, "EM"), &em, "EM");
    assert_row_matches(&table_row(&out, "VI-A"), &via, "VI-A");
    // What the comparison is for: EM holds its constraints at the nodes, VI-A does not.
    assert!(em[3] < 1e-12 && via[3] > 1e-6, "{em:?} {via:?}");

    for scheme in ["GglEm", "GglViA"] {
        let (header, rows) = read_csv(&dir.join(format!("top-{scheme}.csv")));
        assert_eq!(header.len(), 1 + 3 * 12 + 2 * 9 + 3 + 2 + 5);
        assert!(
            header.contains(&"q[d3.z]".to_owned()) && header.contains(&"gamma[tip.x]".to_owned())
        );
        assert_eq!(rows.len(), 11);
    }
    let svg = dir.join("top-GglEm-GglViA.svg");
    assert_well_formed_svg(&svg);
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "EM (GglEm)",
        "VI-A (GglViA)",
        "time t [s]",
        "energy error",
        "log scale",
    ] {
        assert!(text.contains(label), "{label} missing from the plot");
    }
    // One line per scheme in the legend and in each of the four panels.
    for color in ["#0072B2", "#D55E00"] {
        let lines = format!("<polyline fill=\"none\" opacity=\"1\" stroke=\"{color}\"");
        assert_eq!(text.matches(&lines).count(), 5, "lines of colour {color}");
    }
}

#[test]
fn a_converted_scheme_says_which_state_it_writes() {
    // The spherical pendulum by the constrained conversion: the table and the CSV
    // report the node, on both constraint levels and with the node's momentum map
    // conserved to round-off at every step, and the footer says so.
    let dir = scratch("converted");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run",
        "spherical-pendulum",
        "--scheme",
        "ConvertedHolonomic(Rk4, Forward)",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("q, p are the node (x_k, p_k)")
            && out.contains("segment state (q, v) is not written"),
        "{out}"
    );
    let (header, rows) =
        read_csv(&dir.join("spherical-pendulum-ConvertedHolonomic(Rk4, Forward).csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert_eq!(rows.len(), 129, "the initial state and 128 steps");
    for row in &rows {
        assert!(row[col("position_residual")] < 1e-13, "{row:?}");
        assert!(row[col("velocity_residual")] < 1e-13, "{row:?}");
        assert!(row[col("momentum_error[j3]")].abs() < 1e-13, "{row:?}");
    }
}

#[test]
fn png_on_request() {
    let dir = scratch("png");
    let (code, out, err) = livens(&[
        "compare",
        "pendulum",
        "--schemes",
        "EM,VI-A",
        "--t-end",
        "0.5",
        "--plot",
        "png",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pendulum-GglEm-GglViA.png"), "{out}");
    let png = std::fs::read(dir.join("pendulum-GglEm-GglViA.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}

#[test]
fn unknown_model_lists_the_valid_ones() {
    let (code, _, err) = livens(&["run", "pendolum", "--scheme", "EM"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown model 'pendolum'"), "{err}");
    assert!(err.contains("valid models: pendulum, top"), "{err}");
}

#[test]
fn unknown_scheme_lists_the_valid_ones() {
    let (code, _, err) = livens(&["compare", "top", "--schemes", "EM,GglXyz"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown scheme 'GglXyz'"), "{err}");
    assert!(
        err.contains("GglEm (EM)") && err.contains("GglViA (VI-A)"),
        "{err}"
    );
}

/// Every (model, scheme) pair that `livens list` does not pair is refused with the
/// model's schemes. (Today every model declares every scheme: the catalogue's unit
/// tests cover the message with a model that lacks one.)
#[test]
fn unsupported_scheme_lists_the_models_schemes() {
    let (_, list, _) = livens(&["list"]);
    let section = |title: &str| -> Vec<String> {
        list.split("\n\n")
            .skip_while(|s| !s.starts_with(title))
            .nth(1)
            .unwrap_or_default()
            .lines()
            .skip(1)
            .map(String::from)
            .collect()
    };
    let schemes: Vec<String> = section("Schemes")
        .iter()
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert!(schemes.len() >= 2, "{list}");
    for line in section("Models") {
        let model = line.split_whitespace().next().unwrap();
        for scheme in &schemes {
            if line.contains(&format!("{scheme} (")) {
                continue;
            }
            let out = scratch("unsupported");
            let out = out.to_str().unwrap();
            let (code, _, err) = livens(&["run", model, "--scheme", scheme, "--out", out]);
            assert_eq!(code, 2, "{model} × {scheme}: {err}");
            assert!(err.contains("does not support scheme"), "{err}");
            assert!(err.contains("it supports: "), "{err}");
        }
    }
}

/// A stage count the model does not declare is named as given: the model does support
/// the family, with other counts.
#[test]
fn an_undeclared_stage_count_is_named_as_given() {
    let (code, _, err) = livens(&["run", "transmission", "-s", "NonholonomicLobatto(1)"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("scheme 'NonholonomicLobatto(1)'") && err.contains("NonholonomicLobatto(2)"),
        "{err}"
    );
}

#[test]
fn unknown_parameter_lists_the_models_parameters() {
    let (code, _, err) = livens(&["run", "pendulum", "-s", "EM", "--param", "mass=2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no parameter 'mass'") && err.contains("m, l, g"),
        "{err}"
    );
}

#[test]
fn parameters_the_model_refuses_are_usage_errors() {
    // Unphysical values used to run with exit 0; each model's `requires` block names
    // what it needs, and nothing is written.
    let out = scratch("refused_parameters").join("out");
    let dir = out.to_str().unwrap();
    for (model, param, condition) in [
        ("pendulum", "m=-1", "`m > 0.0`"),
        ("pendulum", "l=0", "`l > 0.0`"),
        ("top", "i3=1", "`i3 < i1 + i2`"),
        ("free-body", "j1=100", "`j1 <= j2 + j3`"),
        ("four-particles", "m2=-3", "`m2 > 0.0`"),
    ] {
        let scheme = if model == "free-body" { "EML" } else { "EM" };
        let (code, stdout, err) =
            livens(&["run", model, "-s", scheme, "--param", param, "--out", dir]);
        assert_eq!(code, 2, "{model} {param}: {err}");
        assert!(
            err.contains(&format!("refuses --param {param}")) && err.contains(condition),
            "{model} {param}: {err}"
        );
        assert!(stdout.is_empty(), "{stdout}");
        assert!(!out.exists(), "{model} {param}: output written");
    }
}

#[test]
fn invalid_values_are_usage_errors() {
    let (code, _, err) = livens(&["run", "pendulum", "-s", "EM", "--dt", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--dt"), "{err}");
    let (code, _, err) = livens(&["run", "pendulum", "-s", "EM", "--t-end", "0.01"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no step to take"), "{err}");
}

#[test]
fn newton_failure_reports_time_and_residual_and_keeps_the_csv() {
    let dir = scratch("newton");
    // The pendulum with VI-A at h = 1 (twenty times the paper's step) fails after a
    // few steps.
    let (code, out, err) = livens(&[
        "run",
        "pendulum",
        "-s",
        "VI-A",
        "--dt",
        "1",
        "--t-end",
        "20",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains("Newton failed for pendulum with VI-A in step"),
        "{err}"
    );
    assert!(err.contains("residual"), "{err}");
    assert!(
        err.contains("try a smaller step size, e.g. --dt 0.5"),
        "{err}"
    );
    let t: f64 = err
        .split("the CSV up to t = ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no time in: {err}"));
    assert!(out.contains("stopped at t ="), "{out}");

    let (header, rows) = read_csv(&dir.join("pendulum-GglViA.csv"));
    assert_eq!(header[0], "t");
    assert_eq!(rows.len(), t as usize + 1, "every step up to the failure");
    assert_eq!(rows.last().unwrap()[0], t);
    assert_well_formed_svg(&dir.join("pendulum-GglViA.svg"));
}

#[test]
fn inconsistent_initial_data_is_a_numerical_error() {
    let dir = scratch("init");
    let (code, _, err) = livens(&[
        "run",
        "pendulum",
        "-s",
        "EM",
        "--param",
        "l=2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("initial state of 'pendulum' is not consistent"),
        "{err}"
    );
}

#[test]
fn unwritable_output_directory_is_reported() {
    let dir = scratch("unwritable");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let target = file.join("out");
    let (code, _, err) = livens(&[
        "run",
        "pendulum",
        "-s",
        "EM",
        "--t-end",
        "0.1",
        "--out",
        target.to_str().unwrap(),
    ]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("cannot create the output directory"), "{err}");
    assert!(err.contains("--out"), "{err}");
}

/// `--help` of each command lists the exit codes of the README's table (the table
/// itself is checked against the code by a unit test of `src/cli/error.rs`).
#[test]
fn help_lists_the_readmes_exit_codes() {
    let readme = include_str!("../../README.md");
    let table = readme
        .split("<!-- exit codes: checked by src/cli/error.rs -->")
        .nth(1)
        .and_then(|t| t.split("<!-- end of exit codes -->").next())
        .expect("the README's exit-code table");
    let rows: Vec<(String, String)> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            (
                cells[0]
                    .trim_start_matches("| ")
                    .trim_matches('`')
                    .to_owned(),
                cells[1].to_owned(),
            )
        })
        .collect();
    assert!(rows.len() >= 4, "{table}");
    for command in [&["--help"][..], &["run", "--help"], &["compare", "--help"]] {
        let (code, out, err) = livens(command);
        assert_eq!(code, 0, "{err}");
        let help = out
            .split("Exit codes:")
            .nth(1)
            .unwrap_or_else(|| panic!("{out}"));
        for (code, meaning) in &rows {
            assert!(
                help.contains(&format!("\n  {code:<3}  {meaning}:")),
                "{command:?}: code {code} ({meaning}) missing from:\n{help}"
            );
        }
    }
}

#[test]
fn an_end_time_between_steps_is_rounded_and_the_run_says_so() {
    let dir = scratch("rounding");
    let out_dir = dir.to_str().unwrap();
    let args = |t_end| {
        [
            "run", "pendulum", "-s", "EM", "--dt", "0.05", "--t-end", t_end, "--plot", "none",
            "--out", out_dir,
        ]
    };
    let (code, out, err) = livens(&args("1.03"));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "--t-end 1.03 is not a whole number of steps of --dt 0.05: taking 21 steps, \
             to t = 1.05"
        ),
        "{err}"
    );
    assert!(out.contains("h = 0.05, T = 1.05 (21 steps)"), "{out}");
    let (_, rows) = read_csv(&dir.join("pendulum-GglEm.csv"));
    assert_eq!(rows.len(), 22, "the initial state and 21 steps");
    assert!((rows.last().unwrap()[0] - 1.05).abs() < 1e-12);
    // A whole number of steps is taken without a note.
    let (code, _, err) = livens(&args("1"));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not a whole number"), "{err}");
}

#[test]
fn a_csv_over_the_size_limit_is_refused_before_anything_is_written() {
    let dir = scratch("csv-size").join("out");
    let clock = std::time::Instant::now();
    let (code, out, err) = livens(&[
        "run",
        "pendulum",
        "-s",
        "VI-A",
        "--t-end",
        "1e7",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let elapsed = clock.elapsed();
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("error: the CSV would take about 88 GB (200000001 lines of 22 numbers"),
        "{err}"
    );
    assert!(err.contains("more than the limit of 1 GB"), "{err}");
    for way_out in ["--csv-every 89", "--dt", "--t-end", "--force"] {
        assert!(err.contains(way_out), "{way_out} missing from: {err}");
    }
    assert!(out.is_empty(), "no table: {out}");
    assert!(!dir.exists(), "nothing written, not even the directory");
    assert!(
        elapsed.as_secs() < 5,
        "refused at once, not after {elapsed:?}"
    );
}

/// VI-A at h = 10 on the pendulum: one step that Newton solves, to a point more than
/// twice the rod's length from the pivot. The run finishes, but fails its check.
#[test]
fn a_constraint_residual_over_the_tolerance_fails_the_run_with_code_5() {
    let dir = scratch("residual");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run", "pendulum", "-s", "VI-A", "--dt", "10", "--out", out_dir,
    ]);
    assert_eq!(code, 5, "{out}\n{err}");
    assert!(
        err.contains(
            "error: VI-A on pendulum violates the constraints at the nodes: \
             max|g(q)| = 1.984e0 at step 1 (t = 10), more than --constraint-tolerance 0.1; \
             VI-A holds g = 0 between the nodes, not at them"
        ),
        "{err}"
    );
    assert!(
        err.contains("e.g. --dt 0.05 (the model's paper step)"),
        "{err}"
    );
    assert!(
        err.contains(
            "a scheme that holds g = 0 at the nodes (VI-S, VI-B, VI-θB, EM, EM-G, RATTLE)"
        ),
        "{err}"
    );
    // The table, the CSV and the plot are there, and the residual is the CSV's.
    assert!(
        out.contains(
            "VI-A: max|g| = 1.98e0 at t = 10 (step 1) exceeds --constraint-tolerance 0.1."
        ),
        "{out}"
    );
    let (header, rows) = read_csv(&dir.join("pendulum-GglViA.csv"));
    let g = header
        .iter()
        .position(|c| c == "position_residual")
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert!((rows[1][g] - 1.984).abs() < 1e-3, "{}", rows[1][g]);
    assert_well_formed_svg(&dir.join("pendulum-GglViA.svg"));

    // `inf` turns the check off.
    let (code, _, err) = livens(&[
        "run",
        "pendulum",
        "-s",
        "VI-A",
        "--dt",
        "10",
        "--constraint-tolerance",
        "inf",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{err}");
}

/// The default tolerance passes the paper's runs: VI-A on the top at h = 0.002 reaches
/// max|g| = 2.03e-2 at the nodes, the largest of every model × scheme at its paper's
/// step. A tolerance below it fails VI-A alone.
#[test]
fn the_papers_runs_pass_the_default_constraint_tolerance() {
    let dir = scratch("tolerance");
    let out_dir = dir.to_str().unwrap();
    let args = [
        "compare", "top", "-s", "EM,VI-A", "--plot", "none", "--out", out_dir,
    ];
    let (code, out, err) = livens(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let via = table_row(&out, "VI-A");
    assert!(via[3] > 2e-2 && via[3] < 0.1, "{via:?}");

    let (code, _, err) = livens(&[&args[..], &["--constraint-tolerance", "0.01"]].concat());
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("VI-A on top violates the constraints"),
        "{err}"
    );
    assert!(!err.contains("EM on top"), "{err}");
    assert_eq!(err.matches("error: ").count(), 1, "{err}");
}

/// Ctrl-C in the middle of a long comparison: the first run stops at a step boundary,
/// its CSV is complete up to that step (even between two `--csv-every` lines), the
/// table and the plot of the partial run are written, the second scheme is skipped,
/// and the command exits with 130.
#[cfg(unix)]
#[test]
fn ctrl_c_keeps_the_csv_table_and_plot_of_the_partial_run() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let dir = scratch("interrupt");
    let csv = dir.join("pendulum-GglEm.csv");
    // 2·10⁷ steps: minutes, far longer than the test waits.
    let child = Command::new(env!("CARGO_BIN_EXE_livens"))
        .args([
            "compare",
            "pendulum",
            "-s",
            "EM,VI-A",
            "--t-end",
            "1e6",
            "--csv-every",
            "50",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the livens binary starts");
    // The handler is installed before the CSV is created; wait for some rows.
    let start = Instant::now();
    while std::fs::metadata(&csv).map_or(0, |m| m.len()) < 64 * 1024 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no CSV after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let (out, err) = (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert_eq!(output.status.code(), Some(130), "{out}\n{err}");

    // The message gives the time reached and the number of steps.
    let after = err
        .split("error: interrupted (Ctrl-C) at t = ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"));
    let t: f64 = after.split_whitespace().next().unwrap().parse().unwrap();
    let steps: usize = after
        .split(" after ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        after.contains(" of 20000000 steps of EM on pendulum"),
        "{err}"
    );
    assert!(err.contains("not run: VI-A"), "{err}");
    assert!(steps > 0 && steps < 20_000_000, "{err}");
    assert!((t - 0.05 * steps as f64).abs() < 1e-6 * t, "{err}");

    // Every line of the CSV is complete (read_csv checks each row's length), one per
    // 50 steps, the initial state and the last step reached; the last is at t.
    let (header, rows) = read_csv(&csv);
    let expected = steps / 50 + 1 + usize::from(steps % 50 != 0);
    assert_eq!(rows.len(), expected, "{steps} steps");
    assert!(std::fs::read_to_string(&csv).unwrap().ends_with('\n'));
    let last = rows.last().unwrap();
    assert!((last[0] - t).abs() < 1e-6 * t, "{} vs {t}", last[0]);
    let newton = header
        .iter()
        .position(|c| c == "newton_iterations")
        .unwrap();
    assert!(
        last[newton] >= 1.0,
        "the last row is a step, not the initial state"
    );

    // The table of the partial run, the plot of the schemes that ran, no VI-A CSV.
    let row = table_row(&out, "EM");
    assert!(row[3] < 1e-12, "EM's max|g| over the partial run: {row:?}");
    assert!(
        out.contains(&format!(
            "EM: interrupted (Ctrl-C) at t = {t} after {steps} of"
        )),
        "{out}"
    );
    assert_well_formed_svg(&dir.join("pendulum-GglEm.svg"));
    assert!(!dir.join("pendulum-GglViA.csv").exists());
}

/// A nonholonomic model's run reports what its declaration names: `max|A(q) v|` as a
/// table column and a CSV column, and the transmission's subsystem energies (its
/// `observables` block) as CSV columns and as ranges under the table, the ranges of
/// spec 002 §6 D item 10 (low energy, h = 1/10, T = 500) with the paper's map (its
/// multiplier carried).
#[test]
fn a_nonholonomic_run_reports_its_constraint_residual_and_observables() {
    let dir = scratch("transmission");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run",
        "transmission",
        "--scheme",
        "NonholonomicLobattoCarried(2)",
        "--t-end",
        "500",
        "--plot",
        "none",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("0 constraints and 1 nonholonomic"), "{out}");
    assert!(out.contains("max|Av|"), "{out}");
    // The label has spaces: the figures are the row's last cells, one per header.
    let headers: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("scheme"))
        .unwrap()
        .split_whitespace()
        .skip(1)
        .collect();
    let cells: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("Lobatto"))
        .unwrap()
        .split_whitespace()
        .collect();
    let cells = &cells[cells.len() - headers.len()..];
    let av: f64 = cells[headers.iter().position(|h| *h == "max|Av|").unwrap()]
        .parse()
        .unwrap();
    assert!(av < 1e-13, "max|Av| {av:e}\n{out}");

    let (header, rows) = read_csv(&dir.join("transmission-NonholonomicLobattoCarried(2).csv"));
    let col = |name: &str| {
        header
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let range = |name: &str| {
        let c = col(name);
        rows.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r[c]), hi.max(r[c]))
            })
    };
    let max_av = rows
        .iter()
        .map(|r| r[col("nonholonomic_residual")])
        .fold(0.0, f64::max);
    assert!(max_av < 1e-13, "{max_av:e}");
    // λ is the scheme's: computed at the first step (NaN before), then carried.
    let lambda = col("lambda[phi]");
    assert!(rows[0][lambda].is_nan());
    assert!(rows[1..].iter().all(|r| r[lambda].is_finite()));
    let ((d_lo, d_hi), (p_lo, p_hi)) = (range("observable[E_d]"), range("observable[E_p]"));
    println!("E_d in [{d_lo:.4}, {d_hi:.4}], E_p in [{p_lo:.4}, {p_hi:.4}]");
    // Spec 002 §6 D item 10: E_d in [0.797, 0.804], E_p in [0.988, 1.001].
    for (x, spec) in [(d_lo, 0.797), (d_hi, 0.804), (p_lo, 0.988), (p_hi, 1.001)] {
        assert!((x - spec).abs() < 1.5e-3, "{x} against {spec}");
    }
    let printed = format!("E_d in [{d_lo:.6e}, {d_hi:.6e}], E_p in [{p_lo:.6e}, {p_hi:.6e}]");
    assert!(out.contains(&printed), "{printed}\n{out}");
}

/// EML reports the energy it conserves, the generalized `E = p·v − T + V` with the
/// state's own `v`, and says so: on the spring pendulum (a configuration-dependent mass
/// matrix, spec 001 §3.2) `E⁰ = 1.496484375` and `|ΔE|` stays at round-off.
#[test]
fn eml_reports_the_generalized_energy() {
    let dir = scratch("spring-pendulum");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run",
        "spring-pendulum",
        "--scheme",
        "EML",
        "--plot",
        "none",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("initial values: E⁰ = 1.496484e0"), "{out}");
    assert!(
        out.contains("ΔE = E − E⁰ for EML: the generalized energy"),
        "{out}"
    );
    assert!(!out.contains("ΔE = H(q, p) − H⁰"), "{out}");
    // The model has no momentum map: its column is "-", so read the first two cells.
    let line = out.lines().find(|l| l.starts_with("EML")).unwrap();
    let cells: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .take(2)
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(cells.iter().all(|&e| e < 1e-13), "{line}");
    let (header, rows) = read_csv(&dir.join("spring-pendulum-Eml.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let last = rows.last().unwrap();
    assert_eq!(
        last[col("energy_error")],
        last[col("energy")] - rows[0][col("energy")]
    );
}

/// A forced model with a stage family: the run prints its table with the legend of its
/// energy column, whose `ΔE` (the energy less the forces' work along each step's Hermite
/// interpolant) is the scheme's error: it falls by 2⁴ when `h` halves for the order-4
/// `LobattoIIIAIIIB(3)`, where the midpoint rule's work would leave an `O(h²)` floor.
#[test]
fn a_forced_model_runs_with_a_stage_family() {
    let dir = scratch("forced");
    let out_dir = dir.to_str().unwrap();
    let label = "Lobatto IIIA-IIIB s=3";
    let max_energy_error = |dt: &str| {
        let (code, out, err) = livens(&[
            "run",
            "forced-oscillator",
            "--scheme",
            "LobattoIIIAIIIB(3)",
            "--dt",
            dt,
            "--t-end",
            "4",
            "--out",
            out_dir,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("the model is forced"), "{out}");
        assert!(
            out.contains(&format!("for {label}, whose forces act at the stages")),
            "{out}"
        );
        let line = out
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no table row {label} in:\n{out}"));
        let figures: Vec<f64> = line[label.len()..]
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        figures[1]
    };
    let (coarse, fine) = (max_energy_error("0.1"), max_energy_error("0.05"));
    let order = (coarse / fine).log2();
    println!("max|ΔE| {coarse:.2e} → {fine:.2e}: order {order:.2}");
    assert!(fine < 1e-5, "{fine:e}");
    assert!((order - 4.0).abs() <= 0.5, "{order}");
    assert_well_formed_svg(&dir.join("forced-oscillator-LobattoIIIAIIIB(3).svg"));
}

/// A model on a group (the ball on the turntable, SO(3) × R²) through the command: the
/// CSV names the group's storage (`q[R.w]` …) and the body velocity (`v[R_dot.x]` …),
/// the quaternion stays unit, the first integrals `i1 … i3` hold to round-off and the
/// moving energy `i4` to the method's 7.4e-9 (spec `next_packages.md` §A.7).
#[test]
fn a_group_model_writes_its_storage_and_body_velocity() {
    let dir = scratch("turntable-ball");
    let out_dir = dir.to_str().unwrap();
    let (code, out, err) = livens(&[
        "run",
        "turntable-ball",
        "--scheme",
        "NonholonomicLobattoCarried(2)",
        "--plot",
        "none",
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("5 coordinates on a Lie group (stored in 6 numbers)"),
        "{out}"
    );
    let (header, rows) = read_csv(&dir.join("turntable-ball-NonholonomicLobattoCarried(2).csv"));
    assert_eq!(rows.len(), 4001, "4000 steps of 0.05 and the start");
    let col = |name: &str| {
        header
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let quaternion = ["q[R.w]", "q[R.x]", "q[R.y]", "q[R.z]"].map(&col);
    for name in ["q[x]", "q[y]", "v[R_dot.x]", "v[R_dot.z]", "v[x]", "v[y]"] {
        col(name);
    }
    let spread = |name: &str| {
        let c = col(name);
        let (lo, hi) = rows
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r[c]), hi.max(r[c]))
            });
        hi - lo
    };
    let norm = rows
        .iter()
        .map(|r| (quaternion.iter().map(|&c| r[c] * r[c]).sum::<f64>().sqrt() - 1.0).abs())
        .fold(0.0, f64::max);
    assert!(norm <= 1e-14, "||q| − 1| {norm:e}");
    for name in ["observable[i1]", "observable[i2]", "observable[i3]"] {
        assert!(spread(name) <= 1e-12, "{name}: {:e}", spread(name));
    }
    let i4 = spread("observable[i4]");
    assert!(i4 <= 1e-7, "i4: {i4:e}");
}
