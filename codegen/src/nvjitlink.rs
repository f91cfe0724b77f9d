//! nvJitLink, NVIDIA's JIT linker for LTO-IR (PyPI `nvidia-nvjitlink`, fetched by
//! `ci/fetch-inputs.sh` into the CUDA inputs folder).
//!
//! Outputs:
//! - `api/src/generated/nvjitlink.rs`: nvJitLink's types (enums as newtypes, the handle), with
//!   anycuda's own `NVJITLINK_ERROR_NOT_SUPPORTED`;
//! - `api/src/generated/nvjitlink_fns.rs`: the function catalogue, the function-pointer table,
//!   the `NvJitLink` trait and the table's impl of it;
//! - `src/generated/nvjitlink.rs`: the facade's C-named free functions, dispatched to the
//!   active backend;
//! - `capi/src/generated/nvjitlink.rs`: the C ABI's `nvJitLink*` exports (libnvJitLink's plain
//!   names), each the facade's function behind the re-entry guard.
//!
//! The HIP backend's impl, a linker of PTX for the AMD GPU, is hand-written
//! (`backends/hip/src/nvjitlink.rs`).
//!
//! The header's public names are `static inline` wrappers around versioned symbols
//! (`__nvJitLinkCreate_13_5`); with `NVJITLINK_NO_INLINE` it declares them as plain externs,
//! which the library also exports. The catalogue resolves those plain names, which every
//! libnvJitLink.so.13 exports (a 13.0 library lacks the `_13_5` symbols), and leaves the
//! versioned `__nvJitLink*` declarations out.

use crate::bindgen_run::{self, Job};
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::face::{CudaLoader, ErrorFace, Face, HipSide, Info};
use crate::model::{self, FnDecl};
use crate::optional_lib::{self, ret_str, Lib};
use anyhow::{bail, Result};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Generates the four outputs.
pub fn generate(root: &Path, ranges: &Ranges) -> Result<Vec<(PathBuf, String)>> {
    let version = optional_lib::pin(root, "NVJITLINK_VERSION")?;
    let inputs = root.join(".cache/inputs/cuda");
    let include = inputs.join("nvidia/cu13/include");
    let header = include.join("nvJitLink.h");
    let info = inputs.join(format!("nvidia_nvjitlink-{version}.dist-info"));
    if !header.exists() || !info.exists() {
        bail!(
            "missing or stale codegen input {} (pinned nvidia-nvjitlink {version}); run `bash ci/fetch-inputs.sh`",
            header.display()
        );
    }
    let b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nvJitLink.h"],
                allow_files: &[r".*/nvJitLink\.h"],
                clang_args: vec!["-DNVJITLINK_NO_INLINE".into()],
            },
            &include,
        )?,
        "nvJitLink.h",
    )?;
    let text = std::fs::read_to_string(&header)?;
    let what = format!("nvidia-nvjitlink {version} (nvJitLink.h)");
    // The versioned names libnvJitLink exports: one per header release of its major version up
    // to the pinned one (13.5: `_13_0` to `_13_5`).
    let versions: Vec<String> = match version.split('.').collect::<Vec<_>>()[..] {
        [major, minor, ..] => match minor.parse::<u32>() {
            Ok(minor) => (0..=minor).map(|m| format!("{major}_{m}")).collect(),
            Err(_) => bail!("nvidia-nvjitlink pin {version}: no minor version"),
        },
        _ => bail!("nvidia-nvjitlink pin {version}: no minor version"),
    };

    let mut extras: Extras = BTreeMap::new();
    extras.entry("nvJitLinkResult".to_string()).or_default().push(ExtraConst {
        name: "NVJITLINK_ERROR_NOT_SUPPORTED".into(),
        value: ranges.anycuda_base,
        description: "anycuda: not supported. nvJitLink declares no \"unavailable\" result, yet anycuda needs one: it returns this when libnvJitLink could not be loaded (the load error is logged), when the loaded one lacks the entry point, and on the HIP backend for inputs and outputs an AMD GPU cannot take (cubins, LTO-IR, linked PTX; the error log says which).".into(),
        origin: ExtraOrigin::Anycuda,
    });
    // The functions the header declares a versioned name for (`__nvJitLinkCreate_13_5`);
    // `nvJitLinkVersion` has none.
    let latest = format!(
        "_{}",
        versions.last().map(String::as_str).unwrap_or_default()
    );
    let versioned_fns: Vec<&str> = b
        .functions
        .iter()
        .filter_map(|f| f.name.strip_prefix("__")?.strip_suffix(latest.as_str()))
        .filter(|n| !C_EXPORTS.leave_out.iter().any(|(l, _)| l == n))
        .collect();
    let aliases: Vec<(String, String)> = versioned_fns
        .iter()
        .flat_map(|f| {
            versions
                .iter()
                .map(move |v| (format!("__{f}_{v}"), f.to_string()))
        })
        .collect();
    let fns: Vec<&FnDecl> = b
        .functions
        .iter()
        .filter(|f| !f.name.starts_with("__"))
        .collect();
    if fns.is_empty() {
        bail!("no nvJitLink functions in {}", header.display());
    }
    for f in &fns {
        let r = ret_str(f);
        if r != "nvJitLinkResult" {
            bail!("{} returns {r}: no fallback for it", f.name);
        }
    }
    Ok(vec![
        (
            PathBuf::from("api/src/generated/nvjitlink.rs"),
            emit_cuda::api_module(
                &b,
                &[&text],
                &extras,
                &what,
                "nvJitLink types from `nvJitLink.h`, with NVIDIA's names and values.",
                None,
            )?,
        ),
        (
            PathBuf::from("api/src/generated/nvjitlink_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, Vec::new(), &what)?,
        ),
        (
            PathBuf::from("capi/src/generated/nvjitlink.rs"),
            optional_lib::capi_module(
                &LIB,
                &optional_lib::CExports {
                    aliases: &aliases,
                    ..C_EXPORTS
                },
                &fns,
                &what,
            )?,
        ),
        (
            PathBuf::from("src/generated/nvjitlink.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &what)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/nvjitlink.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &what)?,
        ),
    ])
}

/// Every function returns `nvJitLinkResult` (checked in [`generate`]): without the library or
/// the entry point, anycuda's own code.
fn fallback(_: &FnDecl) -> Result<TokenStream> {
    Ok(quote!(nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED))
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's JIT linker (NVIDIA's nvJitLink on the CUDA backend; the HIP backend's PTX linker, `anycuda_hip::nvjitlink`), with nvJitLink's signature and values.")
}

/// nvJitLink as an optional library.
const LIB: Lib<'static> = Lib {
    module: "nvjitlink",
    name: "nvJitLink",
    header: "nvJitLink.h",
    catalogue: "NVJITLINK_FUNCTIONS",
    catalogue_doc: &[
        "Every function of the pinned `nvJitLink.h` (the versioned `__nvJitLink*_13_x`",
        "symbols behind them left out).",
    ],
    table: "NvJitLinkTable",
    table_of: "a loaded nvJitLink",
    trait_name: "NvJitLink",
    trait_doc: &[
        "The nvJitLink API, one method per function of the pinned `nvJitLink.h`, with",
        "NVIDIA's signatures and values. Implemented by the raw table (NVIDIA's library)",
        "and by the HIP backend (a linker of PTX for the AMD GPU: `anycuda_hip::nvjitlink`).",
    ],
    safety: &[
        "The contract of the nvJitLink function of the same name: every pointer and",
        "handle valid for what NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &["c_char", "c_int", "c_uint", "c_void"],
    fallback: &fallback,
    prelude: &|_| quote!(),
    facade_doc: &facade_doc,
};

/// The C ABI's face of nvJitLink (and, in [`generate`], the versioned names as aliases). Left out: functions of the pinned header that not every
/// `libnvJitLink.so.13` exports (13.0's lacks them), so a program that probes for them
/// (cuda.bindings' tests do, with `dlsym`) sees what NVIDIA's oldest 13.x library shows, on the
/// CUDA backend as on NVIDIA. They stay in `anycuda::nvjitlink` for Rust callers. anycuda's own
/// `NVJITLINK_ERROR_NOT_SUPPORTED` becomes `NVJITLINK_ERROR_INTERNAL`, a member cuda.bindings
/// knows (`crate::codes`).
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libnvJitLink.so.13",
    list: "NVJITLINK_EXPORTS",
    status: "nvJitLinkResult",
    leave_out: &[
        (
            "nvJitLinkGetLinkedLTOIRSize",
            "not in libnvJitLink.so.13 13.0",
        ),
        ("nvJitLinkGetLinkedLTOIR", "not in libnvJitLink.so.13 13.0"),
    ],
    aliases: &[],
};

