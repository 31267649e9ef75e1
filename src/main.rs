//! `livens`: run any model × scheme of the catalogue, print its invariants, write CSV
//! and plots. `livens --help` for the commands; the README has a tour.
#![forbid(unsafe_code)]
// The unit tests' build leaves out the runs of every model and scheme
// (`cli::catalogue`), so the code only the runs reach is unused there.
#![cfg_attr(test, allow(dead_code))]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
