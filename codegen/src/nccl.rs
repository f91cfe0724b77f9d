//! The collective libraries: NCCL (PyPI `nvidia-nccl-cu13`) and RCCL (Debian trixie
//! `librccl-dev`), both fetched by `ci/nccl-fetch.sh`.
//!
//! Outputs:
//! - `api/src/generated/nccl.rs`: NCCL's types (enums as newtypes, structs, handles), with
//!   anycuda's own `ncclNotSupported` and a hallucinated constant for every RCCL result code
//!   NCCL lacks;
//! - `api/src/generated/nccl_fns.rs`: the function catalogue, the function-pointer table, the
//!   `Nccl` trait and the table's impl of it;
//! - `backends/hip/src/generated/nccl.rs`: the NCCL<->RCCL tables (results, data types,
//!   reduction ops) and the translating `Nccl` impl the HIP backend uses on AMD;
//! - `src/generated/nccl.rs`: the facade's C-named free functions, dispatched to the backend.
//! - `capi/src/generated/nccl.rs`: the C ABI's exports with `libnccl.so.2`'s names, each the facade's
//!   function behind the re-entry guard (`optional_lib::capi_module`).

use crate::bindgen_run::{self, Job};
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::face::{CudaLoader, ErrorFace, Face, HipSide, Info};
use crate::model::{self, Bindings, FnDecl};
use crate::optional_lib::{self, arg_idents, ret_str, EnumMap, Lib, Sides};
use anyhow::{bail, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// Enumerators that count or bound an enum instead of naming a value: never translated (RCCL's
/// `ncclNumResults` is 7, which is NCCL's `ncclInProgress`).
const SENTINELS: &[&str] = &[
    "ncclNumResults",
    "ncclNumTypes",
    "ncclNumOps",
    "ncclMaxRedOp",
];

/// The enums whose values cross the NCCL<->RCCL boundary.
const TRANSLATED: &[&str] = &["ncclResult_t", "ncclDataType_t", "ncclRedOp_t"];

/// Where the pinned inputs are and which versions they are.
struct Inputs {
    nccl_include: PathBuf,
    rccl_include: PathBuf,
    nccl_version: String,
    rccl_version: String,
}

fn locate(root: &Path) -> Result<Inputs> {
    let pin = |key: &str| optional_lib::pin(root, key);
    let inputs = root.join(".cache/inputs");
    let me = Inputs {
        nccl_include: inputs.join("nccl/nvidia/nccl/include"),
        rccl_include: inputs.join("rccl/usr/include"),
        nccl_version: pin("NCCL_VERSION")?,
        rccl_version: pin("RCCL_DEB_VERSION")?,
    };
    for (p, stamp) in [
        (
            me.nccl_include.join("nccl.h"),
            inputs.join(format!("nccl/.nvidia-nccl-cu13-{}.done", me.nccl_version)),
        ),
        (
            me.rccl_include.join("rccl/rccl.h"),
            inputs.join(format!("rccl/.rccl-{}.done", me.rccl_version)),
        ),
    ] {
        if !p.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned NCCL {}, RCCL {}); run `bash ci/fetch-inputs.sh`",
                p.display(),
                me.nccl_version,
                me.rccl_version
            );
        }
    }
    Ok(me)
}

/// `ncclSystemError` -> `ncclRcclSystemError`: the hallucinated NCCL name of an RCCL-only code.
fn hallucinated_name(rccl: &str) -> String {
    match rccl.strip_prefix("nccl") {
        Some(rest) => format!("ncclRccl{rest}"),
        None => format!("ncclRccl_{rccl}"),
    }
}

