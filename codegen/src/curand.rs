//! cuRAND, NVIDIA's host random-number library (PyPI `nvidia-curand`), and hipRAND, its HIP
//! counterpart (Debian bookworm `libhiprand-dev` 5.3.3, the ROCm 5.2.3 set), both fetched by
//! `ci/fetch-inputs.sh`.
//!
//! Outputs:
//! - `api/src/generated/curand.rs`: cuRAND's types (enums as newtypes, handles), with
//!   anycuda's own `CURAND_STATUS_NOT_SUPPORTED` and a hallucinated constant for every hipRAND
//!   status cuRAND lacks;
//! - `api/src/generated/curand_fns.rs`: the function catalogue, the function-pointer table, the
//!   `Curand` trait and the table's impl of it;
//! - `backends/hip/src/generated/curand.rs`: the cuRAND<->hipRAND tables (statuses, generator
//!   types) and the translating `Curand` impl the HIP backend uses on AMD;
//! - `src/generated/curand.rs`: the facade's C-named free functions, dispatched to the backend.
//! - `capi/src/generated/curand.rs`: the C ABI's exports with `libcurand.so.10`'s names, each the facade's
//!   function behind the re-entry guard (`optional_lib::capi_module`).
//!
//! Functions pair by name (`curandX` <-> `hiprandX`), enumerators too (`CURAND_X` <->
//! `HIPRAND_X`). A cuRAND function whose hipRAND twin the pinned `hiprand.h` does not declare
//! answers `CURAND_STATUS_NOT_SUPPORTED` on AMD, with a reason naming it.

use crate::bindgen_run::{self, Job};
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::face::{CudaLoader, ErrorFace, Face, HipSide, Info};
use crate::model::{self, Bindings, FnDecl};
use crate::optional_lib::{self, ret_str, type_str, EnumMap, Lib, Sides};
use anyhow::{bail, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// Runtime types `curand.h` uses, defined once in `crate::runtime` and re-exported.
const FROM_RUNTIME: &[&str] = &["libraryPropertyType", "libraryPropertyType_t"];

/// `curandX` -> `hiprandX`, `CURAND_X` -> `HIPRAND_X`.
pub fn hip_name(n: &str) -> String {
    if let Some(r) = n.strip_prefix("curand") {
        format!("hiprand{r}")
    } else if let Some(r) = n.strip_prefix("CURAND") {
        format!("HIPRAND{r}")
    } else {
        n.to_string()
    }
}

/// How cuRAND's and hipRAND's enums are paired.
const SIDES: Sides<'static> = Sides {
    cuda: "CURAND",
    hip: "HIPRAND",
    hip_name: &hip_name,
    sentinels: &[],
};

/// `HIPRAND_STATUS_NOT_IMPLEMENTED` -> `CURAND_STATUS_HIPRAND_NOT_IMPLEMENTED`.
fn hallucinated_name(h: &str) -> String {
    match h.strip_prefix("HIPRAND_STATUS_") {
        Some(rest) => format!("CURAND_STATUS_HIPRAND_{rest}"),
        None => format!("CURAND_STATUS_HIPRAND_{h}"),
    }
}

