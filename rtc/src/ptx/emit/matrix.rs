//! Warp-wide matrix instructions (`ldmatrix`, `stmatrix`, `mma.sync`) and the non-bulk
//! asynchronous copy (`cp.async`), emulated through the support header's helpers
//! (`ptx_ldmatrix`, `ptx_stmatrix`, `ptx_mma_m16n8`, `ptx_mma_m8n8k4_f64`): correct, not fast.

use super::{unsupported, Fx};
use crate::ptx::ast::{Inst, Operand, Space, Ty};
use crate::ptx::PtxError;
use std::fmt::Write;

/// The registers of a `{a, b, ...}` operand (or the one register written without braces).
fn regs(o: &Operand) -> Vec<&Operand> {
    match o {
        Operand::Vector(v) => v.iter().collect(),
        o => vec![o],
    }
}

/// An `mma.sync` form the header emulates: `ptx_mma_m16n8<K, E, NA, NB>` and its kinds.
struct MmaForm {
    /// K, elements per 32-bit register, A's and B's register counts.
    k: u32,
    e: u32,
    na: usize,
    nb: usize,
    /// Element kinds (the header's: 0 f16, 1 bf16, 2 tf32, 3 s8, 4 u8).
    ak: u32,
    bk: u32,
    /// Result kind: 0 f32, 1 f16 pairs, 2 s32, 3 s32 `.satfinite`.
    dk: u32,
}

const MMA_FORMS: &str = "translated forms: m16n8k16 and m16n8k8 .row.col .f32.f16.f16.f32, \
.f16.f16.f16.f16, .f32.bf16.bf16.f32; m16n8k8 and m16n8k4 .row.col .f32.tf32.tf32.f32; \
m16n8k32 and m16n8k16 .row.col .s32.{s8,u8}.{s8,u8}.s32 (.satfinite too); m8n8k4 .row.col \
.f64.f64.f64.f64";

impl Fx {
    /// `op` is `mma`, `ldmatrix`, `stmatrix` or `cp`.
    pub(super) fn matrix(&self, i: &Inst, op: &str, mods: &[&str]) -> Result<String, PtxError> {
        match op {
            "ldmatrix" | "stmatrix" => self.ldst_matrix(i, op == "stmatrix", mods),
            "mma" => self.mma(i, mods),
            _ => self.cp_async(i, mods),
        }
    }

