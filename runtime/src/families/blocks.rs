//! Block writes shared by the stage families' assemblies ([`super::prk`],
//! [`super::prk_holonomic`], [`super::prk_nonholonomic`]): a kernel (`D × D`, or a
//! `K × D` constraint matrix), or its transpose, scaled and added at a block of the
//! column-stored Jacobian, over the kernel's structural nonzeros when `model!` gave
//! them; and the blocks every family writes the same way: an equation's terms through a
//! stage position, a Legendre transform's, and a stage force's in the rows it enters.
use nalgebra::SVector;

use crate::model::Real;

/// What an assembly writes at the entries it visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// Zero: with an elimination plan, the entries the assembly adds to are zeroed
    /// first, without evaluating the kernels, instead of the whole matrix.
    Zero,
    /// The term, added.
    Add,
}

/// The stages `l` whose tableau coefficient `row[l]` is not a structural zero, with it:
/// the blocks an assembly writes, in both passes. The others are outside the plan's
/// pattern (`macros/src/emit/stage_patterns.rs`).
pub(crate) fn nonzero<const S: usize>(row: &[f64; S]) -> impl Iterator<Item = (usize, f64)> + '_ {
    row.iter().copied().enumerate().filter(|&(_, a)| a != 0.0)
}

/// A kernel of `R` rows and `C` columns in column storage (`values[c][r]` is its row
/// `r`, column `c`), with its structural nonzeros `(r, c)` if known.
#[derive(Clone, Copy)]
pub(crate) struct Kernel<'a, T, const R: usize, const C: usize> {
    pub values: &'a [[T; R]; C],
    pub pattern: Option<&'static [(u16, u16)]>,
}

impl<'a, T, const R: usize, const C: usize> Kernel<'a, T, R, C> {
    pub fn new(values: &'a [[T; R]; C], pattern: Option<&'static [(u16, u16)]>) -> Self {
        Self { values, pattern }
    }
}

impl<T: Real, const R: usize, const C: usize> Kernel<'_, T, R, C> {
    /// `y += K x`, over the pattern (every entry without one).
    pub fn add_times(&self, x: &SVector<T, C>, y: &mut SVector<T, R>) {
        match self.pattern {
            Some(pattern) => {
                for &(r, c) in pattern {
                    let (r, c) = (r as usize, c as usize);
                    y[r] += self.values[c][r] * x[c];
                }
            }
            None => {
                for (column, &xc) in self.values.iter().zip(x.iter()) {
                    for (yr, &value) in y.iter_mut().zip(column) {
                        *yr += value * xc;
                    }
                }
            }
        }
    }
}

/// The Jacobian an assembly writes (column storage), and what it writes at the entries
/// it visits: the terms, added, or (with an elimination plan, before they are added)
/// zeros at the same entries, the kernels not evaluated.
pub struct Assembly<'a, T, const N: usize> {
    jac: &'a mut [[T; N]; N],
    write: Write,
}

impl<'a, T: Real, const N: usize> Assembly<'a, T, N> {
    pub(crate) fn new(jac: &'a mut [[T; N]; N], write: Write) -> Self {
        Self { jac, write }
    }

    /// Whether this pass adds the terms, and so needs the kernels evaluated.
    pub fn adds(&self) -> bool {
        self.write == Write::Add
    }

    /// Adds `f · K` (`f · Kᵀ` if `transpose`) at rows `row…`, columns `column…`,
    /// visiting `K`'s pattern (every entry without one), or zeroes the entries it would
    /// add to. Adding skips a zero `f`; zeroing does not, so that every entry of a
    /// plan's pattern is zeroed even where a coefficient `f` computed at run time is
    /// zero (`h²` underflowing), and none keeps a value of the last factorisation. The
    /// blocks of the tableau's own zeros, which the pattern leaves out, the assemblies
    /// skip before calling this, in both passes ([`nonzero`]).
    #[inline(always)]
    pub(crate) fn add<const R: usize, const C: usize>(
        &mut self,
        (row, column): (usize, usize),
        f: T,
        kernel: Kernel<'_, T, R, C>,
        transpose: bool,
    ) {
        // One loop per pass and orientation, so that none tests them per entry: this is
        // the innermost loop of every stage assembly.
        let at = |r: usize, c: usize| {
            if transpose {
                (column + r, row + c)
            } else {
                (column + c, row + r)
            }
        };
        match (self.write, kernel.pattern) {
            (Write::Add, _) if f == T::zero() => {}
            (Write::Add, Some(pattern)) => {
                for &(r, c) in pattern {
                    let (r, c) = (r as usize, c as usize);
                    let (j, i) = at(r, c);
                    self.jac[j][i] += f * kernel.values[c][r];
                }
            }
            (Write::Add, None) => {
                for (c, values) in kernel.values.iter().enumerate() {
                    for (r, &value) in values.iter().enumerate() {
                        let (j, i) = at(r, c);
                        self.jac[j][i] += f * value;
                    }
                }
            }
            (Write::Zero, Some(pattern)) => {
                for &(r, c) in pattern {
                    let (j, i) = at(r as usize, c as usize);
                    self.jac[j][i] = T::zero();
                }
            }
            (Write::Zero, None) => {
                for c in 0..C {
                    for r in 0..R {
                        let (j, i) = at(r, c);
                        self.jac[j][i] = T::zero();
                    }
                }
            }
        }
    }