/// Generates the four outputs. `runtime_b`: the CUDA runtime bindings (nccl.h's `cudaStream_t`
/// is the runtime's type, re-exported, not defined twice).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let inp = locate(root)?;
    let shim = root.join("codegen/shim");
    let cuda_inc = root.join(".cache/inputs/cuda/nvidia/cu13/include");
    let nccl_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nccl.h"],
                allow_files: &[r".*/nccl\.h"],
                clang_args: vec![
                    format!("-I{}", shim.join("nccl").display()),
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &inp.nccl_include,
        )?,
        "nccl.h",
    )?;
    let rccl_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["rccl/rccl.h"],
                allow_files: &[r".*/rccl\.h"],
                clang_args: vec![format!("-I{}", shim.join("rccl").display())],
            },
            &inp.rccl_include,
        )?,
        "rccl.h",
    )?;
    let nccl_h = std::fs::read_to_string(inp.nccl_include.join("nccl.h"))?;
    let nccl_in = format!("nvidia-nccl-cu13 {} (nccl.h)", inp.nccl_version);
    let both_in = format!(
        "nvidia-nccl-cu13 {} (nccl.h), Debian librccl-dev {} (rccl.h)",
        inp.nccl_version, inp.rccl_version
    );

    let maps: Vec<EnumMap> = TRANSLATED
        .iter()
        .map(|t| optional_lib::map_enum(&SIDES, &nccl_b, &rccl_b, t, t))
        .collect::<Result<_>>()?;

    // Extra constants: anycuda's own "not supported", and one per RCCL-only result code.
    let mut extras: Extras = BTreeMap::new();
    let res = extras.entry("ncclResult_t".to_string()).or_default();
    res.push(ExtraConst {
        name: "ncclNotSupported".into(),
        value: ranges.anycuda_base,
        description: "anycuda: not supported. NCCL declares no \"not supported\" result, yet anycuda needs one: it returns this when no collective library could be loaded, when the loaded one (an older NCCL or RCCL) lacks the entry point, or when an argument (a data type, an operation) has no counterpart in it.".into(),
        origin: ExtraOrigin::Anycuda,
    });
    for m in &maps {
        if m.ty != "ncclResult_t" {
            continue;
        }
        for (rn, rv) in &m.hip_only {
            res.push(ExtraConst {
                name: hallucinated_name(rn),
                value: ranges.named_base + rv,
                description: format!("RCCL's `{rn}` ({rv}), which NCCL does not declare (hallucinated by anycuda: value = 0x4000_0000 + RCCL value)."),
                origin: ExtraOrigin::Hallucinated(rn.clone()),
            });
        }
    }

    let mut out = Vec::new();
    out.push((
        PathBuf::from("api/src/generated/nccl.rs"),
        emit_cuda::api_module(
            &nccl_b,
            &[&nccl_h],
            &extras,
            &nccl_in,
            "NCCL types from `nccl.h`, with NCCL's names and values.",
            Some((runtime_b, "crate::runtime")),
        )?,
    ));
    let rccl_names: BTreeSet<String> = rccl_b.functions.iter().map(|f| f.name.clone()).collect();
    // RCCL's profiling twins (pncclX) are not part of the API users call.
    let fns: Vec<&FnDecl> = nccl_b
        .functions
        .iter()
        .filter(|f| !f.name.starts_with("pnccl"))
        .collect();
    let in_rccl: Vec<&str> = fns
        .iter()
        .map(|f| f.name.as_str())
        .filter(|n| rccl_names.contains(*n))
        .collect();
    let rccl_declared: syn::Item = syn::parse_quote! {
        /// The functions of [`NCCL_FUNCTIONS`] that the pinned `rccl.h` also declares.
        pub static RCCL_DECLARED: &[&str] = &[#(#in_rccl),*];
    };
    out.push((
        PathBuf::from("api/src/generated/nccl_fns.rs"),
        optional_lib::fns_module(&LIB, &FACE, &fns, vec![rccl_declared], &both_in)?,
    ));
    out.push((
        PathBuf::from("backends/hip/src/generated/nccl.rs"),
        hip_module(&fns, &maps, ranges, &both_in)?,
    ));
    out.push((
        PathBuf::from("src/generated/nccl.rs"),
        optional_lib::facade_module(&LIB, &FACE, &fns, &nccl_in)?,
    ));
    out.push((
        PathBuf::from("backends/cuda/src/generated/nccl.rs"),
        crate::face::cuda_loader_module(&LIB, &FACE, &nccl_in)?,
    ));
    out.push((
        PathBuf::from("capi/src/generated/nccl.rs"),
        optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &nccl_in)?,
    ));
    Ok(out)
}

