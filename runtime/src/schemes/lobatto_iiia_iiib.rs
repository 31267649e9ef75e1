use crate::model::SchemeInfo;

/// The variational partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair with `S`
/// stages (Martín de Diego, Sato Martín de Almagro, "High-order geometric methods for
/// nonholonomic mechanical systems", Thm 4.2, eq. (9); spec 002 S1), for unconstrained
/// models with any regular Lagrangian:
///
/// ```text
/// q¹ = q⁰ + h Σⱼ bⱼ Vʲ,            p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ
/// Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ,           Pⁱ = p⁰ + h Σⱼ âᵢⱼ Wʲ
/// Wⁱ = D₁L(Qⁱ, Vⁱ),                Pⁱ = D₂L(Qⁱ, Vⁱ)
/// ```
///
/// Unknowns: the stage velocities `V¹ … Vˢ` (`S·d`); the residual is
/// `Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ D₁L(Qʲ, Vʲ)`. The step is assembled at run time from
/// the model's point kernels with its exact block Jacobian, for any `S ≥ 2`.
///
/// Properties: order `2S − 2` in `q` and `p`; symplectic; conserves the momentum maps of
/// the Lagrangian's symmetries; at `S = 2` it is the Störmer–Verlet method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LobattoIIIAIIIB<const S: usize>;

impl<const S: usize> SchemeInfo for LobattoIIIAIIIB<S> {
    const LABEL: &'static str = "Lobatto IIIA-IIIB";
    const ORDER: u32 = 2 * S as u32 - 2;
    const CONSERVES_ENERGY: bool = false;
    const SYMPLECTIC: bool = true;
}
