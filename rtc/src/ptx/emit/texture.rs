//! Textures and surfaces through their objects (`tex`, `tld4`, `suld.b`, `sust.b` on a 64-bit
//! handle in a register, as nvcc and NVVM write `cudaTextureObject_t` and `cudaSurfaceObject_t`
//! code), mapped onto the object functions HIP and CUDA share by name (`tex2D<T>`,
//! `tex1Dfetch<T>`, `tex2Dgather<T>`, `surf2Dread`, ...) through the support header's
//! `PTX_IMG`, `PTX_SULD` and `PTX_SUST`, which also turn them into traps on AMD GPUs without
//! image instructions. References (`.texref`, `.samplerref`, `.surfref`), queries (`txq`,
//! `suq`), surface reductions (`sured`) and the forms HIP has no function for are refused.

use super::{unsupported, Fx, Sym};
use crate::ptx::ast::{Inst, Operand, Ty};
use crate::ptx::PtxError;

/// Malformed operands of a texture or surface instruction: invalid PTX, with its place.
fn malformed<T>(i: &Inst, m: &str) -> Result<T, PtxError> {
    Err(PtxError::Syntax {
        line: i.line,
        column: i.col,
        message: format!("`{}`: {m}", i.opcode),
    })
}

/// A geometry: how many coordinates it takes (fewest, most: a `.v4` may carry padding) and
/// whether the first is an array layer.
fn geometry(g: &str) -> Option<(usize, usize, bool)> {
    Some(match g {
        "1d" => (1, 1, false),
        "2d" => (2, 2, false),
        "3d" => (3, 4, false),
        "a1d" => (2, 2, true),
        "a2d" => (3, 4, true),
        "cube" => (3, 4, false),
        "acube" => (4, 4, true),
        _ => return None,
    })
}

impl Fx {
    /// `op` is `tex`, `tld4`, `txq`, `suld`, `sust`, `suq`, `sured` or `istypep`.
    pub(super) fn texture(&self, i: &Inst, op: &str, mods: &[&str]) -> Result<String, PtxError> {
        match op {
            "tex" | "tld4" => self.tex(i, op == "tld4", mods),
            "suld" | "sust" => self.surface(i, op == "sust", mods),
            "txq" | "suq" => unsupported(
                i,
                "texture and surface queries are not translated: HIP has no device function \
                 that reads an object's size or format (pass the sizes as kernel arguments)",
            ),
            "sured" => unsupported(
                i,
                "surface reductions are not translated: HIP has no surface atomics",
            ),
            _ => unsupported(i, "not in the translator's instruction set"),
        }
    }

    /// The object in `handle`: a 64-bit register (a `.texref` or `.surfref` name is a
    /// reference, refused).
    fn object(&self, handle: &str, i: &Inst) -> Result<String, PtxError> {
        match self.syms.get(handle) {
            Some(Sym::Reg(t)) if t.size() == 8 => Ok(self.reg(handle, Ty::U64, i)?),
            Some(Sym::Reg(_)) => malformed(i, "a texture or surface object is a 64-bit register"),
            Some(Sym::Var(_)) | Some(Sym::Func) | None if !handle.starts_with('%') => unsupported(
                i,
                &format!(
                    "`{handle}` is a texture or surface reference: references are not \
                     translated, objects (a 64-bit register) are"
                ),
            ),
            _ => self.reg(handle, Ty::U64, i),
        }
    }