/// Generates the four outputs. `runtime_b`: the CUDA runtime bindings (`cudaStream_t`'s
/// struct is the runtime's, re-exported, not defined twice).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let curand_version = optional_lib::pin(root, "CURAND_VERSION")?;
    let hiprand_version = optional_lib::pin(root, "HIPRAND_DEB_VERSION")?;
    let inputs = root.join(".cache/inputs");
    let cuda_inc = inputs.join("cuda/nvidia/cu13/include");
    let hip_inc = inputs.join("hiprand/usr/include");
    for (p, stamp) in [
        (
            cuda_inc.join("curand.h"),
            inputs.join(format!("cuda/.nvidia-curand-{curand_version}.done")),
        ),
        (
            hip_inc.join("hiprand/hiprand.h"),
            inputs.join(format!("hiprand/.hiprand-{hiprand_version}.done")),
        ),
    ] {
        if !p.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned nvidia-curand {curand_version}, hipRAND {hiprand_version}); run `bash ci/fetch-inputs.sh`",
                p.display()
            );
        }
    }
    let shim = root.join("codegen/shim");
    let mut curand_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["curand.h"],
                allow_files: &[r".*/curand\.h"],
                // The shim's cuda_runtime.h must win over the real one: it comes first.
                clang_args: vec![
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &shim.join("curand"),
        )?,
        "curand.h",
    )?;
    // libraryPropertyType is the runtime's (library_types.h): one Rust type for both modules.
    curand_b.items.retain(|it| match it {
        model::Item::Enum(tag) => !FROM_RUNTIME.contains(&curand_b.enums[tag].user_name()),
        _ => true,
    });
    let hip_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hiprand/hiprand.h"],
                allow_files: &[r".*/hiprand\.h"],
                // The shim's hip/hip_runtime.h and hip/hip_fp16.h must win: they come first.
                // C++: hiprand_hcc.h names rocRAND's generator struct without its tag.
                clang_args: vec![
                    "-xc++".into(),
                    "-std=c++14".into(),
                    "-D__HIP_PLATFORM_AMD__".into(),
                    format!("-I{}", hip_inc.display()),
                ],
            },
            &shim.join("hiprand"),
        )?,
        "hiprand.h",
    )?;
    let curand_h = std::fs::read_to_string(cuda_inc.join("curand.h"))?;
    let curand_in = format!("nvidia-curand {curand_version} (curand.h)");
    let both_in = format!(
        "nvidia-curand {curand_version} (curand.h), Debian bookworm libhiprand-dev {hiprand_version} (hiprand.h)"
    );

    let status = optional_lib::map_enum(
        &SIDES,
        &curand_b,
        &hip_b,
        "curandStatus_t",
        "hiprandStatus_t",
    )?;
    let rng = optional_lib::map_enum(
        &SIDES,
        &curand_b,
        &hip_b,
        "curandRngType_t",
        "hiprandRngType_t",
    )?;

    let mut extras: Extras = BTreeMap::new();
    let st = extras.entry("curandStatus_t".to_string()).or_default();
    st.push(ExtraConst {
        name: "CURAND_STATUS_NOT_SUPPORTED".into(),
        value: ranges.anycuda_base,
        description: "anycuda: not supported. cuRAND declares no \"not supported\" status, yet anycuda needs one: it returns this when no random-number library could be loaded, when the loaded one lacks the entry point (hipRAND has no counterpart of several cuRAND functions; `anycuda::curand::not_supported_reason` names which), or when an argument has no counterpart in it.".into(),
        origin: ExtraOrigin::Anycuda,
    });
    for (hn, hv) in &status.hip_only {
        st.push(ExtraConst {
            name: hallucinated_name(hn),
            value: ranges.named_base + hv,
            description: format!("hipRAND's `{hn}` ({hv}), which cuRAND does not declare (hallucinated by anycuda: value = 0x4000_0000 + hipRAND value)."),
            origin: ExtraOrigin::Hallucinated(hn.clone()),
        });
    }

    let fns: Vec<&FnDecl> = curand_b.functions.iter().collect();
    if fns.is_empty() {
        bail!("no cuRAND functions in curand.h");
    }
    for f in &fns {
        if ret_str(f) != "curandStatus_t" {
            bail!("{} returns {}: no fallback for it", f.name, ret_str(f));
        }
    }
    let hip_names: BTreeSet<String> = hip_b.functions.iter().map(|f| f.name.clone()).collect();
    let declared: Vec<(&str, String)> = fns
        .iter()
        .filter(|f| hip_names.contains(&hip_name(&f.name)))
        .map(|f| (f.name.as_str(), hip_name(&f.name)))
        .collect();
    let declared_items: Vec<TokenStream> = declared.iter().map(|(c, h)| quote!((#c, #h))).collect();
    let declared_static: syn::Item = syn::parse_quote! {
        /// The functions of [`CURAND_FUNCTIONS`] whose hipRAND twin the pinned `hiprand.h`
        /// declares: (cuRAND name, hipRAND symbol).
        pub static HIPRAND_DECLARED: &[(&str, &str)] = &[#(#declared_items),*];
    };

    Ok(vec![
        (
            PathBuf::from("api/src/generated/curand.rs"),
            emit_cuda::api_module(
                &curand_b,
                &[&curand_h],
                &extras,
                &curand_in,
                "cuRAND types from `curand.h`, with NVIDIA's names and values.",
                Some((runtime_b, "crate::runtime")),
            )?,
        ),
        (
            PathBuf::from("api/src/generated/curand_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, vec![declared_static], &both_in)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/curand.rs"),
            hip_module(&fns, &hip_names, &status, &rng, ranges, &both_in)?,
        ),
        (
            PathBuf::from("src/generated/curand.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &curand_in)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/curand.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &curand_in)?,
        ),
        (
            PathBuf::from("capi/src/generated/curand.rs"),
            optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &curand_in)?,
        ),
    ])
}

/// Every function returns `curandStatus_t` (checked in [`generate`]).
fn fallback(_: &FnDecl) -> Result<TokenStream> {
    Ok(quote!(crate::curand::not_loaded()))
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's random-number library (cuRAND, or hipRAND on AMD), with cuRAND's signature and values.")
}

/// cuRAND as an optional library.
const LIB: Lib<'static> = Lib {
    module: "curand",
    name: "cuRAND",
    header: "curand.h",
    catalogue: "CURAND_FUNCTIONS",
    catalogue_doc: &["Every function of the pinned `curand.h`."],
    table: "CurandTable",
    table_of: "a loaded cuRAND or hipRAND",
    trait_name: "Curand",
    trait_doc: &[
        "The cuRAND API, one method per function of the pinned `curand.h`, with cuRAND's",
        "signatures and values. Implemented by the raw table (values passed unchanged) and",
        "by each backend's random-number library (hipRAND's values translated on AMD).",
    ],
    safety: &[
        "The contract of the cuRAND function of the same name: every pointer and handle",
        "valid for what NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &["c_int", "c_uint", "c_ulonglong", "c_void"],
    fallback: &fallback,
    prelude: &null_guards,
    facade_doc: &facade_doc,
};

/// Null generators and null out-pointers answered before any library sees them: cuRAND dereferences them and
/// crashes (`curandGetVersion(NULL)` is a SIGSEGV in libcurand 10.4.5), and bad input must
/// never crash. The answer is `CURAND_STATUS_OUT_OF_RANGE` ("argument out of range"), the
/// nearest cuRAND has to an invalid argument. An output array may be null when no element is
/// asked for (`num`/`n` is 0), as in cuRAND.
fn null_guards(f: &FnDecl) -> TokenStream {
    let args = optional_lib::arg_idents(f);
    let count = args.iter().find(|a| *a == "num" || *a == "n");
    let mut checks = Vec::new();
    // A null generator first, as cuRAND checks it: CURAND_STATUS_NOT_INITIALIZED, cuRAND's own
    // answer (hipRAND's destroy would answer success), on every backend.
    for (a, (_, t)) in args.iter().zip(&f.args) {
        if type_str(t) == "curandGenerator_t" {
            checks.push(quote! {
                if #a.is_null() {
                    return curandStatus_t::CURAND_STATUS_NOT_INITIALIZED;
                }
            });
        }
    }
    for (a, (_, t)) in args.iter().zip(&f.args) {
        if !type_str(t).starts_with("*mut") {
            continue;
        }
        let when = match (a.to_string().as_str(), count) {
            ("outputPtr", Some(c)) => quote!(#a.is_null() && #c != 0),
            _ => quote!(#a.is_null()),
        };
        checks.push(quote! {
            if #when {
                return curandStatus_t::CURAND_STATUS_OUT_OF_RANGE;
            }
        });
    }
    quote!(#(#checks)*)
}

fn hip_module(
    fns: &[&FnDecl],
    hip_names: &BTreeSet<String>,
    status: &EnumMap,
    rng: &EnumMap,
    ranges: &Ranges,
    inputs: &str,
) -> Result<String> {
    let mut items = optional_lib::uses(&LIB, "anycuda_api");
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        status,
        "STATUS",
        quote!(),
    ));
    items.push(optional_lib::status_from_hip(
        &SIDES,
        status,
        ranges.named_base,
        "status_from_hiprand",
        "CURAND_STATUS_INTERNAL_ERROR",
    ));
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        rng,
        "RNGTYPE",
        quote!(),
    ));
    let self_ty: syn::Type = syn::parse_quote!(crate::curand::RandLibrary);
    items.push(optional_lib::hip_impl(
        &LIB,
        fns,
        &self_ty,
        &[
            "hipRAND with cuRAND's values: generator types translated on the way in, statuses",
            "on the way out; functions hipRAND lacks answer `CURAND_STATUS_NOT_SUPPORTED` with a",
            "reason. A cuRAND library (`Flavor::Curand`) gets values unchanged.",
        ],
        |f, args| {
            let n = ident(&f.name);
            let forward = quote! {
                let t = self.table();
                if !self.translates() {
                    // SAFETY: a cuRAND library (Flavor::Curand): forwarded unchanged.
                    return unsafe { t.#n(#(#args),*) };
                }
            };
            let hn = hip_name(&f.name);
            if !hip_names.contains(&hn) {
                let why = format!(
                    "{}: hipRAND has no {hn} (not declared by the pinned hipRAND 5.3.3 headers), so the HIP backend cannot serve it on AMD",
                    f.name
                );
                return Ok(quote! {
                    #forward
                    crate::curand::refuse(#why)
                });
            }
            let mut pre = Vec::new();
            for (a, (_, t)) in args.iter().zip(&f.args) {
                match type_str(t).as_str() {
                    // cuRAND answers an unknown generator type with CURAND_STATUS_TYPE_ERROR.
                    "curandRngType_t" => pre.push(quote! {
                        let Some(#a) = rngtype_to_hiprand(#a) else { return curandStatus_t::CURAND_STATUS_TYPE_ERROR };
                        let #a = curandRngType_t(#a as _);
                    }),
                    "curandStatus_t" | "curandOrdering_t" | "curandDirectionVectorSet_t"
                    | "curandMethod_t" | "libraryPropertyType" => {
                        bail!(
                            "{} takes {}, which has no hipRAND table: add one",
                            f.name,
                            type_str(t)
                        )
                    }
                    _ => {}
                }
            }
            if f.name == "curandCreateGenerator" {
                // No device: cuRAND's own answer, before hipRAND (see backends/hip/src/curand.rs).
                // First, as cuRAND checks for a GPU before it looks at the type.
                pre.insert(0, quote! {
                    if !self.has_device() {
                        return curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED;
                    }
                });
            }
            if f.name == "curandCreateGeneratorHost" {
                // After the type check, as cuRAND checks the type of a host generator.
                let why = "curandCreateGeneratorHost: hipRAND's host generators need a HIP device (rocRAND 6.4 creates one without and aborts the process destroying it), and none is present";
                pre.push(quote! {
                    if !self.has_device() {
                        return crate::curand::refuse(#why);
                    }
                });
            }
            // The table checks null arguments too; checked here first so that they are answered
            // before this impl's own rules (the device check), in cuRAND's order.
            let guards = null_guards(f);
            Ok(quote! {
                #forward
                #guards
                #(#pre)*
                // SAFETY: forwarded under the caller's contract, values in hipRAND's numbering.
                status_from_hiprand(unsafe { t.#n(#(#args),*) })
            })
        },
    )?);
    crate::emit::render(
        inputs,
        "cuRAND<->hipRAND translation: tables generated from both headers, and the translating impl.",
        &items,
    )
}

/// The C ABI's face of cuRAND: `libcurand.so.10`, every declared function NVIDIA's library exports.
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libcurand.so.10",
    list: "CURAND_EXPORTS",
    status: "curandStatus_t",
    leave_out: &[
        (
            "curandGenerateBinomial",
            "declared by curand.h 10.4.5, not exported by the pinned libcurand.so.10",
        ),
        (
            "curandGenerateBinomialMethod",
            "declared by curand.h 10.4.5, not exported by the pinned libcurand.so.10",
        ),
    ],
    aliases: &[],
};

/// cuRAND's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "random-number library",
    cuda_doc: "cuRAND, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::curand::RandLibrary"),
    hip_doc: "hipRAND (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP backend.",
    library_of_doc: &[
        "The random-number library of a given backend (cuRAND for CUDA, hipRAND for HIP), loaded on",
        "first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    info: Some(Info {
        doc: None,
        fields: &[
            ("name", &["`\"cuRAND\"` or `\"hipRAND\"`."]),
            ("path", &["The file the loader mapped."]),
            (
                "version",
                &["Its version code (`curandGetVersion`/`hiprandGetVersion`), e.g. `10405`."],
            ),
            (
                "version_string",
                &["The version as people write it (`10.4.5`, hipRAND `2.10.9`)."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `curand.h` declares."],
            ),
        ],
    }),
    not_loaded: Some(("curandStatus_t", "cuRAND or hipRAND")),
    cuda: CudaLoader {
        doc: &[
            "cuRAND on the CUDA backend: NVIDIA's library, loaded once on first use, values passed",
            "unchanged. Optional: without it every call answers `CURAND_STATUS_NOT_SUPPORTED` and the",
            "load error is logged once.",
        ],
        load: "curand::load(&curand::CURAND_SEARCH, curand::Flavor::Curand)",
        describe: "curand::version_string(curand::Flavor::Curand, l.version)",
        errors: "The [`LoadError`] naming every path tried, or a missing version query.",
        warn_unavailable: true,
        before: None,
    },
    error: Some(ErrorFace {
        error: "CurandError",
        status: "curandStatus_t",
        success: "CURAND_STATUS_SUCCESS",
        word: "status",
        counterpart: Some("hipRAND"),
    }),
};
