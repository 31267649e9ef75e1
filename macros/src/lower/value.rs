//! The values the DSL's expressions lower to.
use crate::sym::Id;

/// A lowered value: a scalar, a vector or a (row-major) matrix of graph nodes, or an
/// array of coordinates (`r: [Vec3; 10]`), which only an index (`r[i]`) may take apart.
#[derive(Clone, Debug)]
pub enum Val {
    S(Id),
    V(Vec<Id>),
    M(usize, usize, Vec<Id>),
    A(Vec<Val>),
}

impl Val {
    pub fn shape(&self) -> String {
        match self {
            Val::S(_) => "a scalar".into(),
            Val::V(v) => format!("a {}-vector", v.len()),
            Val::M(r, c, _) => format!("a {r}×{c} matrix"),
            Val::A(items) => format!("an array of {} {}", items.len(), element_kind(items)),
        }
    }

    /// Every graph node of the value.
    pub fn ids(&self) -> Vec<Id> {
        match self {
            Val::S(x) => vec![*x],
            Val::V(xs) | Val::M(_, _, xs) => xs.clone(),
            Val::A(items) => items.iter().flat_map(Val::ids).collect(),
        }
    }
}

/// What an array holds, in the plural, for messages.
pub fn element_kind(items: &[Val]) -> String {
    match items.first() {
        Some(Val::S(_)) => "scalars".into(),
        Some(Val::V(v)) => format!("{}-vectors", v.len()),
        _ => "values".into(),
    }
}
