//! Derivatives and linear algebra against independent oracles: every generated Jacobian against dual numbers and finite differences, the elimination plans against dense factorisations, and the hand-written EM step against the generated one.
//!
//! One test binary per theme, each file a module: the models and schemes a theme
//! shares are compiled and linked once (`cargo test --test derivatives MODULE::`).
mod derivatives;
mod elimination;
mod handwritten_em;
