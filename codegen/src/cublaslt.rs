//! cuBLASLt, NVIDIA's lightweight matmul library (`cublasLt.h` and `libcublasLt.so.13` of PyPI
//! `nvidia-cublas`, fetched by `ci/fetch-inputs.sh`), and hipBLASLt, its HIP counterpart (Debian
//! sid `libhipblaslt-dev` 7.1.1 with `libhipblas-common-dev` and sid's HIP 6.4.3 headers,
//! fetched by `ci/cublaslt-fetch.sh`).
//!
//! Outputs:
//! - `api/src/generated/cublaslt.rs`: cuBLASLt's own types (enums as newtypes, handles, the
//!   semi-opaque descriptor structs, the 64-byte `cublasLtMatmulAlgo_t`); the types `cublasLt.h`
//!   takes from `cublas_api.h` and `library_types.h` (`cublasStatus_t`, `cublasComputeType_t`,
//!   `cudaDataType`, ...) are re-exported from `crate::cublas`: one Rust type per C type;
//! - `api/src/generated/cublaslt_fns.rs`: the function catalogue, the function-pointer table, the
//!   `CublasLt` trait and the table's impl of it;
//! - `backends/hip/src/generated/cublaslt.rs`: the cuBLASLt<->hipBLASLt tables (statuses, the
//!   three attribute enums, the enum-valued attribute values, compute and data types, operations),
//!   the sizes of hipBLASLt's algorithm and heuristic-result structs, and the translating
//!   `CublasLt` impl the HIP backend uses;
//! - `src/generated/cublaslt.rs`: the facade's C-named free functions, dispatched to the backend.
//! - `capi/src/generated/cublaslt.rs`: the C ABI's exports with `libcublasLt.so.13`'s names, each the facade's
//!   function behind the re-entry guard (`optional_lib::capi_module`).
//!
//! Functions pair by name (`cublasLtX` <-> `hipblasLtX`), enumerators too (`CUBLASLT_X` <->
//! `HIPBLASLT_X`, `CUBLAS_X` <-> `HIPBLAS_X`, `CUDA_R_X` <-> `HIP_R_X`). A cuBLASLt function
//! whose hipBLASLt twin the pinned `hipblaslt.h` does not declare answers
//! `CUBLAS_STATUS_NOT_SUPPORTED` on AMD, with a reason naming it.

use crate::bindgen_run::{self, Job};
use crate::emit::int_lit;
use crate::emit_cuda;
use crate::extras::Ranges;
use crate::face::{CudaLoader, Face, HipSide, Info};
use crate::model::{self, Bindings, FnDecl};
use crate::optional_lib::{self, ret_str, type_str, EnumMap, Lib, Sides};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// `cublasLtX` -> `hipblasLtX`; `CUBLASLT_X` -> `HIPBLASLT_X`; `CUBLAS_X` -> `HIPBLAS_X`;
/// `CUDA_R_X`/`CUDA_C_X` -> `HIP_R_X`/`HIP_C_X`.
pub fn hip_name(n: &str) -> String {
    for (c, h) in [
        ("cublasLt", "hipblasLt"),
        ("CUBLASLT", "HIPBLASLT"),
        ("CUBLAS", "HIPBLAS"),
        ("CUDA_", "HIP_"),
    ] {
        if let Some(r) = n.strip_prefix(c) {
            return format!("{h}{r}");
        }
    }
    n.to_string()
}

/// How cuBLASLt's and hipBLASLt's enums are paired.
const SIDES: Sides<'static> = Sides {
    cuda: "CUBLASLT",
    hip: "HIPBLASLT",
    hip_name: &hip_name,
    // Counts and bounds, not values.
    sentinels: &[
        "HIPBLASLT_MATMUL_DESC_MAX",
        "HIPBLASLT_MATMUL_PREF_MAX",
        "HIPBLASLT_MATMUL_MATRIX_SCALE_END",
        "CUBLASLT_MATMUL_MATRIX_SCALE_END",
    ],
};

/// Types `cublasLt.h` takes from other headers: re-exported, never defined twice.
const FOREIGN: &[&str] = &[
    "FILE",
    "_IO_FILE",
    "_IO_marker",
    "_IO_codecvt",
    "_IO_wide_data",
    "_IO_lock_t",
    "__off_t",
    "__off64_t",
];