/// What a call returns when it cannot be served (no library, no entry point).
fn fallback(d: &FnDecl) -> Result<TokenStream> {
    let args = arg_idents(d);
    Ok(match (d.name.as_str(), ret_str(d).as_str()) {
        (_, "ncclResult_t") => quote!(ncclResult_t::ncclNotSupported),
        ("ncclGetErrorString", _) => {
            let a = &args[0];
            quote!(crate::nccl::error_string(#a))
        }
        (_, "*constc_char") => quote!(crate::nccl::NOT_SUPPORTED_TEXT.as_ptr()),
        (_, "()") => quote!(()),
        (n, r) => bail!("no fallback for {n} returning {r}"),
    })
}

/// anycuda's own and invented codes mean nothing to the library: answered before it is called.
fn prelude(d: &FnDecl) -> TokenStream {
    if d.name == "ncclGetErrorString" {
        let a = &arg_idents(d)[0];
        quote! {
            if crate::hallucinated::is_reserved(#a.0 as i64) {
                return crate::nccl::error_string(#a);
            }
        }
    } else {
        quote!()
    }
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's collective library (NCCL, or RCCL on AMD), with NCCL's signature and values.")
}

/// NCCL as an optional library.
const LIB: Lib<'static> = Lib {
    module: "nccl",
    name: "NCCL",
    header: "nccl.h",
    catalogue: "NCCL_FUNCTIONS",
    catalogue_doc: &[
        "Every function of the pinned `nccl.h` (the profiling `pnccl*` twins left out).",
    ],
    table: "NcclTable",
    table_of: "a loaded NCCL or RCCL",
    trait_name: "Nccl",
    trait_doc: &[
        "The NCCL API, one method per function of the pinned `nccl.h`, with NCCL's",
        "signatures and values. Implemented by the raw table (values passed unchanged) and",
        "by each backend's collective library (RCCL's values translated on AMD).",
    ],
    safety: &[
        "The contract of the NCCL function of the same name: every pointer and handle valid",
        "for what NCCL's documentation says the function reads or writes.",
    ],
    ffi: &[
        "c_char",
        "c_int",
        "c_long",
        "c_longlong",
        "c_uint",
        "c_ulong",
        "c_ulonglong",
        "c_void",
    ],
    fallback: &fallback,
    prelude: &prelude,
    facade_doc: &facade_doc,
};

/// NCCL and RCCL keep the same names.
fn same_name(n: &str) -> String {
    n.to_string()
}

/// How NCCL's and RCCL's enums are paired.
const SIDES: Sides<'static> = Sides {
    cuda: "NCCL",
    hip: "RCCL",
    hip_name: &same_name,
    sentinels: SENTINELS,
};

fn hip_module(fns: &[&FnDecl], maps: &[EnumMap], ranges: &Ranges, inputs: &str) -> Result<String> {
    let mut items = optional_lib::uses(&LIB, "anycuda_api");
    for m in maps {
        let short =
            m.ty.trim_start_matches("nccl")
                .trim_end_matches("_t")
                .to_ascii_uppercase();
        let passthrough = if m.ty == "ncclRedOp_t" {
            // Custom ops from ncclRedOpCreatePreMulSum are handles the library itself handed
            // out: they pass unchanged.
            quote!(v if v >= 5 => Some(v as c_int),)
        } else {
            quote!()
        };
        items.extend(optional_lib::enum_map_items(&SIDES, m, &short, passthrough));
        if m.ty == "ncclResult_t" {
            items.push(optional_lib::status_from_hip(
                &SIDES,
                m,
                ranges.named_base,
                "result_from_rccl",
                "ncclInternalError",
            ));
        }
    }
    // The translating impl.
    let self_ty: syn::Type = syn::parse_quote!(crate::nccl::CollectiveLibrary);
    items.push(optional_lib::hip_impl(
        &LIB,
        fns,
        &self_ty,
        &[
            "RCCL with NCCL's values: data types and operations translated on the way in, results",
            "on the way out. On HIP's NVIDIA platform the library is NCCL and values pass unchanged.",
        ],
        |f, args| {
            let n = ident(&f.name);
            let ret_s = ret_str(f);
            let mut pre = Vec::new();
            let mut post = Vec::new();
            for (a, (_, t)) in args.iter().zip(&f.args) {
                match optional_lib::type_str(t).as_str() {
                    "ncclDataType_t" => pre.push(quote! {
                        let Some(#a) = datatype_to_rccl(#a) else { return ncclResult_t::ncclNotSupported };
                        let #a = ncclDataType_t(#a as _);
                    }),
                    "ncclRedOp_t" => pre.push(quote! {
                        let Some(#a) = redop_to_rccl(#a) else { return ncclResult_t::ncclNotSupported };
                        let #a = ncclRedOp_t(#a as _);
                    }),
                    "*mutncclResult_t" => post.push(quote! {
                        if r == ncclResult_t::ncclSuccess && !#a.is_null() {
                            // SAFETY: the library just wrote a result there, under the caller's contract.
                            unsafe { *#a = result_from_rccl(*#a) };
                        }
                    }),
                    "ncclResult_t" if f.name == "ncclGetErrorString" => pre.push(quote! {
                        let Some(#a) = result_to_rccl(#a) else { return crate::nccl::own_error_string(#a) };
                        let #a = ncclResult_t(#a as _);
                    }),
                    _ => {}
                }
            }
            let body = if ret_s == "ncclResult_t" {
                quote! {
                    #(#pre)*
                    // SAFETY: forwarded under the caller's contract, values in RCCL's numbering.
                    let r = result_from_rccl(unsafe { t.#n(#(#args),*) });
                    #(#post)*
                    r
                }
            } else {
                quote! {
                    #(#pre)*
                    // SAFETY: forwarded under the caller's contract.
                    unsafe { t.#n(#(#args),*) }
                }
            };
            Ok(quote! {
                let t = self.table();
                if !self.translates() {
                    // SAFETY: NCCL itself (HIP's NVIDIA platform): forwarded unchanged.
                    return unsafe { t.#n(#(#args),*) };
                }
                #body
            })
        },
    )?);
    crate::emit::render(
        inputs,
        "NCCL<->RCCL translation: tables generated from both headers, and the translating impl.",
        &items,
    )
}

/// The C ABI's face of NCCL: `libnccl.so.2`, every declared function exported.
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libnccl.so.2",
    list: "NCCL_EXPORTS",
    status: "ncclResult_t",
    leave_out: &[],
    aliases: &[],
};

/// NCCL's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "collective library",
    cuda_doc: "NCCL, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::nccl::CollectiveLibrary"),
    hip_doc: "RCCL (AMD) or NCCL (HIP's NVIDIA platform), loaded by the HIP backend.",
    library_of_doc: &[
        "The collective library of a given backend (NCCL for CUDA; RCCL or NCCL for HIP, by",
        "platform), loaded on first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    // A version code but no version string (`nccl::version_string` writes one).
    info: Some(Info {
        doc: None,
        fields: &[
            ("name", &["`\"NCCL\"` or `\"RCCL\"`."]),
            ("path", &["The file the loader mapped."]),
            (
                "version",
                &["Its version code (`ncclGetVersion`), e.g. `23203`."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `nccl.h` declares."],
            ),
        ],
    }),
    not_loaded: None,
    cuda: CudaLoader {
        doc: &["NCCL on the CUDA backend: NVIDIA's library, loaded once, values passed unchanged."],
        load: "nccl::load(&nccl::NCCL_SEARCH)",
        describe: "nccl::version_string(l.version)",
        errors:
            "The [`LoadError`] naming every path tried, a missing entry point or a too-old version.",
        warn_unavailable: false,
        before: None,
    },
    error: Some(ErrorFace {
        error: "NcclError",
        status: "ncclResult_t",
        success: "ncclSuccess",
        word: "code",
        counterpart: Some("RCCL"),
    }),
};
