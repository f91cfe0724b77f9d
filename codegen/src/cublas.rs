//! cuBLAS, NVIDIA's dense linear-algebra library (PyPI `nvidia-cublas`), fetched by
//! `ci/fetch-inputs.sh`; hipBLAS (Debian trixie `libhipblas-dev` 5.5.1, fetched by
//! `ci/cublas-fetch.sh`) is its HIP counterpart.
//!
//! Outputs:
//! - `api/src/generated/cublas.rs`: cuBLAS's types from `cublas_api.h` (enums as newtypes,
//!   handles), with NVIDIA's names and values;
//! - `api/src/generated/cublas_fns.rs`: the function catalogue (every function `cublas_api.h`
//!   declares: the `_v2` names and the ones without a legacy twin, as libcublas exports them),
//!   the function-pointer table, the `Cublas` trait and the table's impl of it;
//! - `backends/hip/src/generated/cublas.rs`: the HIP backend's `Cublas` impl over hipBLAS;
//! - `src/generated/cublas.rs`: the facade's C-named free functions, dispatched to the backend.
//! - `capi/src/generated/cublas.rs`: the C ABI's exports with `libcublas.so.13`'s names, each the facade's
//!   function behind the re-entry guard (`optional_lib::capi_module`).

use crate::bindgen_run::{self, Job};
use crate::cublas_hip;
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::face::{CudaLoader, ErrorFace, Face, HipSide, Info};
use crate::model::{self, Bindings, FnDecl};
use crate::optional_lib::{self, ret_str, type_str, Lib};
use anyhow::{bail, Result};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runtime types `cublas_api.h` uses, defined once in `crate::runtime` and re-exported.
const FROM_RUNTIME: &[&str] = &[
    "libraryPropertyType",
    "cudaDataType",
    "cudaEmulationStrategy",
    "cudaEmulationMantissaControl",
    "cudaEmulationSpecialValuesSupport",
];

/// Generates the outputs. `runtime_b`: the CUDA runtime bindings (types the runtime defines are
/// re-exported from `crate::runtime`, not defined twice).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let cublas_version = optional_lib::pin(root, "CUBLAS_VERSION")?;
    let inputs = root.join(".cache/inputs");
    let cuda_inc = inputs.join("cuda/nvidia/cu13/include");
    let header = cuda_inc.join("cublas_api.h");
    let stamp = inputs.join(format!("cuda/.nvidia-cublas-{cublas_version}.done"));
    if !header.exists() || !stamp.exists() {
        bail!(
            "missing or stale codegen input {} (pinned nvidia-cublas {cublas_version}); run `bash ci/fetch-inputs.sh`",
            header.display()
        );
    }
    let shim = root.join("codegen/shim");
    let mut b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cublas_api.h"],
                allow_files: &[r".*/cublas_api\.h"],
                // The shim's cuda_fp16.h/cuda_bf16.h (shim/cublas, the first -I) and
                // crt/host_defines.h (shim) must win over the real (C++/CUDA) ones.
                // C++: the `__half` functions (cublasHgemm, ...) are declared for C++ only, and
                // libcublas exports them (extern "C").
                clang_args: vec![
                    "-xc++".into(),
                    "-std=c++14".into(),
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &shim.join("cublas"),
        )?,
        "cublas_api.h",
    )?;
    // The runtime's enums, and `cublasDataType_t` (an alias of the runtime's `cudaDataType`),
    // are written in api/src/cublas.rs over `crate::runtime`'s types.
    b.items.retain(|it| match it {
        model::Item::Enum(tag) => !FROM_RUNTIME.contains(&b.enums[tag].user_name()),
        model::Item::Plain(syn::Item::Type(t)) => t.ident != "cublasDataType_t",
        _ => true,
    });
    let text = std::fs::read_to_string(&header)?;
    let input = format!("nvidia-cublas {cublas_version} (cublas_api.h)");
    let fns: Vec<&FnDecl> = b.functions.iter().collect();
    if fns.is_empty() {
        bail!("no cuBLAS functions in cublas_api.h");
    }
    for f in &fns {
        fallback(f)?;
    }
    let hip_in = format!(
        "{input}, Debian trixie libhipblas-dev {} (hipblas.h), Debian sid libhipblas-dev {} (hipblas.h, hipblas-common.h)",
        optional_lib::pin(root, "HIPBLAS_DEB_VERSION")?,
        optional_lib::pin(root, "HIPBLAS2_DEB_VERSION")?
    );
    let hip = cublas_hip::generate(root, &b, runtime_b, &fns, ranges.named_base, &LIB, &hip_in)?;
    let mut extras: Extras = BTreeMap::new();
    let st = extras.entry("cublasStatus_t".to_string()).or_default();
    for (hn, hv) in &hip.hip_only_status {
        st.push(ExtraConst {
            name: cublas_hip::hallucinated_name(hn),
            value: ranges.named_base + hv,
            description: format!("hipBLAS's `{hn}` ({hv}), which cuBLAS does not declare (hallucinated by anycuda: value = 0x4000_0000 + hipBLAS value)."),
            origin: ExtraOrigin::Hallucinated(hn.clone()),
        });
    }
    Ok(vec![
        (
            PathBuf::from("api/src/generated/cublas.rs"),
            emit_cuda::api_module(
                &b,
                &[&text],
                &extras,
                &input,
                "cuBLAS types from `cublas_api.h`, with NVIDIA's names and values.",
                Some((runtime_b, "crate::runtime")),
            )?,
        ),
        (
            PathBuf::from("api/src/generated/cublas_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, hip.fns_items, &hip_in)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/cublas.rs"),
            hip.hip_module,
        ),
        (
            PathBuf::from("src/generated/cublas.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &input)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/cublas.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &input)?,
        ),
        (
            PathBuf::from("capi/src/generated/cublas.rs"),
            optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &input)?,
        ),
    ])
}