/// The enum pairs translated on the HIP side: (CUDA type, HIP type, short name of the tables).
const ENUMS: &[(&str, &str, &str)] = &[
    ("cublasStatus_t", "hipblasStatus_t", "STATUS"),
    ("cublasComputeType_t", "hipblasComputeType_t", "COMPUTE"),
    ("cudaDataType", "hipDataType", "DATATYPE"),
    ("cublasOperation_t", "hipblasOperation_t", "OPERATION"),
    (
        "cublasLtMatmulDescAttributes_t",
        "hipblasLtMatmulDescAttributes_t",
        "MATMUL_DESC",
    ),
    (
        "cublasLtMatrixLayoutAttribute_t",
        "hipblasLtMatrixLayoutAttribute_t",
        "LAYOUT",
    ),
    (
        "cublasLtMatmulPreferenceAttributes_t",
        "hipblasLtMatmulPreferenceAttributes_t",
        "PREFERENCE",
    ),
    (
        "cublasLtMatrixTransformDescAttributes_t",
        "hipblasLtMatrixTransformDescAttributes_t",
        "TRANSFORM_DESC",
    ),
    ("cublasLtEpilogue_t", "hipblasLtEpilogue_t", "EPILOGUE"),
    (
        "cublasLtPointerMode_t",
        "hipblasLtPointerMode_t",
        "POINTER_MODE",
    ),
    ("cublasLtOrder_t", "hipblasLtOrder_t", "ORDER"),
    (
        "cublasLtMatmulMatrixScale_t",
        "hipblasLtMatmulMatrixScale_t",
        "MATRIX_SCALE",
    ),
];

/// Functions the HIP side serves through a hand-written rule in `backends/hip/src/cublaslt.rs`
/// (attribute ids and values, the algorithm struct, the heuristic results).
const HAND: &[&str] = &[
    "cublasLtMatmulDescSetAttribute",
    "cublasLtMatmulDescGetAttribute",
    "cublasLtMatrixLayoutSetAttribute",
    "cublasLtMatrixLayoutGetAttribute",
    "cublasLtMatmulPreferenceSetAttribute",
    "cublasLtMatmulPreferenceGetAttribute",
    "cublasLtMatrixTransformDescSetAttribute",
    "cublasLtMatrixTransformDescGetAttribute",
    "cublasLtMatmulAlgoGetHeuristic",
    "cublasLtMatmul",
];

