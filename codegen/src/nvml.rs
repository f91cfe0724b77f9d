//! NVML, NVIDIA's management library (`libnvidia-ml.so.1`, part of the driver), from the pinned
//! `nvml.h` of PyPI `nvidia-nvml-dev` (fetched by `ci/fetch-inputs.sh` into the CUDA inputs
//! folder; the wheel holds the header only).
//!
//! Outputs:
//! - `api/src/generated/nvml.rs`: NVML's types (enums as newtypes, handles, structs, the
//!   integer `#define`s), NVIDIA's names and values;
//! - `api/src/generated/nvml_fns.rs`: the function catalogue, the function-pointer table, the
//!   `Nvml` trait and the table's impl of it;
//! - `backends/hip/src/generated/nvml.rs`: the HIP backend's `impl Nvml`, each function either
//!   served over rocm-smi by `backends/hip/src/nvml.rs` ([`HIP_SERVED`]) or answered
//!   `NVML_ERROR_NOT_SUPPORTED` (after the initialisation check);
//! - `src/generated/nvml.rs`: the facade's C-named free functions;
//! - `capi/src/generated/nvml.rs`: the C ABI's exports (libnvidia-ml's names, the older names of
//!   renamed functions as aliases), each the facade's function behind the re-entry guard
//!   (`optional_lib::capi_module`), and `NVML_EXPORTS` (what `anycuda libdir`'s
//!   `libnvidia-ml.so.1` defines).
//!
//! Names: `nvml.h` declares every function under the name libnvidia-ml exports (`nvmlInit_v2`,
//! `nvmlDeviceGetPciInfo_v3`, ...) and `#define`s the plain names onto them for callers. With
//! `NVML_NO_UNVERSIONED_FUNC_DEFS` it also declares the older ABIs under their own exported names
//! (`nvmlInit`, `nvmlDeviceGetCount`, `nvmlDeviceGetPciInfo`, `..._v2`), which programs built
//! against older headers call; the catalogue reads the header that way, so it holds both.
//!
//! The bindgen input is `nvml.h` alone (nothing else it includes is kept); its vocabulary is the
//! whole header because the CUDA backend forwards every function, and each function's types
//! must exist.