    fn operand_count(i: &Inst, n: &[usize]) -> Result<(), PtxError> {
        if n.contains(&i.operands.len()) {
            return Ok(());
        }
        Err(PtxError::Syntax {
            line: i.line,
            column: i.col,
            message: format!(
                "`{}` takes {} operands, found {}",
                i.opcode,
                n.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" or "),
                i.operands.len()
            ),
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 {d..}, [p]` and
    /// `stmatrix` of the same shapes (`[p], {s..}`).
    fn ldst_matrix(&self, i: &Inst, store: bool, mods: &[&str]) -> Result<String, PtxError> {
        let (mut n, mut trans, mut space, mut sync, mut aligned, mut shape, mut b16) =
            (0usize, false, None, false, false, false, false);
        for m in mods {
            match *m {
                "sync" => sync = true,
                "aligned" => aligned = true,
                "m8n8" => shape = true,
                "x1" => n = 1,
                "x2" => n = 2,
                "x4" => n = 4,
                "trans" => trans = true,
                "shared" | "shared::cta" => space = Some(Space::Shared),
                "b16" => b16 = true,
                m => {
                    return unsupported(
                        i,
                        &format!(
                            ".{m}: only .m8n8 .x1/.x2/.x4 (.trans) .b16 in .shared is translated"
                        ),
                    )
                }
            }
        }
        if !(sync && aligned && shape && b16 && n > 0) {
            return unsupported(
                i,
                "needs .sync.aligned.m8n8, a count (.x1/.x2/.x4) and .b16",
            );
        }
        Self::operand_count(i, &[2])?;
        let (vec, mem) = if store {
            (&i.operands[1], &i.operands[0])
        } else {
            (&i.operands[0], &i.operands[1])
        };
        let rs = regs(vec);
        if rs.len() != n {
            return unsupported(i, &format!("{n} registers expected, found {}", rs.len()));
        }
        let p = self.addr(mem, space, i)?;
        let mut code = String::from("{ ptx_u32 m_[4] = {0, 0, 0, 0}; ");
        if store {
            for (k, r) in rs.iter().enumerate() {
                let _ = write!(code, "m_[{k}] = {}; ", self.src(r, Ty::B32, i)?);
            }
            let _ = write!(code, "ptx_stmatrix({n}, {trans}, (ptx_u64)({p}), m_); }}");
        } else {
            let _ = write!(code, "ptx_ldmatrix({n}, {trans}, (ptx_u64)({p}), m_); ");
            for (k, r) in rs.iter().enumerate() {
                code.push_str(&self.assign(r, &format!("m_[{k}]"), Ty::B32, i)?);
                code.push(' ');
            }
            code.push('}');
        }
        Ok(code)
    }

    /// `mma.sync.aligned.{shape}.row.col{.satfinite}.{d}.{a}.{b}.{c} d, a, b, c` in the forms
    /// [`MMA_FORMS`] lists; others (sparse `mma.sp`, fp8, other shapes and layouts) refused.
    fn mma(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let (mut sync, mut aligned, mut row_col, mut sat, mut rn) = (false, false, 0, false, false);
        let mut shape = None;
        let mut types: Vec<&str> = Vec::new();
        for m in mods {
            match *m {
                "sync" => sync = true,
                "aligned" => aligned = true,
                "row" if row_col == 0 => row_col = 1,
                "col" if row_col == 1 => row_col = 2,
                "satfinite" => sat = true,
                "rn" => rn = true,
                "m16n8k16" | "m16n8k8" | "m16n8k4" | "m16n8k32" | "m8n8k4" => shape = Some(*m),
                "f16" | "bf16" | "tf32" | "f32" | "f64" | "s8" | "u8" | "s32" => types.push(m),
                m => return unsupported(i, &format!(".{m} is not translated ({MMA_FORMS})")),
            }
        }
        let (Some(shape), true, true, 2, [d, a, b, c]) =
            (shape, sync, aligned, row_col, types.as_slice())
        else {
            return unsupported(
                i,
                &format!("needs .sync.aligned, a shape, .row.col and four types ({MMA_FORMS})"),
            );
        };
        let kind = |t: &str| match t {
            "f16" => Some(0),
            "bf16" => Some(1),
            "tf32" => Some(2),
            "s8" => Some(3),
            "u8" => Some(4),
            _ => None,
        };
        let int = matches!(*a, "s8" | "u8") && matches!(*b, "s8" | "u8");
        let dk = match (*d, *c, int) {
            ("s32", "s32", true) => 2 + u32::from(sat),
            ("f32", "f32", false) if a == b && !sat => 0,
            ("f16", "f16", false) if *a == "f16" && *b == "f16" && !sat => 1,
            ("f64", "f64", false) if [*a, *b] == ["f64", "f64"] && shape == "m8n8k4" && !sat => {
                return self.mma_f64(i);
            }
            _ => {
                return unsupported(
                    i,
                    &format!("this type combination is not translated ({MMA_FORMS})"),
                )
            }
        };
        if rn {
            return unsupported(i, ".rn is an .f64 form's");
        }
        let (Some(ak), Some(bk)) = (kind(a), kind(b)) else {
            return unsupported(i, MMA_FORMS);
        };
        let form = match (shape, ak) {
            ("m16n8k16", 0 | 1) => (16, 2, 4, 2),
            ("m16n8k8", 0 | 1) => (8, 2, 2, 1),
            ("m16n8k8", 2) => (8, 1, 4, 2),
            ("m16n8k4", 2) => (4, 1, 2, 1),
            ("m16n8k32", 3 | 4) => (32, 4, 4, 2),
            ("m16n8k16", 3 | 4) => (16, 4, 2, 1),
            _ => {
                return unsupported(
                    i,
                    &format!("this shape of these types is not translated ({MMA_FORMS})"),
                )
            }
        };
        let f = MmaForm {
            k: form.0,
            e: form.1,
            na: form.2,
            nb: form.3,
            ak,
            bk,
            dk,
        };
        self.mma_m16n8(i, &f)
    }

    fn mma_m16n8(&self, i: &Inst, f: &MmaForm) -> Result<String, PtxError> {
        Self::operand_count(i, &[4])?;
        let o = &i.operands;
        let nd = if f.dk == 1 { 2 } else { 4 };
        let (d, a, b, c) = (regs(&o[0]), regs(&o[1]), regs(&o[2]), regs(&o[3]));
        if d.len() != nd || a.len() != f.na || b.len() != f.nb || c.len() != nd {
            return unsupported(
                i,
                &format!(
                    "operand sizes: d and c take {nd} registers, a {}, b {}",
                    f.na, f.nb
                ),
            );
        }
        let list = |v: &[&Operand]| -> Result<String, PtxError> {
            let parts: Result<Vec<String>, PtxError> =
                v.iter().map(|r| self.src(r, Ty::B32, i)).collect();
            Ok(parts?.join(", "))
        };
        let mut code = format!(
            "{{ ptx_u32 a_[{}] = {{{}}}; ptx_u32 b_[{}] = {{{}}}; ptx_u32 c_[4] = {{{}}}; ptx_u32 d_[4]; ptx_mma_m16n8<{}, {}, {}, {}>({}, {}, {}, a_, b_, c_, d_); ",
            f.na,
            list(&a)?,
            f.nb,
            list(&b)?,
            list(&c)?,
            f.k,
            f.e,
            f.na,
            f.nb,
            f.ak,
            f.bk,
            f.dk
        );
        for (k, r) in d.iter().enumerate() {
            code.push_str(&self.assign(r, &format!("d_[{k}]"), Ty::B32, i)?);
            code.push(' ');
        }
        code.push('}');
        Ok(code)
    }

    /// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a}, {b}, {c0, c1}`.
    fn mma_f64(&self, i: &Inst) -> Result<String, PtxError> {
        Self::operand_count(i, &[4])?;
        let o = &i.operands;
        let (d, a, b, c) = (regs(&o[0]), regs(&o[1]), regs(&o[2]), regs(&o[3]));
        if d.len() != 2 || a.len() != 1 || b.len() != 1 || c.len() != 2 {
            return unsupported(i, "operand sizes: d and c take 2 registers, a and b 1");
        }
        let words = |v: &[&Operand]| -> Result<String, PtxError> {
            let mut w = Vec::new();
            for r in v {
                let x = self.src(r, Ty::B64, i)?;
                w.push(format!("(ptx_u32)({x}), (ptx_u32)(({x}) >> 32)"));
            }
            Ok(w.join(", "))
        };
        let mut code = format!(
            "{{ ptx_u32 a_[2] = {{{}}}; ptx_u32 b_[2] = {{{}}}; ptx_u32 c_[4] = {{{}}}; ptx_u32 d_[4]; ptx_mma_m8n8k4_f64(a_, b_, c_, d_); ",
            words(&a)?,
            words(&b)?,
            words(&c)?
        );
        for (k, r) in d.iter().enumerate() {
            let v = format!("((ptx_u64)d_[{}] << 32 | d_[{}])", 2 * k + 1, 2 * k);
            code.push_str(&self.assign(r, &v, Ty::B64, i)?);
            code.push(' ');
        }
        code.push('}');
        Ok(code)
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global{.L2::...} [dst], [src], size{, src_size | ignore}`
    /// (and `{, policy}` with `.L2::cache_hint`), `cp.async.commit_group`,
    /// `cp.async.wait_group N`, `cp.async.wait_all`. The copy is done when issued (zero-filling
    /// past `src_size`, or all of it when the ignore-src predicate is true): a copy that
    /// completes early is one of the schedules PTX allows, so committing and waiting have
    /// nothing left to do. The kernel's own barriers order it for other threads, as on NVIDIA.
    fn cp_async(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        if mods.first() != Some(&"async") {
            return unsupported(i, "only cp.async (non-bulk) is translated");
        }
        match &mods[1..] {
            ["commit_group"] | ["wait_all"] => {
                Self::operand_count(i, &[0])?;
                return Ok("(void)0; // the copies are done".into());
            }
            ["wait_group"] => {
                Self::operand_count(i, &[1])?;
                if !matches!(i.operands[0], Operand::Int(_)) {
                    return unsupported(i, "wait_group takes an integer constant");
                }
                return Ok("(void)0; // the copies are done".into());
            }
            _ => {}
        }
        let (mut cache, mut dst, mut src, mut hint) = (false, false, false, false);
        let mut cg = false;
        for m in &mods[1..] {
            match *m {
                "ca" => cache = true,
                "cg" => (cache, cg) = (true, true),
                "shared" | "shared::cta" => dst = true,
                "global" => src = true,
                "L2::cache_hint" => hint = true,
                "L2::64B" | "L2::128B" | "L2::256B" => {}
                m => {
                    return unsupported(
                        i,
                        &format!(".{m} is not translated: of cp.async, only the non-bulk .ca/.cg copies from .global to .shared, commit_group and wait_group/wait_all (bulk copies, TMA and mbarrier completion are refused)"),
                    )
                }
            }
        }
        if !(cache && dst && src) {
            return unsupported(i, "cp.async needs .ca or .cg, .shared and .global");
        }
        let o = &i.operands;
        let n = o.len() - usize::from(hint && o.len() > 3);
        if !(3..=4).contains(&n) {
            return Self::operand_count(i, &[3, 4, 5]).and_then(|()| {
                unsupported(
                    i,
                    "cp.async takes [dst], [src], size and an optional source size",
                )
            });
        }
        let size = match o[2] {
            Operand::Int(s @ (4 | 8 | 16)) if !cg || s == 16 => s,
            _ => return unsupported(i, "the copy size is 4, 8 or 16 (16 for .cg)"),
        };
        let d = self.addr(&o[0], Some(Space::Shared), i)?;
        let s = self.addr(&o[1], Some(Space::Global), i)?;
        let limit = if n == 4 {
            let pred = matches!(&o[3], Operand::Name(r) | Operand::Not(r)
                if matches!(self.syms.get(r.as_str()), Some(super::Sym::Reg(Ty::Pred))));
            if pred {
                format!("({} ? 0u : {size}u)", self.src(&o[3], Ty::Pred, i)?)
            } else {
                self.src(&o[3], Ty::U32, i)?
            }
        } else {
            format!("{size}u")
        };
        Ok(format!(
            "{{ unsigned char* d_ = {d}; const unsigned char* s_ = {s}; ptx_u32 n_ = {limit}; for (ptx_u32 k_ = 0; k_ < {size}u; ++k_) d_[k_] = k_ < n_ ? s_[k_] : (unsigned char)0; }}"
        ))
    }
}
