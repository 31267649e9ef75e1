//! `livens`: run any model × scheme of the catalogue, print its invariants, write CSV
//! and plots. `livens --help` for the commands; the README has a tour.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