use crate::bindgen_run::{self, Job};
use crate::emit_cuda::{self, Extras};
use crate::face::{CudaLoader, ErrorFace, Face, HipSide};
use crate::model::{self, FnDecl};
use crate::optional_lib::{self, ret_str, Lib};
use anyhow::{bail, Result};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The functions the HIP backend serves over rocm-smi (`backends/hip/src/nvml.rs` has a
/// `pub(crate) unsafe fn` of each name, taking `&HipBackend` and the C arguments). Every other
/// function answers `NVML_ERROR_UNINITIALIZED` before `nvmlInit`, else `NVML_ERROR_NOT_SUPPORTED`.
pub const HIP_SERVED: &[&str] = &[
    "nvmlInit",
    "nvmlInit_v2",
    "nvmlInitWithFlags",
    "nvmlShutdown",
    "nvmlErrorString",
    "nvmlSystemGetDriverVersion",
    "nvmlSystemGetNVMLVersion",
    "nvmlSystemGetCudaDriverVersion",
    "nvmlSystemGetCudaDriverVersion_v2",
    "nvmlDeviceGetCount",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetHandleByUUID",
    "nvmlDeviceGetHandleByPciBusId",
    "nvmlDeviceGetHandleByPciBusId_v2",
    "nvmlDeviceGetIndex",
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetMemoryInfo_v2",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetTemperature",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetMinorNumber",
    "nvmlDeviceGetCudaComputeCapability",
];

/// Generates the outputs.
pub fn generate(root: &Path) -> Result<Vec<(PathBuf, String)>> {
    let version = optional_lib::pin(root, "NVML_VERSION")?;
    let inputs = root.join(".cache/inputs/cuda");
    let include = inputs.join("nvidia/cu13/include");
    let header = include.join("nvml.h");
    let info = inputs.join(format!("nvidia_nvml_dev-{version}.dist-info"));
    if !header.exists() || !info.exists() {
        bail!(
            "missing or stale codegen input {} (pinned nvidia-nvml-dev {version}); run `bash ci/fetch-inputs.sh`",
            header.display()
        );
    }
    let b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nvml.h"],
                allow_files: &[r".*/nvml\.h"],
                clang_args: vec!["-DNVML_NO_UNVERSIONED_FUNC_DEFS".into()],
            },
            &include,
        )?,
        "nvml.h",
    )?;
    let text = std::fs::read_to_string(&header)?;
    let what = format!("nvidia-nvml-dev {version} (nvml.h)");
    let fns: Vec<&FnDecl> = b.functions.iter().collect();
    if fns.len() < 300 {
        bail!(
            "only {} NVML functions in {}: the header changed shape",
            fns.len(),
            header.display()
        );
    }
    for f in &fns {
        let r = ret_str(f);
        if r != "nvmlReturn_t" && f.name != "nvmlErrorString" {
            bail!("{} returns {r}: no fallback for it", f.name);
        }
        if f.variadic {
            bail!("{} is variadic", f.name);
        }
    }
    for s in HIP_SERVED {
        if !fns.iter().any(|f| f.name == *s) {
            bail!("HIP_SERVED names {s}, which nvml.h does not declare");
        }
    }
    // The define map of the header (`#define nvmlInit nvmlInit_v2`): every target must be a
    // declared function, so a caller's plain name reaches an export of the catalogue.
    // A plain name the header declares under no ABI of its own (`nvmlGetBlacklistDeviceCount`,
    // renamed `nvmlGetExcludedDeviceCount`) is exported by NVIDIA's library all the same (driver
    // 580 does, ci/capi-gpu/nvml-exports.sh): the C ABI exports it as an alias of its target.
    let mut aliases: Vec<(String, String)> = Vec::new();
    for (plain, target) in define_map(&text) {
        if !fns.iter().any(|f| f.name == target) {
            bail!("nvml.h maps {plain} to {target}, which it does not declare");
        }
        if !fns.iter().any(|f| f.name == plain) {
            aliases.push((plain, target));
        }
    }
    let extras: Extras = BTreeMap::new();
    let hip_ty: syn::Type = syn::parse_quote!(crate::HipBackend);
    let hip = optional_lib::hip_impl(
        &LIB,
        &fns,
        &hip_ty,
        &[
            "NVML on the HIP backend: the functions of `HIP_SERVED` over rocm-smi",
            "(`crate::nvml`), every other one `NVML_ERROR_NOT_SUPPORTED` once NVML is",
            "initialised (`NVML_ERROR_UNINITIALIZED` before).",
        ],
        |f, args| {
            let n = crate::emit_traits::ident(&f.name);
            Ok(if HIP_SERVED.contains(&f.name.as_str()) {
                quote!(unsafe { crate::nvml::#n(self, #(#args),*) })
            } else {
                quote!(crate::nvml::not_served())
            })
        },
    )?;
    let mut hip_items = optional_lib::uses(&LIB, "anycuda_api");
    hip_items.push(hip);
    let served_doc = " The NVML functions the HIP backend serves over rocm-smi (every other one answers `NVML_ERROR_NOT_SUPPORTED`).";
    let served: Vec<&str> = HIP_SERVED.to_vec();
    hip_items.push(syn::parse_quote! {
        #[doc = #served_doc]
        pub static NVML_HIP_SERVED: &[&str] = &[#(#served),*];
    });

    Ok(vec![
        (
            PathBuf::from("api/src/generated/nvml.rs"),
            emit_cuda::api_module(
                &b,
                &[&text],
                &extras,
                &what,
                "NVML types from `nvml.h`, with NVIDIA's names and values.",
                None,
            )?,
        ),
        (
            PathBuf::from("api/src/generated/nvml_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, Vec::new(), &what)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/nvml.rs"),
            crate::emit::render(
                &what,
                "NVML on the HIP backend (codegen/src/nvml.rs): served functions call\n\
                 `crate::nvml`, the others answer the not-supported code.",
                &hip_items,
            )?,
        ),
        (
            PathBuf::from("capi/src/generated/nvml.rs"),
            optional_lib::capi_module(
                &LIB,
                &optional_lib::CExports {
                    soname: "libnvidia-ml.so.1",
                    list: "NVML_EXPORTS",
                    status: "nvmlReturn_t",
                    leave_out: &[],
                    aliases: &aliases,
                },
                &fns,
                &what,
            )?,
        ),
        (
            PathBuf::from("src/generated/nvml.rs"),
            optional_lib::facade_module(&FACADE, &FACE, &fns, &what)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/nvml.rs"),
            crate::face::cuda_loader_module(&FACADE, &FACE, &what)?,
        ),
    ])
}

/// `(plain, exported)` of the header's `#define nvmlX nvmlX_vN` lines (its define map).
fn define_map(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with("#ifndef NVML_NO_UNVERSIONED_FUNC_DEFS") {
            inside = true;
            continue;
        }
        if inside && t.starts_with("#endif") {
            break;
        }
        if !inside {
            continue;
        }
        let mut w = t.split_whitespace();
        if let (Some("#define"), Some(a), Some(b)) = (w.next(), w.next(), w.next()) {
            // Type renames (`nvmlBlacklistDeviceInfo_t`) are no functions.
            if !a.ends_with("_t") {
                out.push((a.to_string(), b.to_string()));
            }
        }
    }
    out
}

/// A missing entry point in a loaded library: NVML's own code for it ("the local version of NVML
/// does not implement this function"); `nvmlErrorString` answers from the header's descriptions.
fn fallback(f: &FnDecl) -> Result<TokenStream> {
    Ok(if f.name == "nvmlErrorString" {
        quote!(error_string(result))
    } else {
        quote!(nvmlReturn_t::NVML_ERROR_FUNCTION_NOT_FOUND)
    })
}

/// No library (no backend, or the CUDA backend without libnvidia-ml): NVML's own code for a
/// library that could not be found or loaded.
fn no_library(f: &FnDecl) -> Result<TokenStream> {
    Ok(if f.name == "nvmlErrorString" {
        quote!(error_string(result))
    } else {
        quote!(nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND)
    })
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's NVML (NVIDIA's libnvidia-ml on the CUDA backend; rocm-smi on the HIP backend, `anycuda_hip::nvml`), with NVML's signature and values.")
}

