//! cuSPARSE, NVIDIA's sparse linear-algebra library (PyPI `nvidia-cusparse`, fetched by
//! `ci/fetch-inputs.sh`); hipSPARSE (Debian bookworm `libhipsparse-dev` 5.3.3, fetched by
//! `ci/cusparse-fetch.sh`) is its HIP counterpart.
//!
//! Outputs:
//! - `api/src/generated/cusparse.rs`: cuSPARSE's types from `cusparse.h` (enums as newtypes,
//!   opaque descriptor handles), with NVIDIA's names and values;
//! - `api/src/generated/cusparse_fns.rs`: the function catalogue (every function `cusparse.h`
//!   declares), the function-pointer table, the `Cusparse` trait and the table's impl of it, and
//!   `HIPSPARSE_DECLARED` (what the HIP backend serves);
//! - `backends/hip/src/generated/cusparse.rs`: the HIP backend's `Cusparse` impl over hipSPARSE;
//! - `src/generated/cusparse.rs`: the facade's C-named free functions;
//! - `capi/src/generated/cusparse.rs`: the C ABI's exports with `libcusparse.so.12`'s names.
//!
//! The HIP side pairs functions by name (`cusparseX` -> `hipsparseX`) where hipSPARSE declares
//! the twin with the same ABI, argument by argument (`cublas_hip::Types`). Every enum argument
//! (`cusparseX_t` -> `hipsparseX_t`, `cudaDataType` -> `hipDataType`) is translated by a table
//! paired by name from both headers, on the way in, and enum out-pointers on the way out;
//! statuses on the way out. Descriptors and handles are opaque pointers, passed through.
//! Everything without a twin answers `CUSPARSE_STATUS_NOT_SUPPORTED` with a reason.

use crate::bindgen_run::{self, Job};
use crate::cublas_hip::Types;
use crate::emit::int_lit;
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::face::{CudaLoader, ErrorFace, Face, HipSide, Info};
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

/// Runtime types `cusparse.h` uses (`library_types.h`), defined once in `crate::runtime`.
const FROM_RUNTIME: &[&str] = &["libraryPropertyType", "cudaDataType"];

/// Enumerators hipSPARSE spells otherwise, each the same value by meaning: (cuSPARSE,
/// hipSPARSE). cuSPARSE's SpGEMM names keep NVIDIA's typo.
const RENAMED: &[(&str, &str)] = &[
    ("CUSPARSE_ORDER_COL", "HIPSPARSE_ORDER_COLUMN"),
    (
        "CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC",
        "HIPSPARSE_SPGEMM_CSR_ALG_DETERMINISTIC",
    ),
    (
        "CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC",
        "HIPSPARSE_SPGEMM_CSR_ALG_NONDETERMINISTIC",
    ),
];

/// `cusparseX` -> `hipsparseX`; `CUSPARSE_X` -> `HIPSPARSE_X` (or its [`RENAMED`] spelling).
pub fn hip_name(n: &str) -> String {
    if let Some((_, h)) = RENAMED.iter().find(|(c, _)| *c == n) {
        h.to_string()
    } else if let Some(r) = n.strip_prefix("cusparse") {
        format!("hipsparse{r}")
    } else if let Some(r) = n.strip_prefix("CUSPARSE") {
        format!("HIPSPARSE{r}")
    } else {
        n.to_string()
    }
}

/// `CUDA_X` -> `HIP_X` (`hipDataType`).
fn hipdatatype_name(n: &str) -> String {
    match n.strip_prefix("CUDA_") {
        Some(r) => format!("HIP_{r}"),
        None => n.to_string(),
    }
}

const SIDES: Sides<'static> = Sides {
    cuda: "CUSPARSE",
    hip: "HIPSPARSE",
    hip_name: &hip_name,
    sentinels: &[],
};

const DT_SIDES: Sides<'static> = Sides {
    cuda: "CUDA",
    hip: "HIPSPARSE",
    hip_name: &hipdatatype_name,
    sentinels: &[],
};