/// Generates the four outputs. `runtime_b`: the CUDA runtime bindings (`cudaStream_t`'s struct is
/// the runtime's, re-exported).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let cublas_version = optional_lib::pin(root, "CUBLAS_VERSION")?;
    let lt_version = optional_lib::pin(root, "HIPBLASLT_DEB_VERSION")?;
    let common_version = optional_lib::pin(root, "HIPBLAS_COMMON_DEB_VERSION")?;
    let hip_version = optional_lib::pin(root, "HIP_DEV_SID_DEB_VERSION")?;
    let inputs = root.join(".cache/inputs");
    let cuda_inc = inputs.join("cuda/nvidia/cu13/include");
    let hip_inc = inputs.join("hipblaslt/usr/include");
    for (p, stamp) in [
        (
            cuda_inc.join("cublasLt.h"),
            inputs.join(format!("cuda/.nvidia-cublas-{cublas_version}.done")),
        ),
        (
            hip_inc.join("hipblaslt/hipblaslt.h"),
            inputs.join(format!(
                "hipblaslt/.hipblaslt-{lt_version}-common-{common_version}-hip-{hip_version}.done"
            )),
        ),
    ] {
        if !p.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned nvidia-cublas {cublas_version}, hipBLASLt {lt_version}); run `bash ci/fetch-inputs.sh`",
                p.display()
            );
        }
    }
    let shim = root.join("codegen/shim");
    // The shim's cuda_fp16.h/cuda_bf16.h (shim/cublas, the first -I) and crt/host_defines.h
    // (shim) must win over the real (C++/CUDA) ones, as for cuBLAS itself (codegen/src/cublas.rs).
    let cuda_args = || {
        vec![
            "-xc++".to_string(),
            "-std=c++14".into(),
            format!("-I{}", shim.display()),
            format!("-I{}", cuda_inc.display()),
        ]
    };
    let mut lt_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cublasLt.h"],
                allow_files: &[r".*/cublasLt\.h"],
                clang_args: cuda_args(),
            },
            &shim.join("cublas"),
        )?,
        "cublasLt.h",
    )?;
    // cublasOperation_t (the value of the TRANSA/TRANSB attributes) is cuBLAS's; read for its
    // values only (api/src/generated/cublas.rs defines the type).
    let cublas_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cublas_api.h"],
                allow_files: &[r".*/cublas_api\.h"],
                clang_args: cuda_args(),
            },
            &shim.join("cublas"),
        )?,
        "cublas_api.h",
    )?;
    let hip_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hipblaslt/hipblaslt.h"],
                allow_files: &[
                    r".*/hipblaslt\.h",
                    r".*/hipblas-common\.h",
                    r".*/library_types\.h",
                ],
                // C++ (the header includes <memory>, <vector>; the shim's stand-ins are empty),
                // the AMD platform (the opaque structs are declared for it only); the shim's
                // hip/hip_runtime.h (the real one is device code) comes first.
                clang_args: vec![
                    "-xc++".into(),
                    "-std=c++17".into(),
                    "-D__HIP_PLATFORM_AMD__".into(),
                    format!("-I{}", hip_inc.display()),
                ],
            },
            &shim.join("hipblaslt"),
        )?,
        "hipblaslt.h",
    )?;

    // Enums of mixed origin, all paired below; the CUDA-side module keeps cuBLASLt's own.
    let mut all_cuda = lt_b.clone();
    for (tag, e) in &cublas_b.enums {
        all_cuda
            .enums
            .entry(tag.clone())
            .or_insert_with(|| e.clone());
    }
    let mut maps = Vec::new();
    for (c, h, short) in ENUMS {
        maps.push((
            *short,
            optional_lib::map_enum(&SIDES, &all_cuda, &hip_b, c, h)?,
        ));
    }

    let foreign_enums: Vec<String> = lt_b
        .enums
        .values()
        .filter(|e| !e.tag.starts_with("cublasLt"))
        .map(|e| e.tag.clone())
        .collect();
    lt_b.items.retain(|it| match it {
        model::Item::Enum(tag) => !foreign_enums.contains(tag),
        model::Item::Plain(p) => {
            let name = match p {
                syn::Item::Struct(s) => s.ident.to_string(),
                syn::Item::Type(t) => t.ident.to_string(),
                _ => String::new(),
            };
            !FOREIGN.contains(&name.as_str())
        }
    });
    // The foreign names cublasLt.h's declarations use, from the modules that define them.
    lt_b.items.insert(
        0,
        model::Item::Plain(syn::parse_quote! {
            /// Types `cublasLt.h` takes from `cublas_api.h` and `library_types.h` (and
            /// `cublasOperation_t`, the value of the `TRANSA`/`TRANSB` attributes): cuBLAS's and
            /// the runtime's, one Rust type per C type.
            pub use crate::cublas::{cublasStatus_t, cublasComputeType_t, cublasOperation_t, cudaDataType, cudaDataType_t, libraryPropertyType};
        }),
    );
    lt_b.items.insert(
        1,
        model::Item::Plain(syn::parse_quote! {
            /// C's `FILE` (`cublasLtLoggerSetFile`), opaque: see `crate::cublaslt::FILE`.
            pub use super::FILE;
        }),
    );

    let lt_h = std::fs::read_to_string(cuda_inc.join("cublasLt.h"))?;
    let lt_in = format!("nvidia-cublas {cublas_version} (cublasLt.h)");
    let both_in = format!(
        "nvidia-cublas {cublas_version} (cublasLt.h), Debian sid libhipblaslt-dev {lt_version} (hipblaslt.h)"
    );

    let fns: Vec<&FnDecl> = lt_b.functions.iter().collect();
    if fns.is_empty() {
        bail!("no cuBLASLt functions in cublasLt.h");
    }
    for f in &fns {
        fallback(f)?;
    }
    // A pair is served only where the signatures agree in shape (same argument count):
    // `hipblasLtGetVersion(handle, int*)` is no twin of `cublasLtGetVersion(void)`.
    let mut declared = Vec::new();
    for f in &fns {
        let hn = hip_name(&f.name);
        if let Some(h) = hip_b.functions.iter().find(|h| h.name == hn) {
            if h.args.len() == f.args.len() {
                declared.push((f.name.clone(), hn));
            }
        }
    }
    let hip_names: BTreeSet<String> = declared.iter().map(|(_, h)| h.clone()).collect();
    let declared_items: Vec<TokenStream> = declared.iter().map(|(c, h)| quote!((#c, #h))).collect();
    let status_names = status_name_fn(&all_cuda)?;
    let declared_static: syn::Item = syn::parse_quote! {
        /// The functions of [`CUBLASLT_FUNCTIONS`] whose hipBLASLt twin the pinned `hipblaslt.h`
        /// declares: (cuBLASLt name, hipBLASLt symbol).
        pub static HIPBLASLT_DECLARED: &[(&str, &str)] = &[#(#declared_items),*];
    };

    Ok(vec![
        (
            PathBuf::from("api/src/generated/cublaslt.rs"),
            emit_cuda::api_module(
                &lt_b,
                &[&lt_h],
                &BTreeMap::new(),
                &lt_in,
                "cuBLASLt types from `cublasLt.h`, with NVIDIA's names and values.",
                Some((runtime_b, "crate::runtime")),
            )?,
        ),
        (
            PathBuf::from("api/src/generated/cublaslt_fns.rs"),
            optional_lib::fns_module(
                &LIB,
                &FACE,
                &fns,
                vec![declared_static, status_names],
                &both_in,
            )?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/cublaslt.rs"),
            hip_module(&fns, &hip_names, &hip_b, &maps, ranges, &both_in)?,
        ),
        (
            PathBuf::from("src/generated/cublaslt.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &lt_in)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/cublaslt.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &lt_in)?,
        ),
        (
            PathBuf::from("capi/src/generated/cublaslt.rs"),
            optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &lt_in)?,
        ),
    ])
}

/// `status_name(s) -> Option<&CStr>`: cuBLAS's status names as C strings (what the HIP side
/// answers for `cublasLtGetStatusName`, hipBLASLt having none).
fn status_name_fn(b: &Bindings) -> Result<syn::Item> {
    let e = b
        .enums
        .values()
        .find(|e| e.user_name() == "cublasStatus_t")
        .context("no cublasStatus_t")?;
    let arms = e.variants.iter().map(|v| {
        let n = ident(&v.name);
        let s = syn::LitCStr::new(
            &std::ffi::CString::new(v.name.clone()).expect("no NUL in a name"),
            Span::call_site(),
        );
        quote!(cublasStatus_t::#n => Some(#s))
    });
    Ok(syn::parse_quote! {
        /// The name of a `cublasStatus_t` as a C string, `None` for a value `cublas_api.h` does
        /// not name.
        pub fn status_name(s: cublasStatus_t) -> Option<&'static core::ffi::CStr> {
            match s { #(#arms,)* _ => None }
        }
    })
}

/// What a call answers without a library or entry point, by return type.
fn fallback(f: &FnDecl) -> Result<TokenStream> {
    Ok(match ret_str(f).as_str() {
        "cublasStatus_t" => quote!(crate::cublaslt::not_loaded()),
        // cublasLtGetVersion, cublasLtGetCudartVersion: no version known.
        "usize" => quote!(0),
        // cublasLtDisableCpuInstructionsSetMask: the previous mask, cuBLASLt's default (0).
        "c_uint" => quote!(0),
        // cublasLtGetStatusName/String: a string that says why, never null.
        "*constc_char" => quote!(c"anycuda: no cuBLASLt library loaded".as_ptr()),
        other => bail!("{} returns {other}: no fallback for it", f.name),
    })
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's matmul library (cuBLASLt, or hipBLASLt on AMD), with cuBLASLt's signature and values.")
}

/// What the table answers before any library sees a call: only what libcublasLt itself would
/// crash on. Measured on libcublasLt 13.10 without a GPU (`tests/cublaslt_raw.rs` checks the
/// rest): every function answers null handles, descriptors and out-pointers with a status,
/// except the `*Init_internal` functions, which write through their first argument unchecked
/// (`cublasLtMatmulDescInit_internal(NULL, ...)` is a SIGSEGV); anycuda answers
/// `CUBLAS_STATUS_INVALID_VALUE` there, what cuBLASLt answers for every other null it checks.
fn crash_guards(f: &FnDecl) -> TokenStream {
    let args = optional_lib::arg_idents(f);
    if f.name.ends_with("Init_internal") {
        let a = &args[0];
        return quote! {
            if #a.is_null() {
                return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
            }
        };
    }
    quote!()
}

/// cuBLASLt as an optional library.
const LIB: Lib<'static> = Lib {
    module: "cublaslt",
    name: "cuBLASLt",
    header: "cublasLt.h",
    catalogue: "CUBLASLT_FUNCTIONS",
    catalogue_doc: &["Every function of the pinned `cublasLt.h`."],
    table: "CublasLtTable",
    table_of: "a loaded cuBLASLt or hipBLASLt",
    trait_name: "CublasLt",
    trait_doc: &[
        "The cuBLASLt API, one method per function of the pinned `cublasLt.h`, with cuBLASLt's",
        "signatures and values. Implemented by the raw table (values passed unchanged) and by",
        "each backend's matmul library (hipBLASLt's values translated on AMD).",
    ],
    safety: &[
        "The contract of the cuBLASLt function of the same name: every pointer and handle",
        "valid for what NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &["c_char", "c_int", "c_uint", "c_void"],
    fallback: &fallback,
    prelude: &crash_guards,
    facade_doc: &facade_doc,
};

/// The null checks the HIP side makes before hipBLASLt sees a call, giving cuBLASLt's own
/// answers (measured on libcublasLt 13.10; hipBLASLt's differ: it answers a null descriptor's
/// destruction with an error where cuBLASLt answers success, and a null descriptor with
/// `NOT_INITIALIZED` where cuBLASLt answers `INVALID_VALUE`):
/// - `cublasLtXDestroy(NULL)` of a descriptor: success; `cublasLtDestroy(NULL)`: invalid value;
/// - a null out-pointer of a `Create`: invalid value;
/// - a null handle: not initialized (what cuBLASLt answers for `cublasLtMatmul`,
///   `cublasLtMatmulAlgoGetHeuristic`, `cublasLtMatmulAlgoInit`, ...);
/// - a null descriptor given to an attribute call: invalid value.
fn hip_guards(f: &FnDecl) -> TokenStream {
    let args = optional_lib::arg_idents(f);
    let n = f.name.as_str();
    let mut checks = Vec::new();
    let desc = |t: &str| {
        matches!(
            t,
            "cublasLtMatmulDesc_t"
                | "cublasLtMatrixLayout_t"
                | "cublasLtMatmulPreference_t"
                | "cublasLtMatrixTransformDesc_t"
                | "cublasLtEmulationDesc_t"
        )
    };
    for (a, (_, t)) in args.iter().zip(&f.args) {
        let t = type_str(t);
        if n.ends_with("Destroy") && desc(&t) {
            checks.push(quote!(if #a.is_null() { return cublasStatus_t::CUBLAS_STATUS_SUCCESS; }));
        } else if n == "cublasLtDestroy"
            || (n.ends_with("Create") && t.starts_with("*mut"))
            || (n.ends_with("Attribute") && desc(&t))
        {
            checks.push(
                quote!(if #a.is_null() { return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE; }),
            );
        } else if t == "cublasLtHandle_t" {
            checks.push(
                quote!(if #a.is_null() { return cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED; }),
            );
        }
    }
    quote!(#(#checks)*)
}

/// `short_from_hipblaslt(v) -> Option<T>`: a hipBLASLt value back in cuBLASLt's numbering.
fn from_hip_fn(m: &EnumMap, short: &str) -> syn::Item {
    let t = ident(&m.ty);
    let f = ident(&format!("{}_from_hipblaslt", short.to_ascii_lowercase()));
    let arms = m.pairs.iter().map(|(_, av, _, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!(#bv => Some(#t(#av as _)))
    });
    let doc = format!(
        " A hipBLASLt value back in `{}`'s numbering, or `None` without a counterpart.",
        m.ty
    );
    syn::parse_quote! {
        #[doc = #doc]
        #[inline]
        pub fn #f(v: i64) -> Option<#t> {
            match v { #(#arms,)* _ => None }
        }
    }
}

fn hip_module(
    fns: &[&FnDecl],
    hip_names: &BTreeSet<String>,
    hip_b: &Bindings,
    maps: &[(&str, EnumMap)],
    ranges: &Ranges,
    inputs: &str,
) -> Result<String> {
    let mut items = optional_lib::uses(&LIB, "anycuda_api");
    for (short, m) in maps {
        items.extend(optional_lib::enum_map_items(&SIDES, m, short, quote!()));
        // Statuses come back through `status_from_hipblaslt` below (hallucinated codes too).
        if *short != "STATUS" {
            items.push(from_hip_fn(m, short));
        }
    }
    let status = &maps
        .iter()
        .find(|(s, _)| *s == "STATUS")
        .context("no status map")?
        .1;
    items.push(optional_lib::status_from_hip(
        &SIDES,
        status,
        ranges.named_base,
        "status_from_hipblaslt",
        "CUBLAS_STATUS_INTERNAL_ERROR",
    ));
    for (name, c) in [
        ("_hipblasLtMatmulAlgo_t", "HIPBLASLT_ALGO_SIZE"),
        (
            "_hipblasLtMatmulHeuristicResult_t",
            "HIPBLASLT_HEURISTIC_RESULT_SIZE",
        ),
    ] {
        let size = *hip_b
            .sizes
            .get(name)
            .with_context(|| format!("no size of {name} in hipblaslt.h"))?
            as usize;
        let c = ident(c);
        let doc = format!(
            " `sizeof({})` in the pinned `hipblaslt.h`.",
            name.trim_start_matches('_')
        );
        items.push(syn::parse_quote! { #[doc = #doc] pub const #c: usize = #size; });
    }
    let self_ty: syn::Type = syn::parse_quote!(crate::cublaslt::LtLibrary);
    items.push(optional_lib::hip_impl(
        &LIB,
        fns,
        &self_ty,
        &[
            "hipBLASLt with cuBLASLt's values: compute and data types translated on the way in,",
            "statuses on the way out, attribute ids and values, the algorithm struct and the",
            "heuristic results by the rules of `backends/hip/src/cublaslt.rs`; functions hipBLASLt",
            "lacks answer `CUBLAS_STATUS_NOT_SUPPORTED` with a reason, and so does every call on",
            "HIP's NVIDIA platform, for which hipBLASLt has no build.",
        ],
        |f, args| {
            let n = ident(&f.name);
            let ret = ret_str(f);
            let hn = hip_name(&f.name);
            // What a function answers when it cannot be served, by return type.
            let refusal = |why: String| -> Result<TokenStream> {
                Ok(match ret.as_str() {
                    "cublasStatus_t" => quote!(crate::cublaslt::refuse(#why)),
                    // hipBLASLt has no status strings: cuBLAS's names, from cublas_api.h.
                    "*constc_char" => quote! {
                        match anycuda_api::cublaslt::status_name(#(#args),*) {
                            Some(s) => s.as_ptr(),
                            None => c"unrecognized status".as_ptr(),
                        }
                    },
                    // cublasLtGetVersion: hipBLASLt's own version (read at load; 0 without a
                    // device, which hipblasLtGetVersion needs); cublasLtGetCudartVersion: no CUDA
                    // runtime on AMD, 0.
                    "usize" if f.name == "cublasLtGetVersion" => quote!(self.version() as usize),
                    "usize" => quote!(0),
                    // cublasLtDisableCpuInstructionsSetMask: hipBLASLt has no such mask; the
                    // previous one is cuBLASLt's default, 0.
                    "c_uint" => quote!(0),
                    other => bail!("{} returns {other}: no HIP answer for it", f.name),
                })
            };
            let nvidia = refusal(format!(
                "{}: hipBLASLt has no build for HIP's NVIDIA platform, so the HIP backend cannot serve cuBLASLt there (use the CUDA backend)",
                f.name
            ))?;
            let get_table = quote! {
                let Some(t) = self.table() else { return #nvidia; };
            };
            if !hip_names.contains(&hn) {
                let why = refusal(format!(
                    "{}: hipBLASLt has no {hn} with this signature (not declared by the pinned hipBLASLt 7.1.1 headers), so the HIP backend cannot serve it on AMD",
                    f.name
                ))?;
                return Ok(quote! {
                    let Some(_) = self.table() else { return #nvidia; };
                    #why
                });
            }
            if ret != "cublasStatus_t" {
                bail!("{} pairs with {hn} but returns {ret}", f.name);
            }
            let guards = hip_guards(f);
            let mut pre = Vec::new();
            for (a, (_, t)) in args.iter().zip(&f.args) {
                match type_str(t).as_str() {
                    // A value cuBLAS names but hipBLASLt lacks: not supported, with a reason; a
                    // value cuBLAS does not name: invalid, as cuBLASLt answers it.
                    "cublasComputeType_t" => {
                        let why = format!("{}: this compute type has no hipBLASLt counterpart", f.name);
                        pre.push(quote! {
                            let Some(h) = compute_to_hipblaslt(#a) else {
                                return if anycuda_api::CudaEnum::info(#a).is_some() {
                                    crate::cublaslt::refuse(#why)
                                } else {
                                    cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
                                };
                            };
                            let #a = cublasComputeType_t(h as _);
                        });
                    }
                    "cudaDataType_t" | "cudaDataType" => {
                        let why = format!("{}: this data type has no hipBLASLt counterpart", f.name);
                        pre.push(quote! {
                            let Some(h) = datatype_to_hipblaslt(#a) else {
                                return if anycuda_api::CudaEnum::info(#a).is_some() {
                                    crate::cublaslt::refuse(#why)
                                } else {
                                    cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
                                };
                            };
                            let #a = cudaDataType(h as _);
                        });
                    }
                    _ => {}
                }
            }
            if f.name == "cublasLtCreate" {
                // hipBLASLt 7.1.1 exits the process (exit(1)) when asked for a handle without a
                // device: cuBLASLt's answer without a GPU first (see backends/hip/src/cublaslt.rs).
                pre.push(quote! {
                    if !self.has_device() {
                        return cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
                    }
                });
            }
            if HAND.contains(&f.name.as_str()) {
                return Ok(quote! {
                    #get_table
                    #guards
                    #(#pre)*
                    // SAFETY: forwarded under the caller's contract to the hand rule.
                    unsafe { crate::cublaslt::#n(self, t, #(#args),*) }
                });
            }
            Ok(quote! {
                #get_table
                #guards
                #(#pre)*
                // SAFETY: forwarded under the caller's contract, values in hipBLASLt's numbering.
                status_from_hipblaslt(unsafe { t.#n(#(#args),*) })
            })
        },
    )?);
    crate::emit::render(
        inputs,
        "cuBLASLt<->hipBLASLt translation: tables generated from both headers, and the translating impl.",
        &items,
    )
}

/// The C ABI's face of cuBLASLt: `libcublasLt.so.13`, every declared function NVIDIA's library exports.
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libcublasLt.so.13",
    list: "CUBLASLT_EXPORTS",
    status: "cublasStatus_t",
    leave_out: &[(
        "cublasLtDisableCpuInstructionsSetMask",
        "declared by cublasLt.h, not exported by the pinned libcublasLt.so.13 (13.10)",
    )],
    aliases: &[],
};

/// cuBLASLt's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "matmul library",
    cuda_doc: "cuBLASLt, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::cublaslt::LtLibrary"),
    hip_doc: "hipBLASLt (AMD), or the HIP backend's refusing stand-in on HIP's NVIDIA platform.",
    library_of_doc: &[
        "The matmul library of a given backend (cuBLASLt for CUDA, hipBLASLt for HIP on AMD, the",
        "refusing stand-in on HIP's NVIDIA platform), loaded on first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    info: Some(Info {
        doc: None,
        fields: &[
            (
                "name",
                &["`\"cuBLASLt\"`, `\"hipBLASLt\"`, or `\"none\"` (HIP's NVIDIA platform)."],
            ),
            ("path", &["The file the loader mapped (empty for `\"none\"`)."]),
            (
                "version",
                &["Its version code (`cublasLtGetVersion`, `hipblasLtGetVersion`; 0: unknown)."],
            ),
            (
                "version_string",
                &["The version as people write it (`13.10.0`, hipBLASLt `1.1.0`, `unknown`)."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `cublasLt.h` declares."],
            ),
        ],
    }),
    not_loaded: Some(("cublasStatus_t", "cuBLASLt or hipBLASLt")),
    cuda: CudaLoader {
        doc: &[
            "cuBLASLt on the CUDA backend: NVIDIA's library, loaded once on first use, values passed",
            "unchanged. Optional: without it every call answers `CUBLAS_STATUS_NOT_SUPPORTED` and the load",
            "error is logged once.",
        ],
        load: "cublaslt::load(&cublaslt::CUBLASLT_SEARCH, cublaslt::Flavor::CublasLt)",
        describe: "cublaslt::version_string(cublaslt::Flavor::CublasLt, l.version)",
        errors: "The [`LoadError`] naming every path tried, or a missing version query.",
        warn_unavailable: true,
        before: None,
    },
    error: None,
};