/// NVML as an optional library.
const LIB: Lib<'static> = Lib {
    module: "nvml",
    name: "NVML",
    header: "nvml.h",
    catalogue: "NVML_FUNCTIONS",
    catalogue_doc: &[
        "Every function of the pinned `nvml.h`, under the names libnvidia-ml exports: the",
        "versioned ones (`nvmlInit_v2`) and, declared with `NVML_NO_UNVERSIONED_FUNC_DEFS`,",
        "the older ABIs' (`nvmlInit`).",
    ],
    table: "NvmlTable",
    table_of: "a loaded libnvidia-ml",
    trait_name: "Nvml",
    trait_doc: &[
        "The NVML API, one method per function of the pinned `nvml.h`, with NVIDIA's",
        "signatures and values. Implemented by the raw table (NVIDIA's library) and by the",
        "HIP backend (a subset over rocm-smi: `anycuda_hip::nvml`).",
    ],
    safety: &[
        "The contract of the NVML function of the same name: every pointer valid for what",
        "NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &[
        "c_char",
        "c_int",
        "c_uint",
        "c_ulong",
        "c_ulonglong",
        "c_void",
    ],
    fallback: &fallback,
    prelude: &|_| quote!(),
    facade_doc: &facade_doc,
};

/// The facade's description: the same library, answering `NVML_ERROR_LIBRARY_NOT_FOUND` when
/// there is none.
const FACADE: Lib<'static> = Lib {
    fallback: &no_library,
    ..LIB
};

/// NVML's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "NVML",
    cuda_doc: "NVIDIA's libnvidia-ml, loaded by the CUDA backend.",
    hip: HipSide::Backend,
    hip_doc: "The HIP backend's NVML over rocm-smi (`anycuda_hip::nvml`).",
    library_of_doc: &[
        "The NVML of a given backend: NVIDIA's (loaded on first use) for CUDA, the rocm-smi subset on",
        "HIP (which loads rocm-smi at `nvmlInit`).",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried (CUDA).",
    ],
    // No `LibraryInfo`: `Library::info` answers (path, served, declared).
    info: None,
    not_loaded: None,
    cuda: CudaLoader {
        doc: &[
            "NVML on the CUDA backend: NVIDIA's `libnvidia-ml.so.1` (part of the driver), loaded once on",
            "first use, every call forwarded with its values unchanged. Optional: without it every call",
            "answers `NVML_ERROR_LIBRARY_NOT_FOUND` and the load error is logged once.",
            "",
            "Devices are NVML's own: like NVIDIA's library, this lists every GPU of the machine and",
            "ignores `CUDA_VISIBLE_DEVICES` (which only masks what the CUDA driver enumerates).",
        ],
        load: "nvml::load(&nvml::NVML_SEARCH)",
        describe: "format!(\"{} of {} entry points\", l.table.loaded_count(), nvml::NVML_FUNCTIONS.len())",
        errors: "The [`LoadError`] naming every path tried, or a missing `nvmlInit_v2`.",
        warn_unavailable: true,
        before: None,
    },
    error: Some(ErrorFace {
        error: "NvmlError",
        status: "nvmlReturn_t",
        success: "NVML_SUCCESS",
        word: "code",
        counterpart: None,
    }),
};