    /// `tex{.base,.level,.grad}.geom.v4.dtype.ctype d, [a, c] {, lod | dPdx, dPdy}` and
    /// `tld4.comp.2d.v4.dtype.f32 d, [a, c]`.
    fn tex(&self, i: &Inst, tld4: bool, mods: &[&str]) -> Result<String, PtxError> {
        let (mut geom, mut mip, mut comp, mut v4) = (None, None, None, false);
        let mut types = Vec::new();
        for m in mods {
            match *m {
                "base" | "level" | "grad" if !tld4 => mip = Some(*m),
                "r" | "g" | "b" | "a" if tld4 => comp = Some(["r", "g", "b", "a"].iter().position(|c| c == m).unwrap_or(0)),
                "v4" => v4 = true,
                "2dms" | "a2dms" => {
                    return unsupported(i, "multisample textures are not translated: HIP has no function for them")
                }
                "v2" => return unsupported(i, "`.v2.f16x2` texture results are not translated (`.v4` with .f32, .s32, .u32 are)"),
                g if geometry(g).is_some() => geom = Some(g),
                m => match Ty::from_suffix(m) {
                    Some(t) => types.push(t),
                    None => return unsupported(i, &format!("the modifier .{m} is not translated")),
                },
            }
        }
        let (Some(geom), true, [dt, ct]) = (geom, v4, types.as_slice()) else {
            return malformed(i, "expected .geom.v4.dtype.ctype");
        };
        let (vt, rt) = match dt {
            Ty::F32 => ("float4", Ty::F32),
            Ty::S32 => ("int4", Ty::S32),
            Ty::U32 => ("uint4", Ty::U32),
            _ => {
                return unsupported(
                    i,
                    "texture results are .f32, .s32 or .u32 (.f16 is not translated)",
                )
            }
        };
        if !matches!(ct, Ty::F32 | Ty::S32) {
            return malformed(i, "texture coordinates are .f32 or .s32");
        }
        let o = &i.operands;
        let (
            Some(dst),
            Some(Operand::Tex {
                handle,
                sampler,
                coords,
            }),
        ) = (o.first(), o.get(1))
        else {
            return malformed(i, "expected `d, [a, c]`");
        };
        if sampler.is_some() {
            return unsupported(
                i,
                "an explicit sampler (independent texture mode) is not translated",
            );
        }
        let extra = match mip {
            Some("level") => 1,
            Some("grad") => 2,
            _ => 0,
        };
        if o.len() > 2 + extra {
            return unsupported(i, "texel offsets and depth comparison are not translated");
        }
        if o.len() < 2 + extra {
            return malformed(i, "missing operands");
        }
        let Operand::Vector(d) = dst else {
            return malformed(i, "the result is a vector of four registers");
        };
        if d.len() != 4 {
            return malformed(i, "the result is a vector of four registers");
        }
        let (min, max, layered) = geometry(geom).unwrap_or((1, 1, false));
        if coords.len() < min || coords.len() > max {
            return malformed(i, &format!(".{geom} takes {min} coordinates"));
        }
        let obj = format!("PTX_TEXOBJ({})", self.object(handle, i)?);
        let call = if *ct == Ty::S32 {
            // Integer coordinates: what nvcc writes for tex1Dfetch (an object over linear
            // memory). HIP and CUDA have no integer-coordinate fetch from an array.
            if geom != "1d" || mip.is_some() || tld4 {
                return unsupported(
                    i,
                    "integer texture coordinates are translated for tex.1d (tex1Dfetch) only",
                );
            }
            format!(
                "tex1Dfetch<{vt}>, ({obj}, {})",
                self.src(&coords[0], Ty::S32, i)?
            )
        } else {
            let (layer, xs) = if layered {
                (Some(self.src(&coords[0], Ty::S32, i)?), &coords[1..])
            } else {
                (None, &coords[..])
            };
            let n = match geom {
                "1d" | "a1d" => 1,
                "2d" | "a2d" => 2,
                _ => 3,
            };
            let mut args = vec![obj];
            for c in &xs[..n] {
                args.push(self.src(c, Ty::F32, i)?);
            }
            args.extend(layer);
            let base = match geom {
                "1d" => "tex1D",
                "2d" => "tex2D",
                "3d" => "tex3D",
                "a1d" => "tex1DLayered",
                "a2d" => "tex2DLayered",
                "cube" => "texCubemap",
                _ => "texCubemapLayered",
            };
            let f = match (tld4, mip) {
                (true, _) => {
                    if geom != "2d" {
                        return unsupported(i, "tld4 is translated for .2d (tex2Dgather)");
                    }
                    args.push(comp.unwrap_or(0).to_string());
                    "tex2Dgather".to_owned()
                }
                (false, None) => base.to_owned(),
                (false, Some("base")) => {
                    args.push("0.0f".into());
                    format!("{base}Lod")
                }
                (false, Some("level")) => {
                    args.push(self.src(&o[2], Ty::F32, i)?);
                    format!("{base}Lod")
                }
                (false, _) => {
                    if geom.contains("cube") {
                        return unsupported(i, "tex.grad on cube maps is not translated");
                    }
                    for g in &o[2..4] {
                        let g: Vec<&Operand> = match g {
                            Operand::Vector(v) => v.iter().collect(),
                            g => vec![g],
                        };
                        if g.len() < n || g.len() > if n == 3 { 4 } else { n } {
                            return malformed(i, "gradients have one component per dimension");
                        }
                        let g: Vec<String> = g[..n]
                            .iter()
                            .map(|c| self.src(c, Ty::F32, i))
                            .collect::<Result<_, _>>()?;
                        args.push(match n {
                            1 => g[0].clone(),
                            2 => format!("make_float2({}, {})", g[0], g[1]),
                            _ => format!("make_float4({}, {}, {}, 0.0f)", g[0], g[1], g[2]),
                        });
                    }
                    format!("{base}Grad")
                }
            };
            format!("{f}<{vt}>, ({})", args.join(", "))
        };
        let mut code = format!("{{ {vt} t_ = PTX_IMG({vt}, {call}); ");
        for (e, c) in d.iter().zip(["x", "y", "z", "w"]) {
            if *e != Operand::Sink {
                code.push_str(&self.assign(e, &format!("t_.{c}"), rt, i)?);
                code.push(' ');
            }
        }
        code.push('}');
        Ok(code)
    }

