//! Nothing to build: this package holds the compile-fail tests of `model!`
//! (`tests/compile_fail.rs`, cases in `tests/ui/<class>/`). A package needs a target;
//! trybuild adds this empty library to the project it checks the cases in.
#![no_std]
