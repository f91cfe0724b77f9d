//! PTX to HIP C++: the translator that lets precompiled CUDA code (PTX) run on AMD GPUs through
//! hipRTC (issue 26, its first slice: not yet wired into module loading).
//!
//! [`parse`] reads PTX text (ISA 6.x-8.x, as nvcc and NVVM of CUDA 11-13 write it) into a
//! [`Module`]; [`translate`] turns it into HIP C++: the support header ([`SUPPORT_HEADER`])
//! first, then one `extern "C" __global__` function per `.entry` and one `__device__` function
//! per `.func`, registers as typed locals, branches as `goto`, predicates as `bool`. The C++
//! compiles with hipRTC (AMD) and with NVRTC (HIP's NVIDIA platform), so the same translation
//! can be run and compared with NVIDIA's own result.
//!
//! What is supported keeps CUDA's semantics exactly (the header says how: rounding modes,
//! `.ftz`, `.sat`, canonical NaNs, integer edge cases). Anything else is refused with
//! [`PtxError::Unsupported`], naming the instruction and its line: never a silent drop, never
//! a guess. Warp-level instructions (`shfl`, `vote`, `match`, `redux`, `activemask`) keep
//! CUDA's 32-lane warps on both AMD wavefront widths (on wave64, two warps per wavefront, each
//! confined to its half). `ldmatrix`, `stmatrix`, `mma.sync` (the sm_80 forms nvcc and NVVM
//! emit) and the non-bulk `cp.async` are emulated, correctly and slowly, on the same warp
//! helpers. [`translate_all`] links several modules into one translation. See
//! `docs/ptx-on-amd.md`.

mod ast;
mod emit;
mod header;
mod lex;
mod parse;

pub use ast::{Function, Inst, Linkage, Module, Operand, Param, Space, Stmt, Ty, VarDecl};
pub use header::SUPPORT_HEADER;
pub use parse::parse;

/// The translator's version: part of the future program-cache key (a new translator never
/// reuses an older one's compiled code). Bump it whenever the emitted C++ changes.
pub const TRANSLATOR_VERSION: u32 = 12;

/// Why PTX was not translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PtxError {
    /// Malformed PTX (or PTX this parser does not read), with where.
    #[error("PTX syntax error at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What was wrong.
        message: String,
    },
    /// A well-formed instruction (or declaration) the translator does not translate.
    #[error("PTX line {line}: `{instruction}` is not supported by the PTX translator: {reason}")]
    Unsupported {
        /// The instruction with its modifiers, as written (`shfl.sync.bfly.b32`).
        instruction: String,
        /// 1-based line.
        line: u32,
        /// Why, and what would be needed.
        reason: String,
    },
}

/// A translated module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The HIP C++ source: [`SUPPORT_HEADER`], then the module (or modules).
    pub source: String,
    /// The kernels (`.entry` names), in the PTX's order (module after module); each is an
    /// `extern "C"` symbol of the compiled code.
    pub entries: Vec<String>,
    /// The PTX's `.target` (`sm_90`, ...); of several modules, each target once.
    pub target: Vec<String>,
    /// The PTX's `.version` (of several modules, the first's).
    pub version: String,
    /// The first texture or surface instruction (`tex`, `tld4`, `suld`, `sust`): its module's
    /// index, the instruction as written and its line, if there is one. An AMD GPU without image
    /// instructions (CDNA2/3) cannot run it, and its loader refuses the module rather than let
    /// the kernel trap at run time.
    pub images: Option<(usize, String, u32)>,
}

/// Whether an AMD target (`gfx90a`, `gfx90a:sramecc+:xnack-`) has image instructions: CDNA2
/// and CDNA3 (gfx90a, gfx940 to gfx942, gfx950) have none, so their compilers cannot take a
/// texture or surface access (hipRTC 5.2.3 aborts the process on one), and the support
/// header's `PTX_NO_IMAGES` (the same list) makes each a trap there. Loaders refuse a module
/// with [`Translation::images`] for such a target. Every other target has them, HIP's NVIDIA
/// platform's (`sm_90`) included.
pub fn target_has_images(target: &str) -> bool {
    let gfx = target.split(':').next().unwrap_or(target);
    !matches!(gfx, "gfx90a" | "gfx940" | "gfx941" | "gfx942" | "gfx950")
}

/// The first texture or surface instruction of `body`, depth first.
fn first_image(body: &[ast::Stmt]) -> Option<(String, u32)> {
    body.iter().find_map(|s| match s {
        ast::Stmt::Inst(i)
            if ["tex.", "tld4.", "suld.", "sust."]
                .iter()
                .any(|p| i.opcode.starts_with(p)) =>
        {
            Some((i.opcode.clone(), i.line))
        }
        ast::Stmt::Block(b) => first_image(b),
        _ => None,
    })
}

/// Translates PTX text to HIP C++: [`translate_all`] of one module.
///
/// # Errors
/// [`PtxError::Syntax`] for malformed PTX (with line and column), [`PtxError::Unsupported`]
/// for an instruction outside the translated set (naming it and its line).
pub fn translate(ptx: &str) -> Result<Translation, PtxError> {
    translate_all(&[ptx]).map_err(|(_, e)| e)
}

/// Translates several PTX modules linked into one HIP C++ source (as `cuLink*` links them):
/// the support header once, then every module. `.visible` (and `.weak`) functions and
/// variables are seen by every module: an `.extern .func` or `.extern .global` of one module
/// is another's definition (the first `.weak` definition wins). A module's internal names
/// never collide with another's (where two modules use a name, each module's own is renamed
/// `ptx_m<index>_...`). [`Translation::entries`] lists every module's kernels, in order;
/// `target` is every module's targets, each once; `version` is the first module's.
///
/// # Errors
/// With the index of the failing module: [`PtxError::Syntax`] for malformed PTX,
/// [`PtxError::Unsupported`] for an instruction outside the translated set, for a call to an
/// `.extern .func` no module defines (`vprintf`: naming it), an `.extern` variable no module
/// defines, or a name two modules both define.
pub fn translate_all(modules: &[&str]) -> Result<Translation, (usize, PtxError)> {
    let mut parsed = Vec::with_capacity(modules.len());
    for (k, ptx) in modules.iter().enumerate() {
        let m = parse(ptx).map_err(|e| (k, e))?;
        if m.address_size != 64 {
            return Err((
                k,
                PtxError::Unsupported {
                    instruction: format!(".address_size {}", m.address_size),
                    line: 1,
                    reason: "only 64-bit PTX is translated".into(),
                },
            ));
        }
        parsed.push(m);
    }
    let source = emit::emit_all(&parsed)?;
    let mut target: Vec<String> = Vec::new();
    for t in parsed.iter().flat_map(|m| &m.target) {
        if !target.contains(t) {
            target.push(t.clone());
        }
    }
    Ok(Translation {
        source,
        entries: parsed
            .iter()
            .flat_map(|m| &m.functions)
            .filter(|f| f.entry && f.body.is_some())
            .map(|f| f.name.clone())
            .collect(),
        target,
        version: parsed
            .first()
            .map(|m| m.version.clone())
            .unwrap_or_default(),
        images: parsed.iter().enumerate().find_map(|(k, m)| {
            m.functions
                .iter()
                .filter_map(|f| f.body.as_deref())
                .find_map(first_image)
                .map(|(i, line)| (k, i, line))
        }),
    })
}

#[cfg(test)]
mod tests;