/// What a call answers without a library or entry point, by return type.
fn fallback(f: &FnDecl) -> Result<TokenStream> {
    Ok(match ret_str(f).as_str() {
        "cublasStatus_t" => quote!(crate::cublas::not_loaded()),
        // cublasGetCudartVersion: no runtime version known.
        "usize" => quote!(0),
        // cublasGetStatusName/String: a string that says why, never null.
        "*constc_char" => quote!(c"anycuda: no cuBLAS library loaded".as_ptr()),
        // cublasXerbla: nothing to report to.
        "()" => quote!(()),
        other => bail!("{} returns {other}: no fallback for it", f.name),
    })
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's BLAS library (cuBLAS, or hipBLAS on AMD), with cuBLAS's signature and values.")
}

/// A null handle answered before any library sees it: libcublas dereferences it.
/// `CUBLAS_STATUS_NOT_INITIALIZED` is cuBLAS's own answer for an uninitialised handle.
///
/// `cublasGetVersion_v2` is the exception: NVIDIA's library answers it without a handle (the
/// loader's version probe relies on that), so a null handle is passed on there, and a null
/// out-pointer, which libcublas would write through, is `CUBLAS_STATUS_INVALID_VALUE`.
fn null_guards(f: &FnDecl) -> TokenStream {
    let args = optional_lib::arg_idents(f);
    let mut checks = Vec::new();
    if f.name == "cublasGetVersion_v2" {
        let v = &args[1];
        return quote! {
            if #v.is_null() {
                return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
            }
        };
    }
    for (a, (_, t)) in args.iter().zip(&f.args) {
        if type_str(t) == "cublasHandle_t" {
            checks.push(quote! {
                if #a.is_null() {
                    return cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
                }
            });
        }
    }
    quote!(#(#checks)*)
}

/// cuBLAS as an optional library.
const LIB: Lib<'static> = Lib {
    module: "cublas",
    name: "cuBLAS",
    header: "cublas_api.h",
    catalogue: "CUBLAS_FUNCTIONS",
    catalogue_doc: &["Every function of the pinned `cublas_api.h`."],
    table: "CublasTable",
    table_of: "a loaded cuBLAS",
    trait_name: "Cublas",
    trait_doc: &[
        "The cuBLAS API, one method per function of the pinned `cublas_api.h`, with cuBLAS's",
        "signatures and values. Implemented by the raw table (values passed unchanged).",
    ],
    safety: &[
        "The contract of the cuBLAS function of the same name: every pointer and handle",
        "valid for what NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &[
        "c_char",
        "c_uchar",
        "c_int",
        "c_void",
        "c_longlong",
        "c_float",
        "c_double",
        "c_ushort",
        "c_uint",
    ],
    fallback: &fallback,
    prelude: &null_guards,
    facade_doc: &facade_doc,
};

/// The C ABI's face of cuBLAS: `libcublas.so.13`, every declared function exported.
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libcublas.so.13",
    list: "CUBLAS_EXPORTS",
    status: "cublasStatus_t",
    leave_out: &[],
    aliases: &[],
};

/// cuBLAS's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "BLAS library",
    cuda_doc: "cuBLAS, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::cublas::BlasLibrary"),
    hip_doc: "hipBLAS (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP backend.",
    library_of_doc: &[
        "The BLAS library of a given backend (cuBLAS for CUDA, hipBLAS for HIP), loaded on first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    info: Some(Info {
        doc: None,
        fields: &[
            ("name", &["`\"cuBLAS\"` or `\"hipBLAS\"`."]),
            ("path", &["The file the loader mapped."]),
            (
                "version",
                &[
                    "Its version code (`cublasGetVersion_v2`), e.g. `131000`; 0 for hipBLAS, which has no",
                    "version query.",
                ],
            ),
            (
                "version_string",
                &["The version as people write it (`13.10.0`; for hipBLAS, that it is unknown)."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `cublas_api.h` declares."],
            ),
            (
                "abi",
                &[
                    "How the library takes the mixed-precision functions' data and compute types",
                    "([`Abi::describe`]): read from hipBLAS's exports, `\"cuBLAS\"` for cuBLAS.",
                ],
            ),
        ],
    }),
    not_loaded: Some(("cublasStatus_t", "cuBLAS or hipBLAS")),
    cuda: CudaLoader {
        doc: &[
            "cuBLAS on the CUDA backend: NVIDIA's library, loaded once on first use, values passed",
            "unchanged. Optional: without it every call answers `CUBLAS_STATUS_NOT_SUPPORTED` and the",
            "load error is logged once.",
        ],
        load: "cublas::load(&cublas::CUBLAS_SEARCH, cublas::Flavor::Cublas).map(|(l, _)| l)",
        describe: "cublas::version_string(l.version)",
        errors: "The [`LoadError`] naming every path tried, or a missing version query.",
        warn_unavailable: true,
        // NVIDIA's cuBLAS binds cuBLASLt's internals by version: the CUDA backend's rule.
        before: Some("crate::loader::cublaslt_global();"),
    },
    error: Some(ErrorFace {
        error: "CublasError",
        status: "cublasStatus_t",
        success: "CUBLAS_STATUS_SUCCESS",
        word: "status",
        counterpart: None,
    }),
};