    /// `suld.b.geom{.cop}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.zero} d, [a, c]` and
    /// `sust.b...` `[a, c], v`; the x coordinate counts bytes, as in CUDA.
    fn surface(&self, i: &Inst, store: bool, mods: &[&str]) -> Result<String, PtxError> {
        let (mut geom, mut n, mut w, mut mode, mut binary) =
            (None, 1usize, None, "cudaBoundaryModeTrap", false);
        for m in mods {
            match *m {
                "b" => binary = true,
                "p" => {
                    return unsupported(
                        i,
                        "formatted surface stores (`sust.p`) are not translated (`.b` is)",
                    )
                }
                "v2" => n = 2,
                "v4" => n = 4,
                "b8" => w = Some(1),
                "b16" => w = Some(2),
                "b32" => w = Some(4),
                "b64" => w = Some(8),
                "trap" => mode = "cudaBoundaryModeTrap",
                "zero" => mode = "cudaBoundaryModeZero",
                "clamp" => {
                    return unsupported(
                        i,
                        "`.clamp` surface accesses are not translated: AMD's image hardware \
                         answers zero outside the surface, and HIP cannot read its size to clamp",
                    )
                }
                "ca" | "cg" | "cs" | "cv" | "wb" | "wt" => {}
                g if geometry(g).is_some() => geom = Some(g),
                m => return unsupported(i, &format!("the modifier .{m} is not translated")),
            }
        }
        let (true, Some(geom), Some(w)) = (binary, geom, w) else {
            return malformed(i, "expected .b.geom{.v2,.v4}.{b8,b16,b32,b64}");
        };
        if n * w > 16 {
            return malformed(i, "a surface access is at most 16 bytes");
        }
        let (f, (min, max, layered)) = match geom {
            "1d" => ("surf1D", (1, 1, false)),
            "2d" => ("surf2D", (2, 2, false)),
            "3d" => ("surf3D", (3, 4, false)),
            "a1d" => ("surf1DLayered", (2, 2, true)),
            "a2d" => ("surf2DLayered", (3, 4, true)),
            _ => return unsupported(i, "cube-map surfaces are not translated"),
        };
        let o = &i.operands;
        if o.len() != 2 {
            return malformed(i, "takes 2 operands");
        }
        let (mem, val) = if store {
            (&o[0], &o[1])
        } else {
            (&o[1], &o[0])
        };
        let Operand::Tex {
            handle,
            sampler: None,
            coords,
        } = mem
        else {
            return malformed(i, "expected `[a, {x, ...}]`");
        };
        if coords.len() < min || coords.len() > max {
            return malformed(i, &format!(".{geom} takes {min} coordinates"));
        }
        let vals: Vec<&Operand> = match val {
            Operand::Vector(v) => v.iter().collect(),
            v => vec![v],
        };
        if vals.len() != n {
            return malformed(i, "vector width and operand count differ");
        }
        let (layer, xs) = if layered {
            (Some(&coords[0]), &coords[1..])
        } else {
            (None, &coords[..])
        };
        let dims = max.min(3) - usize::from(layered);
        let mut args = vec![
            mode.to_owned(),
            format!("PTX_SURFOBJ({})", self.object(handle, i)?),
        ];
        for c in xs.iter().take(dims).chain(layer) {
            args.push(self.src(c, Ty::S32, i)?);
        }
        let args = args.join(", ");
        if store {
            let mut v = Vec::new();
            for e in &vals {
                v.push(match e {
                    Operand::Sink => "0".to_owned(),
                    e => self.src(e, Ty::U64, i)?,
                });
            }
            Ok(format!(
                "{{ ptx_u64 s_[4] = {{{}}}; PTX_SUST({w}, {n}, s_, {f}write, {args}); }}",
                v.join(", ")
            ))
        } else {
            let mut code = format!("{{ ptx_u64 s_[4]; PTX_SULD({w}, {n}, s_, {f}read, {args}); ");
            for (k, e) in vals.iter().enumerate() {
                if **e != Operand::Sink {
                    code.push_str(&self.assign(e, &format!("s_[{k}]"), Ty::U64, i)?);
                    code.push(' ');
                }
            }
            code.push('}');
            Ok(code)
        }
    }
}
