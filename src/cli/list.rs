//! `livens list`: the catalogue as three small tables.
use super::catalogue::MODELS;
use super::schemes::{all_schemes, scheme_list};
use super::table::aligned;
use super::times::fmt_time;

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
        schemes.push(vec![
            s.name.clone(),
            s.label.clone(),
            s.order_text(),
            if s.conserves_energy {
                "conserved"
            } else {
                "not conserved"
            }
            .to_owned(),
            if s.symplectic { "yes" } else { "no" }.to_owned(),
        ]);
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
