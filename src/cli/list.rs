//! `livens list`: the catalogue as three small tables.
use super::catalogue::MODELS;
use super::schemes::{all_schemes, scheme_list, SchemeEntry};
use super::table::aligned;
use super::times::fmt_time;

/// A row of the schemes' table, its name after `indent`.
fn scheme_row(s: &SchemeEntry, indent: &str) -> Vec<String> {
    vec![
        format!("{indent}{}", s.name),
        s.label.clone(),
        s.order_text(),
        if s.conserves_energy {
            "conserved"
        } else {
            "not conserved"
        }
        .to_owned(),
        if s.symplectic { "yes" } else { "no" }.to_owned(),
    ]
}

/// The text `livens list` prints.
pub fn render() -> String {
    let mut models = vec![[
        "model",
        "type",
        "coords",
        "constraints",
        "momentum maps",
        "default h",
        "default T",
        "schemes",
    ]
    .map(String::from)
    .to_vec()];
    let mut parameters = Vec::new();
    for m in MODELS.iter() {
        let info = (m.describe)();
        models.push(vec![
            m.name.to_owned(),
            m.type_name.to_owned(),
            info.coordinates.to_string(),
            match info.nonholonomic.len() {
                0 => info.constraints.to_string(),
                k => format!("{} + {k} nonholonomic", info.constraints),
            },
            if info.momentum_maps.is_empty() {
                "-".to_owned()
            } else {
                info.momentum_maps.join(", ")
            },
            fmt_time(m.default_step),
            fmt_time(m.default_span),
            scheme_list(&m.schemes),
        ]);
        let values: Vec<String> = info
            .parameters
            .iter()
            .map(|(name, value)| format!("{name} = {value}"))
            .collect();
        parameters.push(vec![m.name.to_owned(), values.join(", ")]);
    }

    let mut schemes = vec![["scheme", "label", "order", "energy", "symplectic"]
        .map(String::from)
        .to_vec()];
    for s in all_schemes() {
        schemes.push(scheme_row(&s, ""));
        if s.order_by_instance() {
            // `Galerkin(2, 2, Gauss, 2)`: each instance a model declares, with its order.
            let marker = s.name.split('(').next().unwrap_or_default();
            let mut seen = Vec::new();
            for instance in MODELS.iter().flat_map(|m| &m.schemes) {
                let of_marker = instance.name.split('(').next() == Some(marker);
                if of_marker && !seen.contains(&&instance.name) {
                    seen.push(&instance.name);
                    schemes.push(scheme_row(instance, "  "));
                }
            }
        }
    }

    format!(
        "Models (livens run MODEL --scheme S, livens compare MODEL --schemes A,B):\n\n{}\n\
         Schemes (by name or label, case-insensitive):\n\n{}\n\
         Parameters (--param NAME=VALUE), with their defaults:\n\n{}",
        aligned(&models),
        aligned(&schemes),
        aligned(&parameters)
    )
}
