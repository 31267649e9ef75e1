//! The schemes as the command names and lists them, read from the library's catalogue.
use livens::schemes::info::{Energy, Entry, MassRequirement, ModelRequirement};
use livens::schemes::CATALOGUE;
use livens::{Orders, SchemeInfo};

/// One scheme as the command names it: its marker type (with its stage count) and its
/// [`SchemeInfo`].
#[derive(Debug, PartialEq, Eq)]
pub struct SchemeEntry {
    /// The name on the command line: the marker type's, with the stage count of a
    /// staged scheme, e.g. `GglEm`, `LobattoIIIAIIIB(3)`.
    pub name: String,
    /// The papers' label, e.g. `EM`.
    pub label: String,
    /// Convergence orders; `None` for a catalogue entry whose orders depend on a stage
    /// count not yet chosen.
    pub order: Option<Orders>,
    /// Conserves the energy to round-off.
    pub conserves_energy: bool,
    /// Symplectic.
    pub symplectic: bool,
    /// Holds `g(q) = 0` at the nodes (as one of its equations), rather than at
    /// midpoints or at `q^θ` (the catalogue's `constraints_at_nodes`).
    pub holds_constraints_at_nodes: bool,
    /// The energy the command reports is the generalized one, `E = p·v − T + V` with the
    /// state's own `v` (eq. (74) of the Livens paper), rather than `H(q, p)`: for the
    /// schemes that never invert the mass matrix, whose `p` and `v` are independent.
    pub generalized_energy: bool,
    /// The state's `v` is `M₄⁻¹ p` (the Hamiltonian rigid-body schemes MPH and EMH, the
    /// Livens paper's footnote 5), so that `E` is their Hamiltonian `H = T* + V` wherever
    /// `q·v = 0`.
    pub hamiltonian_velocity: bool,
    /// Assembled from the point kernels with stages (the catalogue's `Prk` family): its
    /// forces act at the stages, so the command integrates their work with a quadrature
    /// of higher order than the midpoint rule the energy–momentum schemes balance.
    pub stage_family: bool,
    /// A converted scheme (seed 004): its state is the node `(x_k, p_k)`, and the
    /// standard layer's segment state `(q, v)`, which sits elsewhere in the step, is not
    /// written.
    pub node_form: bool,
}

impl SchemeEntry {
    /// The entry of marker type `S`.
    pub fn of<S: SchemeInfo>() -> Self {
        // `Lobatto IIIA-IIIB s=3`: the label with each parameter by its lower-case name.
        let mut label = S::LABEL.to_owned();
        for (param, arg) in S::ENTRY.params.iter().zip(S::ARGS) {
            label.push_str(&format!(" {}={arg}", param.name.to_lowercase()));
        }
        let name = S::INSTANCE.to_string();
        Self {
            name,
            label,
            order: Some(S::ORDER),
            conserves_energy: S::CONSERVES_ENERGY,
            symplectic: S::SYMPLECTIC,
            holds_constraints_at_nodes: S::ENTRY.constraints_at_nodes,
            generalized_energy: S::ENTRY.requires.mass == MassRequirement::Any,
            hamiltonian_velocity: S::ENTRY.requires.model == ModelRequirement::RigidBody,
            stage_family: S::ENTRY.family == "Prk",
            node_form: S::ENTRY.family.starts_with("Converted"),
        }
    }

    /// A catalogue row, its parameters (if any) left open as `(s)`, `(s, w, r)`.
    pub fn of_entry(entry: &Entry) -> Self {
        let params: Vec<String> = entry.params.iter().map(|p| p.name.to_lowercase()).collect();
        let name = if params.is_empty() {
            entry.name.to_owned()
        } else {
            format!("{}({})", entry.name, params.join(", "))
        };
        Self {
            name,
            label: entry.label.to_owned(),
            order: None,
            conserves_energy: entry.energy == Energy::Exact,
            symplectic: entry.symplectic,
            holds_constraints_at_nodes: entry.constraints_at_nodes,
            generalized_energy: entry.requires.mass == MassRequirement::Any,
            hamiltonian_velocity: entry.requires.model == ModelRequirement::RigidBody,
            stage_family: entry.family == "Prk",
            node_form: entry.family.starts_with("Converted"),
        }
    }

    /// `GglEm (EM)`.
    pub fn display(&self) -> String {
        format!("{} ({})", self.name, self.label)
    }

    /// The order in `q` as `livens list` shows it: `2`, or the catalogue's formula, or
    /// for a formula that calls a function of the library (the Galerkin schemes'
    /// tables) `by instance`: the rows of the instances the models declare follow.
    pub fn order_text(&self) -> String {
        match self.order {
            Some(o) if o.q == o.p => o.q.to_string(),
            Some(o) => format!("q {}, p {}", o.q, o.p),
            None if self.order_by_instance() => "by instance".to_owned(),
            None => self
                .catalogue_entry()
                .map_or_else(String::new, |e| e.order.q.replace(" * ", "").to_lowercase()),
        }
    }

    /// Whether the catalogue's order formula is a function's table rather than a
    /// formula `livens list` can show (`galerkin_order(S, W, Q, R)`).
    pub fn order_by_instance(&self) -> bool {
        self.catalogue_entry()
            .is_some_and(|e| e.order.q.contains('('))
    }

    /// The catalogue row of this scheme or instance.
    fn catalogue_entry(&self) -> Option<&'static Entry> {
        let marker = self.name.split('(').next().unwrap_or_default();
        CATALOGUE.iter().copied().find(|e| e.name == marker)
    }
}

/// Every scheme of the library's catalogue, in its order.
pub fn all_schemes() -> Vec<SchemeEntry> {
    CATALOGUE.iter().map(|e| SchemeEntry::of_entry(e)).collect()
}

/// `GglEm (EM), GglViA (VI-A)`.
pub fn scheme_list<'a>(schemes: impl IntoIterator<Item = &'a SchemeEntry>) -> String {
    schemes
        .into_iter()
        .map(SchemeEntry::display)
        .collect::<Vec<_>>()
        .join(", ")
}
