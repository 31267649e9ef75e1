//! The Galerkin family's admissible parameters (Wenger, Ober-Blöbaum, Leyendecker,
//! Thm 1 and §4, seed `003_7c34c28b0df0e267.txt`; spec `next_packages.md` §B.2): the
//! catalogue's ranges bound each parameter, these rules relate them. The runtime's
//! `tableaux::admissible` holds the same rules, with the same words.
use super::{Arg, SchemeKind};

/// Whether `Galerkin(s, w, rule, r)` is a scheme: `1 ≤ w ≤ s`, `r ≥ s`, and `r ≥ 2`
/// for a Lobatto rule (its two end nodes). If not, the argument that breaks the rule
/// (`w` or `r`) and the rule.
pub fn admissible(kind: SchemeKind) -> Result<(), (usize, &'static str)> {
    let count = |name| {
        kind.count(name)
            .expect("the catalogue's Galerkin parameters")
    };
    let (s, w, r) = (count("S"), count("W"), count("R"));
    let lobatto = kind.arg("Q") == Some(Arg::Choice("Lobatto"));
    if w > s {
        Err((1, "the degree w of the multipliers must satisfy 1 ≤ w ≤ s"))
    } else if r < s {
        Err((3, "the quadrature must have r ≥ s nodes"))
    } else if lobatto && r < 2 {
        Err((3, "a Lobatto quadrature must have r ≥ 2 nodes"))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Given, SchemeKind};

    fn galerkin(s: usize, w: usize, rule: &str, r: usize) -> Result<(), (Option<usize>, String)> {
        let given = [
            Given::Count(s),
            Given::Count(w),
            Given::Name(rule.into()),
            Given::Count(r),
        ];
        SchemeKind::resolve("Galerkin", &given)
            .map(|_| ())
            .map_err(|e| (e.argument, e.message))
    }

    #[test]
    fn the_papers_rules_are_checked_on_the_argument_that_breaks_them() {
        assert!(galerkin(2, 2, "Gauss", 2).is_ok());
        assert!(galerkin(3, 2, "Lobatto", 3).is_ok());
        assert!(galerkin(1, 1, "Gauss", 1).is_ok());
        assert_eq!(
            galerkin(2, 3, "Gauss", 2),
            Err((
                Some(1),
                "`Galerkin(2, 3, Gauss, 2)`: the degree w of the multipliers must satisfy \
                 1 ≤ w ≤ s"
                    .into()
            ))
        );
        assert_eq!(
            galerkin(3, 2, "Gauss", 2),
            Err((
                Some(3),
                "`Galerkin(3, 2, Gauss, 2)`: the quadrature must have r ≥ s nodes".into()
            ))
        );
        assert_eq!(
            galerkin(1, 1, "Lobatto", 1),
            Err((
                Some(3),
                "`Galerkin(1, 1, Lobatto, 1)`: a Lobatto quadrature must have r ≥ 2 nodes".into()
            ))
        );
    }
}