    /// Adds the identity at the `len` diagonal entries from `first` (or zeroes them).
    pub(crate) fn identity(&mut self, first: usize, len: usize) {
        for a in first..first + len {
            let target = &mut self.jac[a][a];
            match self.write {
                Write::Zero => *target = T::zero(),
                Write::Add => *target += T::one(),
            }
        }
    }

    /// The terms of an equation block's `∂/∂Vˡ` through a point `Q = x₀ + h Σₗ cₗ Vˡ`:
    /// `h cₗ K` (`h cₗ Kᵀ` if `transpose`), `K` the block's derivative with respect to
    /// `Q`, at row `row` and the columns of every `Vˡ` whose `cₗ` is not a structural
    /// zero (`l·D`, `D` the kernel's side along the coordinates).
    #[inline(always)]
    pub(crate) fn through_point<const R: usize, const C: usize, const S: usize>(
        &mut self,
        row: usize,
        (weights, h): (&[f64; S], T),
        kernel: Kernel<'_, T, R, C>,
        transpose: bool,
    ) {
        let d = if transpose { R } else { C };
        for (l, c_l) in nonzero(weights) {
            let f = h * nalgebra::convert::<f64, T>(c_l);
            self.add((row, l * d), f, kernel, transpose);
        }
    }

    /// Row block `row` of a Legendre transform `D₂L(Q, u) − …` at the point `Q` of
    /// [`through_point`](Self::through_point) and a velocity unknown `u` (columns from
    /// `u`): `h cₗ D₂₁L` on every `Vˡ` (`D₂₁L = D₁₂Lᵀ`), `D₂₂L` on `u`.
    #[inline(always)]
    pub(crate) fn legendre<const D: usize, const S: usize>(
        &mut self,
        (row, u): (usize, usize),
        point: (&[f64; S], T),
        (qv, vv): (Kernel<'_, T, D, D>, Kernel<'_, T, D, D>),
    ) {
        self.through_point(row, point, qv, true);
        self.add((row, u), T::one(), vv, false);
    }
}

/// The kernels of stage `j` at `(Qʲ, Vʲ)` as the equations its force
/// `Wʲ = D₁L(Qʲ, Vʲ) (+ R(Qʲ)ᵀ Λʲ)` enters see them, with `Qʲ = q⁰ + h Σₗ aⱼₗ Vˡ`.
#[derive(Clone, Copy)]
pub(crate) struct Stage<'a, T, const D: usize, const M: usize, const S: usize> {
    /// The stage, and row `j` of the tableau's `A`.
    pub j: usize,
    pub a_j: &'a [f64; S],
    pub h: T,
    /// `D₁₁L`, or with constraints `K_qq = D₁₁L + ∂(Rᵀ Λʲ)/∂q`.
    pub qq: Kernel<'a, T, D, D>,
    /// `D₁₂L`.
    pub qv: Kernel<'a, T, D, D>,
    /// `D₂₂L`.
    pub vv: Kernel<'a, T, D, D>,
    /// The first column of `Λʲ` and the constraint matrix `R(Qʲ)`, if `Wʲ` has them.
    pub multiplier: Option<(usize, Kernel<'a, T, M, D>)>,
    /// `∂F/∂q` and `∂F/∂v` at `(Qʲ, Vʲ, t⁰ + cⱼ h)`, if the model has forces.
    pub forcing: Option<[Kernel<'a, T, D, D>; 2]>,
}

impl<T: Real, const D: usize, const M: usize, const S: usize> Stage<'_, T, D, M, S> {
    /// Row block `row` of `D₂L(Qʲ, Vʲ) − …`: `h aⱼₗ D₂₁L(j)` on `Vˡ`, `D₂₂L(j)` on `Vʲ`.
    #[inline(always)]
    pub fn legendre<const N: usize>(&self, out: &mut Assembly<'_, T, N>, row: usize) {
        out.legendre((row, self.j * D), (self.a_j, self.h), (self.qv, self.vv));
    }

    /// Row block `row`, which `Wʲ` enters with the weight `g` (`−h g Wʲ`): `−h g (h aⱼₗ
    /// K_qq(j) + δⱼₗ D₁₂L(j))` on `Vˡ` and `−h g R(Qʲ)ᵀ` on `Λʲ`; nothing where `g` is a
    /// structural zero of the tableau. With forces, `Wʲ` has `F(Qʲ, Vʲ, t⁰ + cⱼ h)`, and
    /// `K_qq(j) + F_q(j)`, `D₁₂L(j) + F_v(j)` take those places (each added over its own
    /// pattern).
    #[inline(always)]
    pub fn force<const N: usize>(&self, out: &mut Assembly<'_, T, N>, row: usize, g: f64) {
        if g == 0.0 {
            return;
        }
        let (h, c) = (self.h, |x: f64| -> T { nalgebra::convert(x) });
        let g = -h * c(g);
        for (l, a_jl) in nonzero(self.a_j) {
            let f = g * h * c(a_jl);
            out.add((row, l * D), f, self.qq, false);
            if let Some([f_q, _]) = self.forcing {
                out.add((row, l * D), f, f_q, false);
            }
        }
        out.add((row, self.j * D), g, self.qv, false);
        if let Some([_, f_v]) = self.forcing {
            out.add((row, self.j * D), g, f_v, false);
        }
        if let Some((column, r)) = self.multiplier {
            out.add((row, column), g, r, true);
        }
    }
}
