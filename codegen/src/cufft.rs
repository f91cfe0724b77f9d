//! cuFFT, NVIDIA's fast Fourier transform library (PyPI `nvidia-cufft`), and hipFFT, its HIP
//! counterpart (Debian trixie `libhipfft-dev` 6.1.2, the ROCm 5.7.1 set), both fetched by
//! `ci/fetch-inputs.sh` (`ci/cufft-fetch.sh`).
//!
//! Outputs:
//! - `api/src/generated/cufft.rs`: cuFFT's types from `cufft.h` (enums as newtypes, the `int`
//!   plan handle), with a hallucinated constant for every hipFFT result cuFFT lacks;
//! - `api/src/generated/cufft_fns.rs`: the function catalogue, the function-pointer table, the
//!   `Cufft` trait and the table's impl of it;
//! - `backends/hip/src/generated/cufft.rs`: the cuFFT<->hipFFT tables (results, transform
//!   types), hipFFT's own function-pointer table (`HipfftTable`: hipFFT's plan handle is a
//!   pointer where cuFFT's is an `int`) and the translating `Cufft` impl the HIP backend uses;
//! - `src/generated/cufft.rs`: the facade's C-named free functions, dispatched to the backend;
//! - `capi/src/generated/cufft.rs`: the C ABI's exports with `libcufft.so.12`'s names, each the
//!   facade's function behind the re-entry guard (`optional_lib::capi_module`).
//!
//! Functions pair by name (`cufftX` <-> `hipfftX`), enumerators too (`CUFFT_X` <-> `HIPFFT_X`).
//! A cuFFT function whose hipFFT twin the pinned `hipfft.h` does not declare answers
//! `CUFFT_NOT_SUPPORTED` (cuFFT's own code) on AMD, with a reason naming it. On the HIP side
//! every `cufftHandle` goes through the backend's plan table (int handle <-> hipFFT plan): an
//! unknown handle answers `CUFFT_INVALID_PLAN` before hipFFT sees it.

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

/// Runtime types `cufft.h` uses, defined once in `crate::runtime` and re-exported.
const FROM_RUNTIME: &[&str] = &["libraryPropertyType", "libraryPropertyType_t"];

/// `cufftX` -> `hipfftX`, `CUFFT_X` -> `HIPFFT_X`.
pub fn hip_name(n: &str) -> String {
    if let Some(r) = n.strip_prefix("cufft") {
        format!("hipfft{r}")
    } else if let Some(r) = n.strip_prefix("CUFFT") {
        format!("HIPFFT{r}")
    } else {
        n.to_string()
    }
}

/// How cuFFT's and hipFFT's enums are paired.
const SIDES: Sides<'static> = Sides {
    cuda: "CUFFT",
    hip: "HIPFFT",
    hip_name: &hip_name,
    sentinels: &[],
};

/// `HIPFFT_PARSE_ERROR` -> `CUFFT_HIPFFT_PARSE_ERROR`.
fn hallucinated_name(h: &str) -> String {
    match h.strip_prefix("HIPFFT_") {
        Some(rest) => format!("CUFFT_HIPFFT_{rest}"),
        None => format!("CUFFT_HIPFFT_{h}"),
    }
}

