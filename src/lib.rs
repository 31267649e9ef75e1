//! livens