/// `HIPSPARSE_STATUS_X` -> `CUSPARSE_STATUS_HIPSPARSE_X`.
fn hallucinated_name(h: &str) -> String {
    match h.strip_prefix("HIPSPARSE_STATUS_") {
        Some(rest) => format!("CUSPARSE_STATUS_HIPSPARSE_{rest}"),
        None => format!("CUSPARSE_STATUS_HIPSPARSE_{h}"),
    }
}

/// Functions whose hipSPARSE twin is not called although it exists, with why.
const NOT_PAIRED: &[(&str, &str)] = &[(
    "cusparseGetVersion",
    "hipsparseGetVersion answers hipSPARSE's own version (5.3.3 is 50303), which a program would read as a cuSPARSE version; anycuda does not invent one",
)];

/// Generates the outputs. `runtime_b`: the CUDA runtime bindings (`cudaDataType`,
/// `libraryPropertyType` are re-exported from `crate::runtime`, not defined twice).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let version = optional_lib::pin(root, "CUSPARSE_VERSION")?;
    let hv = optional_lib::pin(root, "HIPSPARSE_DEB_VERSION")?;
    let inputs = root.join(".cache/inputs");
    let cuda_inc = inputs.join("cuda/nvidia/cu13/include");
    let header = cuda_inc.join("cusparse.h");
    let stamp = inputs.join(format!("cuda/.nvidia-cusparse-{version}.done"));
    let hip_inc = inputs.join("hipsparse/usr/include");
    let hip_header = hip_inc.join("hipsparse/hipsparse.h");
    let hip_stamp = inputs.join(format!("hipsparse/.hipsparse-{hv}.done"));
    for (h, s) in [(&header, &stamp), (&hip_header, &hip_stamp)] {
        if !h.exists() || !s.exists() {
            bail!(
                "missing or stale codegen input {} (pinned nvidia-cusparse {version}, hipSPARSE {hv}); run `bash ci/fetch-inputs.sh`",
                h.display()
            );
        }
    }
    let shim = root.join("codegen/shim");
    let mut b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cusparse.h"],
                allow_files: &[r".*/cusparse\.h"],
                // The shim's cuda_fp16.h (shim/cublas, the first -I) and crt/host_defines.h
                // (shim) must win over the real ones. C++: the `__half` pruning functions
                // (cusparseHpruneDense2csr, ...) are declared for C++ only; the experimental
                // API (cusparseSpMVOp, cusparseSpMatConvert, ...) only under
                // CUSPARSE_ENABLE_EXPERIMENTAL_API. libcusparse exports both (extern "C").
                clang_args: vec![
                    "-xc++".into(),
                    "-std=c++14".into(),
                    "-DCUSPARSE_ENABLE_EXPERIMENTAL_API".into(),
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &shim.join("cublas"),
        )?,
        "cusparse.h",
    )?;
    b.items.retain(|it| match it {
        model::Item::Enum(tag) => !FROM_RUNTIME.contains(&b.enums[tag].user_name()),
        _ => true,
    });
    let hip = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hipsparse/hipsparse.h"],
                allow_files: &[r".*/hipsparse\.h", r".*/library_types\.h"],
                // The shim's hip/hip_runtime.h and hip/hip_complex.h win (the first -I): only
                // hipStream_t, the complex layouts and hipDataType are needed.
                clang_args: vec![
                    "-D__HIP_PLATFORM_AMD__".into(),
                    format!("-I{}", hip_inc.display()),
                    format!("-I{}", hip_inc.join("hipsparse").display()),
                ],
            },
            &shim.join("hipsparse"),
        )?,
        "hipsparse.h",
    )?;
    let text = std::fs::read_to_string(&header)?;
    let input = format!("nvidia-cusparse {version} (cusparse.h)");
    let hip_in = format!("{input}, Debian bookworm libhipsparse-dev {hv} (hipsparse.h)");
    let fns: Vec<&FnDecl> = b.functions.iter().collect();
    if fns.len() < 100 {
        bail!("only {} cuSPARSE functions in cusparse.h", fns.len());
    }
    for f in &fns {
        fallback(f)?;
    }

    let status = optional_lib::map_enum(&SIDES, &b, &hip, "cusparseStatus_t", "hipsparseStatus_t")?;
    if status.pairs.len() < 10 {
        bail!(
            "only {} cuSPARSE/hipSPARSE statuses pair by name",
            status.pairs.len()
        );
    }

    // Pairs and ABI checks.
    let ctypes = Types::of(&[&b, runtime_b]);
    let htypes = Types::of(&[&hip]);
    let hip_fns: BTreeMap<&str, &FnDecl> =
        hip.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    // Every enum a served function takes or writes, with its table (or why it has none).
    let mut maps: BTreeMap<String, Result<(String, EnumMap), String>> = BTreeMap::new();
    let mut declared = Vec::new();
    let mut why_not: BTreeMap<String, String> = BTreeMap::new();
    for f in &fns {
        if let Some((_, why)) = NOT_PAIRED.iter().find(|(n, _)| *n == f.name) {
            why_not.insert(f.name.clone(), format!("{}: {why}", f.name));
            continue;
        }
        let hn = hip_name(&f.name);
        let Some(h) = hip_fns.get(hn.as_str()) else {
            continue;
        };
        if let Some(d) = ctypes.disagree(f, &htypes, h)? {
            why_not.insert(
                f.name.clone(),
                format!("{}: hipSPARSE's {hn} has another ABI ({d}), so the HIP backend cannot serve it", f.name),
            );
            continue;
        }
        let mut ok = true;
        for t in f.args.iter().map(|(_, t)| t).chain(f.ret.as_ref()) {
            let Some(e) = enum_of(&ctypes, t) else {
                continue;
            };
            let m = maps
                .entry(e.clone())
                .or_insert_with(|| enum_table(&b, runtime_b, &hip, &e));
            if let Err(why) = m {
                why_not.insert(
                    f.name.clone(),
                    format!("{}: {why}, so the HIP backend cannot serve it", f.name),
                );
                ok = false;
                break;
            }
        }
        if ok {
            declared.push((f.name.clone(), hn));
        }
    }
    // The attribute functions pass a fill mode or diagonal type through `void*`: only sound
    // while both libraries number them alike.
    for ty in ["cusparseFillMode_t", "cusparseDiagType_t"] {
        let m = enum_table(&b, runtime_b, &hip, ty)
            .map_err(anyhow::Error::msg)?
            .1;
        if m.pairs.iter().any(|(_, a, _, b)| a != b) || !m.cuda_only.is_empty() {
            bail!("{ty} is numbered differently by hipSPARSE: cusparseSpMatSet/GetAttribute pass it through void* untranslated");
        }
    }
    let declared_set: BTreeSet<&str> = declared.iter().map(|(c, _)| c.as_str()).collect();
    let declared_items = declared.iter().map(|(c, h)| quote!((#c, #h)));
    let fns_items: Vec<syn::Item> = vec![syn::parse_quote! {
        /// The functions of [`CUSPARSE_FUNCTIONS`] the HIP backend serves through hipSPARSE:
        /// (cuSPARSE name, hipSPARSE symbol), where the pinned hipSPARSE 5.3.3 `hipsparse.h`
        /// declares the twin with the same ABI and every enum it takes has a table.
        pub static HIPSPARSE_DECLARED: &[(&str, &str)] = &[#(#declared_items),*];
    }];

    // The HIP module.
    let mut items = optional_lib::uses(&LIB, "anycuda_api");
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        &status,
        "STATUS",
        quote!(),
    ));
    items.push(optional_lib::status_from_hip(
        &SIDES,
        &status,
        ranges.named_base,
        "status_from_hipsparse",
        "CUSPARSE_STATUS_INTERNAL_ERROR",
    ));
    let mut shorts: BTreeMap<String, String> = BTreeMap::new();
    for (ty, m) in &maps {
        let Ok((short, m)) = m else { continue };
        if ty == "cusparseStatus_t" {
            // Tabled above (`status_from_hipsparse`); only cusparseGetErrorName/String take
            // one, answered without hipSPARSE.
            continue;
        }
        let sides = if ty == "cudaDataType" {
            &DT_SIDES
        } else {
            &SIDES
        };
        items.extend(optional_lib::enum_map_items(sides, m, short, quote!()));
        items.push(from_hip_fn(m, short));
        shorts.insert(ty.clone(), short.clone());
    }
    items.push(status_names(&b, &status, ranges.named_base)?);
    let self_ty: syn::Type = syn::parse_quote!(crate::cusparse::SparseLibrary);
    items.push(optional_lib::hip_impl(
        &LIB,
        &fns,
        &self_ty,
        &[
            "hipSPARSE with cuSPARSE's values: enums translated on the way in, statuses and enum",
            "out-pointers on the way out; functions hipSPARSE lacks answer",
            "`CUSPARSE_STATUS_NOT_SUPPORTED` with a reason.",
        ],
        |f, args| body(f, args, &ctypes, &declared_set, &why_not, &shorts, &hv),
    )?);
    let hip_module = crate::emit::render(
        &hip_in,
        "cuSPARSE<->hipSPARSE translation: tables generated from both headers, and the translating impl.",
        &items,
    )?;

    let mut extras: Extras = BTreeMap::new();
    let st = extras.entry("cusparseStatus_t".to_string()).or_default();
    for (hn, hv) in &status.hip_only {
        st.push(ExtraConst {
            name: hallucinated_name(hn),
            value: ranges.named_base + hv,
            description: format!("hipSPARSE's `{hn}` ({hv}), which cuSPARSE does not declare (hallucinated by anycuda: value = 0x4000_0000 + hipSPARSE value)."),
            origin: ExtraOrigin::Hallucinated(hn.clone()),
        });
    }
    Ok(vec![
        (
            PathBuf::from("api/src/generated/cusparse.rs"),
            emit_cuda::api_module(
                &b,
                &[&text],
                &extras,
                &input,
                "cuSPARSE types from `cusparse.h`, with NVIDIA's names and values.",
                Some((runtime_b, "crate::runtime")),
            )?,
        ),
        (
            PathBuf::from("api/src/generated/cusparse_fns.rs"),
            optional_lib::fns_module(&LIB, &FACE, &fns, fns_items, &hip_in)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/cusparse.rs"),
            hip_module,
        ),
        (
            PathBuf::from("src/generated/cusparse.rs"),
            optional_lib::facade_module(&LIB, &FACE, &fns, &input)?,
        ),
        (
            PathBuf::from("backends/cuda/src/generated/cusparse.rs"),
            crate::face::cuda_loader_module(&LIB, &FACE, &input)?,
        ),
        (
            PathBuf::from("capi/src/generated/cusparse.rs"),
            optional_lib::capi_module(&LIB, &C_EXPORTS, &fns, &input)?,
        ),
    ])
}

/// The enum type an argument names, by value or through a pointer (`cudaDataType_t` is
/// `cudaDataType`), if it is one.
fn enum_of(types: &Types<'_>, t: &syn::Type) -> Option<String> {
    let s = type_str(t);
    let inner = s
        .strip_prefix("*mut")
        .or_else(|| s.strip_prefix("*const"))
        .unwrap_or(&s);
    let inner = if inner == "cudaDataType_t" {
        "cudaDataType"
    } else {
        inner
    };
    types.is_enum(inner).then(|| inner.to_string())
}

/// The table of one cuSPARSE enum (short name, pairs), or why hipSPARSE has none.
fn enum_table(
    b: &Bindings,
    runtime_b: &Bindings,
    hip: &Bindings,
    ty: &str,
) -> std::result::Result<(String, EnumMap), String> {
    let (sides, cuda_b, hty, short) = if ty == "cudaDataType" {
        (
            &DT_SIDES,
            runtime_b,
            "hipDataType".to_string(),
            "DATATYPE".to_string(),
        )
    } else if let Some(r) = ty.strip_prefix("cusparse") {
        let short = r.strip_suffix("_t").unwrap_or(r).to_ascii_uppercase();
        (&SIDES, b, hip_name(ty), short)
    } else {
        return Err(format!(
            "it takes {ty}, which hipSPARSE has no counterpart of"
        ));
    };
    if !hip.enums.values().any(|e| e.user_name() == hty) {
        return Err(format!(
            "hipSPARSE {} declares no {hty} (for {ty})",
            "5.3.3"
        ));
    }
    optional_lib::map_enum(sides, cuda_b, hip, ty, &hty)
        .map(|m| (short, m))
        .map_err(|e| format!("{ty}: {e}"))
}

/// What a call answers without a library or entry point, by return type.
fn fallback(f: &FnDecl) -> Result<TokenStream> {
    Ok(match ret_str(f).as_str() {
        "cusparseStatus_t" => quote!(crate::cusparse::not_loaded()),
        // cusparseGetErrorName/String: a string that says why, never null.
        "*constc_char" => quote!(c"anycuda: no cuSPARSE library loaded".as_ptr()),
        // The legacy matrix-descriptor getters (cusparseGetMatType, ...) return an enum: with
        // no library no descriptor exists, so its zero value (the first enumerator).
        other if other.starts_with("cusparse") && other.ends_with("_t") => {
            let t = ident(other);
            quote!(crate::cusparse::#t(0))
        }
        other => bail!("{} returns {other}: no fallback for it", f.name),
    })
}

fn facade_doc(name: &str) -> String {
    format!("`{name}` on the active backend's sparse library (cuSPARSE, or hipSPARSE on AMD), with cuSPARSE's signature and values.")
}

/// `short_from_hipsparse(raw) -> Option<T>`: a hipSPARSE value in cuSPARSE's numbering.
fn from_hip_fn(m: &EnumMap, short: &str) -> syn::Item {
    let t = ident(&m.ty);
    let f = ident(&format!("{}_from_hipsparse", short.to_ascii_lowercase()));
    let arms = m.pairs.iter().map(|(_, av, _, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!(#bv => Some(#t(#av as _)))
    });
    let doc = format!(
        " A hipSPARSE value in cuSPARSE's `{}`, `None` without a counterpart.",
        m.ty
    );
    syn::parse_quote! {
        #[doc = #doc]
        #[inline]
        pub fn #f(raw: c_int) -> Option<#t> {
            match raw as i64 { #(#arms,)* _ => None }
        }
    }
}

/// `status_name(s) -> *const c_char`: cuSPARSE's own name of a status (hipSPARSE names only
/// its own), and the hallucinated names of the hipSPARSE-only ones.
fn status_names(b: &Bindings, status: &EnumMap, named_base: i64) -> Result<syn::Item> {
    let e = b
        .enums
        .values()
        .find(|e| e.user_name() == "cusparseStatus_t")
        .context("no cusparseStatus_t")?;
    let mut seen = BTreeSet::new();
    let mut arms = Vec::new();
    let mut add = |v: i64, name: String| {
        if seen.insert(v) {
            let lit = proc_macro2::Literal::byte_string(format!("{name}\0").as_bytes());
            let v = int_lit(v);
            arms.push(quote!(#v => #lit.as_ptr().cast()));
        }
    };
    for v in &e.variants {
        add(v.value, v.name.clone());
    }
    for (h, v) in &status.hip_only {
        add(named_base + v, hallucinated_name(h));
    }
    Ok(syn::parse_quote! {
        /// cuSPARSE's name of a status (`"CUSPARSE_STATUS_SUCCESS"`), the hallucinated name of
        /// a hipSPARSE-only one, `"CUSPARSE_STATUS_UNKNOWN"` otherwise. Static, NUL-terminated.
        pub fn status_name(s: cusparseStatus_t) -> *const c_char {
            match s.0 as i64 {
                #(#arms,)*
                _ => b"CUSPARSE_STATUS_UNKNOWN\0".as_ptr().cast(),
            }
        }
    })
}

/// One method of the translating impl.
fn body(
    f: &FnDecl,
    args: &[Ident],
    ctypes: &Types<'_>,
    declared: &BTreeSet<&str>,
    why_not: &BTreeMap<String, String>,
    shorts: &BTreeMap<String, String>,
    hv: &str,
) -> Result<TokenStream> {
    let n = ident(&f.name);
    let ret = ret_str(f);
    if ret == "*constc_char" {
        // cusparseGetErrorName/String: cuSPARSE's name of the status.
        let s = &args[0];
        return Ok(quote!(status_name(#s)));
    }
    if ret != "cusparseStatus_t" {
        // The legacy matrix-descriptor getters: hipSPARSE's value in cuSPARSE's numbering (a
        // value without a counterpart, which hipSPARSE cannot have been given, passes as is).
        let short = f
            .ret
            .as_ref()
            .and_then(|t| enum_of(ctypes, t))
            .and_then(|e| shorts.get(&e))
            .with_context(|| format!("{} returns {ret}: no HIP answer for it", f.name))?;
        if !declared.contains(f.name.as_str()) {
            bail!(
                "{} returns {ret} and hipSPARSE has no twin: no HIP answer for it",
                f.name
            );
        }
        let t = ident(&ret);
        let conv = ident(&format!("{}_from_hipsparse", short.to_ascii_lowercase()));
        return Ok(quote! {
            // SAFETY: forwarded under the caller's contract to the hipSPARSE twin whose ABI the
            // codegen checked against cuSPARSE's.
            let raw = unsafe { self.table().#n(#(#args),*) };
            #conv(raw.0 as c_int).unwrap_or(#t(raw.0))
        });
    }
    // A null handle: cuSPARSE's own answer (measured on the pinned libcusparse without a GPU:
    // CUSPARSE_STATUS_INVALID_VALUE), before hipSPARSE sees it.
    let handle_guard: Vec<TokenStream> = args
        .iter()
        .zip(&f.args)
        .filter(|(_, (_, t))| type_str(t) == "cusparseHandle_t")
        .map(|(a, _)| {
            quote! {
                if #a.is_null() {
                    return cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE;
                }
            }
        })
        .collect();
    if !declared.contains(f.name.as_str()) {
        let hn = hip_name(&f.name);
        let why = match why_not.get(&f.name) {
            Some(d) => d.clone(),
            None => format!(
                "{}: hipSPARSE has no {hn} (not declared by the pinned hipSPARSE {hv} headers), so the HIP backend cannot serve it",
                f.name
            ),
        };
        return Ok(quote! {
            #(#handle_guard)*
            crate::cusparse::refuse(#why)
        });
    }
    let mut pre = Vec::new();
    let mut post = Vec::new();
    for (a, (_, t)) in args.iter().zip(&f.args) {
        let Some(e) = enum_of(ctypes, t) else {
            continue;
        };
        let short = shorts
            .get(&e)
            .with_context(|| format!("{}: no table for {e}", f.name))?;
        let ts = type_str(t);
        if let Some(_inner) = ts.strip_prefix("*mut") {
            let conv = ident(&format!("{}_from_hipsparse", short.to_ascii_lowercase()));
            post.push(quote! {
                if r == cusparseStatus_t::CUSPARSE_STATUS_SUCCESS && !#a.is_null() {
                    // SAFETY: hipSPARSE wrote a value through the caller's out-pointer.
                    let raw = unsafe { (*#a).0 } as c_int;
                    match #conv(raw) {
                        // SAFETY: as above.
                        Some(v) => unsafe { *#a = v },
                        None => return cusparseStatus_t::CUSPARSE_STATUS_INTERNAL_ERROR,
                    }
                }
            });
            continue;
        }
        if ts.starts_with('*') {
            bail!("{} takes {ts}, an array of values hipSPARSE may number differently: adapt it by hand", f.name);
        }
        let ty: syn::Type = syn::parse_str(&ts)?;
        let conv = ident(&format!("{}_to_hipsparse", short.to_ascii_lowercase()));
        // cuSPARSE answers a value it does not know with CUSPARSE_STATUS_INVALID_VALUE; a value
        // it knows that hipSPARSE has no counterpart of is refused with a reason.
        let why = format!("{}: the {ts} value has no hipSPARSE counterpart", f.name);
        pre.push(quote! {
            let Some(#a) = #conv(#a) else {
                return crate::cusparse::no_counterpart(anycuda_api::CudaEnum::info(#a).is_some(), #why);
            };
            let #a = #ty(#a as _);
        });
    }
    if f.name == "cusparseCreate" {
        // No device: cuSPARSE's own answer (CUSPARSE_STATUS_NOT_INITIALIZED, measured on the
        // pinned libcusparse without a GPU), before hipSPARSE/rocSPARSE see it.
        pre.insert(
            0,
            quote! {
                if !self.has_device() {
                    return cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED;
                }
            },
        );
    }
    Ok(quote! {
        let t = self.table();
        #(#handle_guard)*
        #(#pre)*
        // SAFETY: forwarded under the caller's contract, values in hipSPARSE's numbering, to the
        // hipSPARSE twin whose ABI the codegen checked against cuSPARSE's.
        let r = status_from_hipsparse(unsafe { t.#n(#(#args),*) });
        #(#post)*
        r
    })
}

/// cuSPARSE as an optional library.
const LIB: Lib<'static> = Lib {
    module: "cusparse",
    name: "cuSPARSE",
    header: "cusparse.h",
    catalogue: "CUSPARSE_FUNCTIONS",
    catalogue_doc: &["Every function of the pinned `cusparse.h`."],
    table: "CusparseTable",
    table_of: "a loaded cuSPARSE",
    trait_name: "Cusparse",
    trait_doc: &[
        "The cuSPARSE API, one method per function of the pinned `cusparse.h`, with cuSPARSE's",
        "signatures and values. Implemented by the raw table (values passed unchanged).",
    ],
    safety: &[
        "The contract of the cuSPARSE function of the same name: every pointer, handle and",
        "descriptor valid for what NVIDIA's documentation says the function reads or writes.",
    ],
    ffi: &[
        "c_char",
        "c_int",
        "c_void",
        "c_longlong",
        "c_float",
        "c_double",
        "c_ushort",
        "c_uint",
        "c_ulong",
        "c_long",
    ],
    fallback: &fallback,
    prelude: &|_| quote!(),
    facade_doc: &facade_doc,
};

/// The C ABI's face of cuSPARSE: `libcusparse.so.12`, every declared function exported.
const C_EXPORTS: optional_lib::CExports<'static> = optional_lib::CExports {
    soname: "libcusparse.so.12",
    list: "CUSPARSE_EXPORTS",
    status: "cusparseStatus_t",
    leave_out: NOT_EXPORTED,
    aliases: &[],
};

/// Why a name of [`NOT_EXPORTED`] is left out of the C ABI.
const GONE: &str = "declared by cusparse.h but not exported by NVIDIA's libcusparse.so.12 (removed from the library, the declaration kept): a program probing for it sees what NVIDIA's library shows";

/// Functions the pinned `cusparse.h` declares that the pinned libcusparse.so.12 does not export
/// (checked against NVIDIA's library by capi/tests/libraries.rs).
const NOT_EXPORTED: &[(&str, &str)] = &[
    ("cusparseSbsrsv2_bufferSizeExt", GONE),
    ("cusparseDbsrsv2_bufferSizeExt", GONE),
    ("cusparseCbsrsv2_bufferSizeExt", GONE),
    ("cusparseZbsrsv2_bufferSizeExt", GONE),
    ("cusparseSbsrsm2_bufferSizeExt", GONE),
    ("cusparseDbsrsm2_bufferSizeExt", GONE),
    ("cusparseCbsrsm2_bufferSizeExt", GONE),
    ("cusparseZbsrsm2_bufferSizeExt", GONE),
    ("cusparseScsrilu02_bufferSizeExt", GONE),
    ("cusparseDcsrilu02_bufferSizeExt", GONE),
    ("cusparseCcsrilu02_bufferSizeExt", GONE),
    ("cusparseZcsrilu02_bufferSizeExt", GONE),
    ("cusparseSbsrilu02_bufferSizeExt", GONE),
    ("cusparseDbsrilu02_bufferSizeExt", GONE),
    ("cusparseCbsrilu02_bufferSizeExt", GONE),
    ("cusparseZbsrilu02_bufferSizeExt", GONE),
    ("cusparseScsric02_bufferSizeExt", GONE),
    ("cusparseDcsric02_bufferSizeExt", GONE),
    ("cusparseCcsric02_bufferSizeExt", GONE),
    ("cusparseZcsric02_bufferSizeExt", GONE),
    ("cusparseSbsric02_bufferSizeExt", GONE),
    ("cusparseDbsric02_bufferSizeExt", GONE),
    ("cusparseCbsric02_bufferSizeExt", GONE),
    ("cusparseZbsric02_bufferSizeExt", GONE),
    ("cusparseSgebsr2gebsc_bufferSizeExt", GONE),
    ("cusparseDgebsr2gebsc_bufferSizeExt", GONE),
    ("cusparseCgebsr2gebsc_bufferSizeExt", GONE),
    ("cusparseZgebsr2gebsc_bufferSizeExt", GONE),
    ("cusparseXgebsr2csr", GONE),
    ("cusparseScsr2gebsr_bufferSizeExt", GONE),
    ("cusparseDcsr2gebsr_bufferSizeExt", GONE),
    ("cusparseCcsr2gebsr_bufferSizeExt", GONE),
    ("cusparseZcsr2gebsr_bufferSizeExt", GONE),
    ("cusparseSgebsr2gebsr_bufferSizeExt", GONE),
    ("cusparseDgebsr2gebsr_bufferSizeExt", GONE),
    ("cusparseCgebsr2gebsr_bufferSizeExt", GONE),
    ("cusparseZgebsr2gebsr_bufferSizeExt", GONE),
];

/// cuSPARSE's face: the facade's `Library` and the CUDA backend's loader (`crate::face`).
const FACE: Face<'static> = Face {
    what: "sparse library",
    cuda_doc: "cuSPARSE, loaded by the CUDA backend.",
    hip: HipSide::Loaded("anycuda_hip::cusparse::SparseLibrary"),
    hip_doc: "hipSPARSE (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP backend.",
    library_of_doc: &[
        "The sparse library of a given backend (cuSPARSE for CUDA, hipSPARSE for HIP), loaded on",
        "first use.",
        "",
        "# Errors",
        "[`LibraryError::Load`] naming every path tried.",
    ],
    info: Some(Info {
        doc: None,
        fields: &[
            ("name", &["`\"cuSPARSE\"` or `\"hipSPARSE\"`."]),
            ("path", &["The file the loader mapped."]),
            (
                "version",
                &["Its version code (`cusparseGetProperty`), e.g. `12904`; 0 for hipSPARSE."],
            ),
            (
                "version_string",
                &["The version as people write it (`12.9.4`; for hipSPARSE, that it is not reported)."],
            ),
            (
                "entry_points",
                &["Entry points resolved, of the functions the pinned `cusparse.h` declares."],
            ),
        ],
    }),
    not_loaded: Some(("cusparseStatus_t", "cuSPARSE or hipSPARSE")),
    cuda: CudaLoader {
        doc: &[
            "cuSPARSE on the CUDA backend: NVIDIA's library, loaded once on first use, values passed",
            "unchanged. Optional: without it every call answers `CUSPARSE_STATUS_NOT_SUPPORTED` and the",
            "load error is logged once.",
        ],
        load: "cusparse::load(&cusparse::CUSPARSE_SEARCH, cusparse::Flavor::Cusparse)",
        describe: "cusparse::version_string(l.version)",
        errors: "The [`LoadError`] naming every path tried, or a failed version query.",
        warn_unavailable: true,
        before: None,
    },
    error: Some(ErrorFace {
        error: "CusparseError",
        status: "cusparseStatus_t",
        success: "CUSPARSE_STATUS_SUCCESS",
        word: "status",
        counterpart: None,
    }),
};