/// Generates the five outputs. `runtime_b`: the CUDA runtime bindings (`cudaStream_t`,
/// `float2`/`double2` and `libraryPropertyType` are the runtime's, re-exported).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let cufft_version = optional_lib::pin(root, "CUFFT_VERSION")?;
    let hipfft_version = optional_lib::pin(root, "HIPFFT_DEB_VERSION")?;
    let inputs = root.join(".cache/inputs");
    let cuda_inc = inputs.join("cuda/nvidia/cu13/include");
    let hip_inc = inputs.join("hipfft/usr/include");
    for (p, stamp) in [
        (
            cuda_inc.join("cufft.h"),
            inputs.join(format!("cuda/.nvidia-cufft-{cufft_version}.done")),
        ),
        (
            hip_inc.join("hipfft/hipfft.h"),
            inputs.join(format!("hipfft/.hipfft-{hipfft_version}.done")),
        ),
    ] {
        if !p.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned nvidia-cufft {cufft_version}, hipFFT {hipfft_version}); run `bash ci/fetch-inputs.sh`",
                p.display()
            );
        }
    }
    let shim = root.join("codegen/shim");
    let mut cufft_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cufft.h"],
                allow_files: &[r".*/cufft\.h"],
                // The shim's crt/host_defines.h must win over the real one: it comes first.
                clang_args: vec![
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &shim.join("curand"),
        )?,
        "cufft.h",
    )?;
    cufft_b.items.retain(|it| match it {
        model::Item::Enum(tag) => !FROM_RUNTIME.contains(&cufft_b.enums[tag].user_name()),
        _ => true,
    });
    let hip_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hipfft/hipfft.h"],
                allow_files: &[r".*/hipfft\.h"],
                // The shim's hip/*.h (shim/hipfft, the first -I) must win over HIP's own.
                clang_args: vec![
                    "-xc++".into(),
                    "-std=c++14".into(),
                    "-D__HIP_PLATFORM_AMD__".into(),
                    format!("-I{}", hip_inc.display()),
                ],
            },
            &shim.join("hipfft"),
        )?,
        "hipfft.h",
    )?;
    let cufft_h = std::fs::read_to_string(cuda_inc.join("cufft.h"))?;
    let cufft_in = format!("nvidia-cufft {cufft_version} (cufft.h)");
    let both_in = format!(
        "nvidia-cufft {cufft_version} (cufft.h), Debian trixie libhipfft-dev {hipfft_version} (hipfft.h)"
    );

    let result = optional_lib::map_enum(&SIDES, &cufft_b, &hip_b, "cufftResult", "hipfftResult")?;
    let types = optional_lib::map_enum(&SIDES, &cufft_b, &hip_b, "cufftType", "hipfftType")?;

    let mut extras: Extras = BTreeMap::new();
    let st = extras.entry("cufftResult".to_string()).or_default();
    for (hn, hv) in &result.hip_only {
        st.push(ExtraConst {
            name: hallucinated_name(hn),
            value: ranges.named_base + hv,
            description: format!("hipFFT's `{hn}` ({hv}), which cuFFT does not declare (hallucinated by anycuda: value = 0x4000_0000 + hipFFT value)."),
            origin: ExtraOrigin::Hallucinated(hn.clone()),
        });
    }

    let fns: Vec<&FnDecl> = cufft_b.functions.iter().collect();
    if fns.is_empty() {
        bail!("no cuFFT functions in cufft.h");
    }
    for f in &fns {
        if ret_str(f) != "cufftResult" {
            bail!("{} returns {}: no fallback for it", f.name, ret_str(f));
        }
    }
    let hip_fns: BTreeMap<String, &FnDecl> = hip_b
        .functions
        .iter()
        .map(|f| (f.name.clone(), f))
        .collect();
    // Every pair must agree in shape: the same number of arguments, and hipFFT's plan handle
    // (a pointer) exactly where cuFFT's (an int) is; the rest is the same C ABI.
    for f in &fns {
        let Some(h) = hip_fns.get(&hip_name(&f.name)) else {
            continue;
        };
        if h.args.len() != f.args.len() {
            bail!("{} and {} differ in arity", f.name, h.name);
        }
        for ((_, ct), (_, ht)) in f.args.iter().zip(&h.args) {
            let (c, hh) = (type_str(ct), type_str(ht));
            let handle_c = c == "cufftHandle" || c == "*mutcufftHandle";
            let handle_h = hh == "hipfftHandle" || hh == "*muthipfftHandle";
            if handle_c != handle_h || (handle_c && c.starts_with('*') != hh.starts_with('*')) {
                bail!("{}: {c} against hipFFT's {hh}", f.name);
            }
        }
    }
    let hip_names: BTreeSet<String> = hip_fns.keys().cloned().collect();
    let declared: Vec<(&str, String)> = fns
        .iter()
        .filter(|f| hip_names.contains(&hip_name(&f.name)))
        .map(|f| (f.name.as_str(), hip_name(&f.name)))
        .collect();
    let declared_items: Vec<TokenStream> = declared.iter().map(|(c, h)| quote!((#c, #h))).collect();
    let declared_static: syn::Item = syn::parse_quote! {
        /// The functions of [`CUFFT_FUNCTIONS`] whose hipFFT twin the pinned `hipfft.h`
        /// declares: (cuFFT name, hipFFT symbol).
        pub static HIPFFT_DECLARED: &[(&str, &str)] = &[#(#declared_items),*];
    };

    Ok(vec![
        (
            PathBuf::from("api/src/generated/cufft.rs"),
            emit_cuda::api_module(
                &cufft_b,
                &[&cufft_h],
                &extras,
                &cufft_in,
                "cuFFT types from `cufft.h`, with NVIDIA's names and values.",
                Some((runtime_b, "crate::runtime")),
            )?,
        ),
        (
            PathBuf::from("api/src/generated/cufft_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, vec![declared_static], &both_in)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/cufft.rs"),
            hip_module(&fns, &hip_names, &result, &types, ranges, &both_in)?,
        ),
        (
            PathBuf::from("src/generated/cufft.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &cufft_in)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/cufft.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &cufft_in)?,
        ),
        (
            PathBuf::from("capi/src/generated/cufft.rs"),
            optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &cufft_in)?,
        ),
    ])
}

/// Every function returns `cufftResult` (checked in [`generate`]).
fn fallback(_: &FnDecl) -> Result<TokenStream> {
    Ok(quote!(crate::cufft::not_loaded()))
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's FFT library (cuFFT, or hipFFT on AMD), with cuFFT's signature and values.")
}

/// cuFFT as an optional library.
const LIB: Lib<'static> = Lib {
    module: "cufft",
    name: "cuFFT",
    header: "cufft.h",
    catalogue: "CUFFT_FUNCTIONS",
    catalogue_doc: &["Every function of the pinned `cufft.h`."],
    table: "CufftTable",
    table_of: "a loaded cuFFT",
    trait_name: "Cufft",
    trait_doc: &[
        "The cuFFT API, one method per function of the pinned `cufft.h`, with cuFFT's",
        "signatures and values. Implemented by the raw table (values passed unchanged) and",
        "by each backend's FFT library (hipFFT's values and plan handles translated on AMD).",
    ],
    safety: &[
        "The contract of the cuFFT function of the same name: every pointer valid for what",
        "NVIDIA's documentation says the function reads or writes (data pointers on the device).",
    ],
    ffi: &["c_int", "c_longlong", "c_void"],
    fallback: &fallback,
    prelude: &null_guards,
    facade_doc: &facade_doc,
};

/// Whether an argument is an out-pointer (or the size array `n`) that must not be null: every
/// `int*`, `long long*`, `size_t*` and `cufftHandle*` but the embedding arrays (`inembed`,
/// `onembed`), which cuFFT reads only when given (null: the basic layout).
fn must_not_be_null(name: &str, t: &str) -> bool {
    matches!(
        t,
        "*mutc_int" | "*mutc_longlong" | "*mutusize" | "*mutcufftHandle"
    ) && name != "inembed"
        && name != "onembed"
}

/// Null out-pointers (and a null size array `n`) answered before any library sees them:
/// cuFFT writes through them, and bad input must never crash. The answer is
/// `CUFFT_INVALID_VALUE` ("user specified an invalid pointer or parameter").
fn null_guards(f: &FnDecl) -> TokenStream {
    let args = optional_lib::arg_idents(f);
    let mut checks = Vec::new();
    for (a, (_, t)) in args.iter().zip(&f.args) {
        if !must_not_be_null(&a.to_string(), &type_str(t)) {
            continue;
        }
        checks.push(quote! {
            if #a.is_null() {
                return cufftResult::CUFFT_INVALID_VALUE;
            }
        });
    }
    quote!(#(#checks)*)
}

/// A cuFFT declaration with hipFFT's plan handle: `cufftHandle` -> `*mut c_void`,
/// `cufftHandle*` -> `*mut *mut c_void`; the rest is the same C ABI (complex types are two
/// floats or doubles on both sides, enums C ints, `hipStream_t` a pointer like `cudaStream_t`).
fn hip_decl(f: &FnDecl) -> FnDecl {
    let args = f
        .args
        .iter()
        .map(|(n, t)| {
            let t: syn::Type = match type_str(t).as_str() {
                "cufftHandle" => syn::parse_quote!(*mut c_void),
                "*mutcufftHandle" => syn::parse_quote!(*mut *mut c_void),
                _ => t.clone(),
            };
            (n.clone(), t)
        })
        .collect();
    FnDecl {
        name: f.name.clone(),
        doc: String::new(),
        args,
        ret: f.ret.clone(),
        variadic: false,
    }
}

fn hip_module(
    fns: &[&FnDecl],
    hip_names: &BTreeSet<String>,
    result: &EnumMap,
    types: &EnumMap,
    ranges: &Ranges,
    inputs: &str,
) -> Result<String> {
    let mut items = optional_lib::uses(&LIB, "anycuda_api");
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        result,
        "RESULT",
        quote!(),
    ));
    items.push(optional_lib::status_from_hip(
        &SIDES,
        result,
        ranges.named_base,
        "result_from_hipfft",
        "CUFFT_INTERNAL_ERROR",
    ));
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        types,
        "TYPE",
        quote!(),
    ));

    // hipFFT's own table: the functions it declares, with its pointer plan handle.
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    for f in fns
        .iter()
        .filter(|f| hip_names.contains(&hip_name(&f.name)))
    {
        let n = ident(&f.name);
        let hn = hip_name(&f.name);
        let ty = emit_cuda::fn_ptr_type(&hip_decl(f));
        let doc = format!(" `{hn}`, the twin of `{}`.", f.name);
        fields.push(quote! { #[doc = #doc] pub #n: #ty });
        let sym = format!("{hn}\0");
        inits.push(quote! {
            #n: unsafe { ::core::mem::transmute::<*mut c_void, #ty>(resolve(#sym)) }
        });
        names.push(n);
    }
    let count = names.len();
    items.push(syn::parse_quote! {
        /// hipFFT's entry points, one per function of [`anycuda_api::cufft::HIPFFT_DECLARED`], with
        /// hipFFT's signatures: its plan handle is a pointer (`hipfftHandle`), cuFFT's an `int`.
        /// Values are hipFFT's. (`None`: not provided by the loaded library.)
        #[derive(Clone, Copy)]
        pub struct HipfftTable { #(#fields),* }
    });
    items.push(syn::parse_quote! {
        impl HipfftTable {
            /// Resolves every entry point, calling `resolve` once per function with its hipFFT
            /// symbol (NUL-terminated); a null pointer leaves the field `None`.
            ///
            /// # Safety
            /// `resolve` must return null or a pointer to a function with exactly the ABI the
            /// pinned `hipfft.h` declares for that symbol.
            pub unsafe fn load(mut resolve: impl FnMut(&'static str) -> *mut c_void) -> Self {
                Self { #(#inits),* }
            }
            /// How many entry points resolved.
            pub fn loaded_count(&self) -> usize {
                [#(self.#names.is_some()),*].iter().filter(|b| **b).count()
            }
        }
    });
    items.push(syn::parse_quote! {
        impl ::core::fmt::Debug for HipfftTable {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct("HipfftTable")
                    .field("loaded", &self.loaded_count())
                    .field("of", &#count)
                    .finish()
            }
        }
    });

    let self_ty: syn::Type = syn::parse_quote!(crate::cufft::FftLibrary);
    items.push(optional_lib::hip_impl(
        &LIB,
        fns,
        &self_ty,
        &[
            "hipFFT with cuFFT's values: plan handles through the plan table, transform types",
            "translated on the way in, results on the way out; functions hipFFT lacks answer",
            "`CUFFT_NOT_SUPPORTED` with a reason.",
        ],
        |f, args| {
            let n = ident(&f.name);
            let hn = hip_name(&f.name);
            if !hip_names.contains(&hn) {
                let why = format!(
                    "{}: hipFFT has no {hn} (not declared by the pinned hipFFT 6.1.2 headers), so the HIP backend cannot serve it on AMD",
                    f.name
                );
                return Ok(quote!(crate::cufft::refuse(#why)));
            }
            let guards = null_guards(f);
            let mut handles = Vec::new();
            let mut values = Vec::new();
            let mut call_args = Vec::new();
            let mut created = None;
            for (a, (_, t)) in args.iter().zip(&f.args) {
                match type_str(t).as_str() {
                    "cufftHandle" => {
                        if f.name == "cufftDestroy" {
                            // CUFFT_PLAN_NULL: cuFFT destroys nothing and succeeds. Any other
                            // plan is taken out of the table first: hipFFT frees it either way.
                            handles.push(quote! {
                                if #a == CUFFT_PLAN_NULL {
                                    return cufftResult::CUFFT_SUCCESS;
                                }
                                let Some(#a) = crate::cufft::plans().remove(#a) else {
                                    return cufftResult::CUFFT_INVALID_PLAN;
                                };
                            });
                        } else {
                            handles.push(quote! {
                                let Some(#a) = crate::cufft::plans().get(#a) else {
                                    return cufftResult::CUFFT_INVALID_PLAN;
                                };
                            });
                        }
                        call_args.push(quote!(#a));
                    }
                    "*mutcufftHandle" => {
                        created = Some(a.clone());
                        call_args.push(quote!(&mut hip_plan));
                    }
                    "cufftType" => {
                        values.push(quote! {
                            let Some(#a) = type_to_hipfft(#a) else {
                                return cufftResult::CUFFT_INVALID_TYPE;
                            };
                            let #a = cufftType(#a as _);
                        });
                        call_args.push(quote!(#a));
                    }
                    // hipfftLibraryPropertyType numbers MAJOR, MINOR, PATCH as cuFFT's
                    // libraryPropertyType does (0, 1, 2); anything else is cuFFT's INVALID_TYPE.
                    "libraryPropertyType" => {
                        values.push(quote! {
                            if !(0..=2).contains(&(#a.0 as i64)) {
                                return cufftResult::CUFFT_INVALID_TYPE;
                            }
                        });
                        call_args.push(quote!(#a));
                    }
                    "cufftResult" | "cufftProperty" | "cufftCompatibility" => bail!(
                        "{} takes {}, which has no hipFFT table: add one",
                        f.name,
                        type_str(t)
                    ),
                    _ => call_args.push(quote!(#a)),
                }
            }
            // No device: cuFFT's own answer without a GPU (CUFFT_INTERNAL_ERROR), after the
            // handle check as cuFFT's order is (an unknown plan is INVALID_PLAN there too).
            let needs_device = !matches!(
                f.name.as_str(),
                "cufftGetVersion" | "cufftGetProperty" | "cufftDestroy"
            );
            let device = if needs_device {
                quote! {
                    if !self.has_device() {
                        return cufftResult::CUFFT_INTERNAL_ERROR;
                    }
                }
            } else {
                quote!()
            };
            let call = quote! {
                let Some(hip_fn) = self.table().#n else {
                    return crate::cufft::not_loaded();
                };
            };
            let body = match created {
                Some(out) => quote! {
                    let mut hip_plan: *mut c_void = ::core::ptr::null_mut();
                    // SAFETY: forwarded under the caller's contract, values in hipFFT's numbering;
                    // hip_plan is a valid out-pointer.
                    let r = result_from_hipfft(unsafe { hip_fn(#(#call_args),*) });
                    if r == cufftResult::CUFFT_SUCCESS {
                        // SAFETY: checked non-null above; the caller's out-pointer.
                        unsafe { *#out = crate::cufft::plans().insert(hip_plan) };
                    }
                    r
                },
                None => quote! {
                    // SAFETY: forwarded under the caller's contract, values in hipFFT's numbering.
                    result_from_hipfft(unsafe { hip_fn(#(#call_args),*) })
                },
            };
            Ok(quote! {
                #guards
                #(#handles)*
                #device
                #(#values)*
                #call
                #body
            })
        },
    )?);
    crate::emit::render(
        inputs,
        "cuFFT<->hipFFT translation: tables generated from both headers, hipFFT's own entry points and the translating impl.",
        &items,
    )
}

/// The C ABI's face of cuFFT: `libcufft.so.12`, every function `cufft.h` declares (NVIDIA's
/// library exports them all).
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libcufft.so.12",
    list: "CUFFT_EXPORTS",
    status: "cufftResult",
    leave_out: &[],
    aliases: &[],
};

/// cuFFT's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "FFT library",
    cuda_doc: "cuFFT, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::cufft::FftLibrary"),
    hip_doc: "hipFFT (AMD's), loaded by the HIP backend.",
    library_of_doc: &[
        "The FFT library of a given backend (cuFFT for CUDA, hipFFT for HIP on AMD), loaded on",
        "first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    info: Some(Info {
        doc: None,
        fields: &[
            ("name", &["`\"cuFFT\"` or `\"hipFFT\"`."]),
            ("path", &["The file the loader mapped."]),
            (
                "version",
                &["Its version code (`cufftGetVersion`/`hipfftGetVersion`), e.g. `12500`."],
            ),
            (
                "version_string",
                &["The version as people write it (`12.5.0`; hipFFT 6.1.2 reports `1.0.27`)."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `cufft.h` declares."],
            ),
        ],
    }),
    not_loaded: Some(("cufftResult", "cuFFT or hipFFT")),
    cuda: CudaLoader {
        doc: &[
            "cuFFT on the CUDA backend: NVIDIA's library, loaded once on first use, values and plan",
            "handles passed unchanged. Optional: without it every call answers `CUFFT_NOT_SUPPORTED` and",
            "the load error is logged once.",
        ],
        load: "cufft::load(&cufft::CUFFT_SEARCH)",
        describe: "cufft::version_string(false, l.version)",
        errors: "The [`LoadError`] naming every path tried, or a missing version query.",
        warn_unavailable: true,
        before: None,
    },
    error: Some(ErrorFace {
        error: "CufftError",
        status: "cufftResult",
        success: "CUFFT_SUCCESS",
        word: "result",
        counterpart: Some("hipFFT"),
    }),
};
