//! Times as the command prints them.

/// A time value without the noise of accumulated rounding (`0.30000000000000004` is
/// `0.3`): rounded to 12 significant digits, scientific below 1e-4.
pub fn fmt_time(t: f64) -> String {
    let rounded: f64 = format!("{t:.11e}").parse().unwrap_or(t);
    if rounded != 0.0 && rounded.abs() < 1e-4 {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_without_rounding_noise() {
        assert_eq!(fmt_time(0.1 + 0.2), "0.3");
        assert_eq!(fmt_time(2.0), "2");
        assert_eq!(fmt_time(0.002), "0.002");
        assert_eq!(fmt_time(1e-7), "1e-7");
        assert_eq!(fmt_time(0.0), "0");
    }
}