/// nvJitLink's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "JIT linker",
    cuda_doc: "NVIDIA's nvJitLink, loaded by the CUDA backend.",
    hip: HipSide::Backend,
    hip_doc: "The HIP backend's linker of PTX for the AMD GPU (`anycuda_hip::nvjitlink`).",
    library_of_doc: &[
        "The JIT linker of a given backend: nvJitLink (loaded on first use) for CUDA, the PTX linker",
        "for the AMD GPU on HIP.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    // No name (one library per side) and no version string.
    info: Some(Info {
        doc: Some("Where `library()` found nvJitLink and which version it is."),
        fields: &[
            (
                "path",
                &["The file the loader mapped (empty on HIP, whose linker is built in)."],
            ),
            (
                "version",
                &[
                    "Its version, `1000 * major + 10 * minor` (`13050` for 13.5; on HIP the nvJitLink API",
                    "version its linker implements).",
                ],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `nvJitLink.h` declares."],
            ),
        ],
    }),
    not_loaded: None,
    cuda: CudaLoader {
        doc: &[
            "nvJitLink on the CUDA backend: NVIDIA's library, loaded once on first use, values passed",
            "unchanged. Optional: without it every call answers `NVJITLINK_ERROR_NOT_SUPPORTED` and the",
            "load error is logged once.",
        ],
        load: "nvjitlink::load(&nvjitlink::NVJITLINK_SEARCH)",
        describe: "nvjitlink::version_string(l.version)",
        errors: "The [`LoadError`] naming every path tried, a missing entry point or a too-old version.",
        warn_unavailable: true,
        before: None,
    },
    error: Some(ErrorFace {
        error: "NvJitLinkError",
        status: "nvJitLinkResult",
        success: "NVJITLINK_SUCCESS",
        word: "code",
        counterpart: None,
    }),
};
