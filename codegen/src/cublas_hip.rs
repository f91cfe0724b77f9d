//! cuBLAS on hipBLAS: the HIP backend's translation, generated from `cublas_api.h` (cuBLAS),
//! hipBLAS 5.5.1's `hipblas.h` (the catalogue of what hipBLAS serves, and its enum values) and
//! hipBLAS 6.4.4's `hipblas.h`/`hipblas-common.h` (the 2.x ABI of the mixed-precision functions).
//!
//! Functions pair by name: `cublasX_v2` and `cublasX` -> `hipblasX` (`cublasX_v2_64` ->
//! `hipblasX_64`). A pair is served only when the two declarations agree in ABI argument by
//! argument (arity, and each argument's class: pointer, 32- or 64-bit integer, float, double,
//! struct by value of the same size); enum arguments are translated on the way in, pointer- and
//! atomics-mode out-pointers on the way out, statuses on the way out. Everything else answers
//! `CUBLAS_STATUS_NOT_SUPPORTED` with a reason naming it.
//!
//! The mixed-precision functions (`cublasGemmEx`, `cublasAxpyEx`, ...) take `cudaDataType` and
//! `cublasComputeType_t`. hipBLAS 0.x/1.x took `hipblasDatatype_t` (150..) for both; 2.x added
//! `hipblasXEx_v2` taking `hipDataType` (CUDA's values) and `hipblasComputeType_t`; 3.x keeps
//! only the new signature under the plain name. Which one a library has is found at load time
//! from its exports (`anycuda_api::cublas::Abi`); the tables for both are generated here.

use crate::bindgen_run::{self, Job};
use crate::emit::int_lit;
use crate::model::{self, Bindings, FnDecl};
use crate::optional_lib::{self, ret_str, type_str, EnumMap, Lib, Sides};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// `cublasX_v2` / `cublasX` -> `hipblasX`, `cublasX_v2_64` -> `hipblasX_64`; `CUBLAS_X` ->
/// `HIPBLAS_X`.
pub fn hip_name(n: &str) -> String {
    if let Some(r) = n.strip_prefix("cublas") {
        let r = r.replacen("_v2", "", 1);
        format!("hipblas{r}")
    } else if let Some(r) = n.strip_prefix("CUBLAS") {
        format!("HIPBLAS{r}")
    } else {
        n.to_string()
    }
}

/// `CUDA_R_16BF` -> `HIPBLAS_R_16B` (hipBLAS's `hipblasDatatype_t` spells bfloat16 `16B`),
/// `CUDA_X` -> `HIPBLAS_X`.
fn datatype_hip_name(n: &str) -> String {
    let r = n.strip_prefix("CUDA_").unwrap_or(n);
    let r = r.replace("_16BF", "_16B");
    format!("HIPBLAS_{r}")
}

/// `CUDA_X` -> `HIP_X` (`hipDataType`).
fn hipdatatype_name(n: &str) -> String {
    match n.strip_prefix("CUDA_") {
        Some(r) => format!("HIP_{r}"),
        None => n.to_string(),
    }
}

const SIDES: Sides<'static> = Sides {
    cuda: "CUBLAS",
    hip: "HIPBLAS",
    hip_name: &hip_name,
    sentinels: &[],
};

const DT_SIDES: Sides<'static> = Sides {
    cuda: "CUDA",
    hip: "HIPBLAS",
    hip_name: &datatype_hip_name,
    sentinels: &[],
};

const HIPDT_SIDES: Sides<'static> = Sides {
    cuda: "CUDA",
    hip: "HIP",
    hip_name: &hipdatatype_name,
    sentinels: &[],
};

/// `HIPBLAS_STATUS_INVALID_ENUM` -> `CUBLAS_STATUS_HIPBLAS_INVALID_ENUM`.
pub fn hallucinated_name(h: &str) -> String {
    match h.strip_prefix("HIPBLAS_STATUS_") {
        Some(rest) => format!("CUBLAS_STATUS_HIPBLAS_{rest}"),
        None => format!("CUBLAS_STATUS_HIPBLAS_{h}"),
    }
}

/// On hipBLAS 0.x/1.x the compute-type argument of the GEMM-Ex family is a
/// `hipblasDatatype_t`: the type the products are accumulated in. cuBLAS's `_FAST_` modes
/// permit a lower internal precision and `_PEDANTIC` asks that no reduced-precision shortcut be
/// taken; rocBLAS accumulates in the named type at full precision, which satisfies both, so each
/// maps to its plain type. A compute type not listed (the `_EMULATED_` ones) has no counterpart.
const COMPUTE_AS_DATATYPE: &[(&str, &str)] = &[
    ("CUBLAS_COMPUTE_16F", "HIPBLAS_R_16F"),
    ("CUBLAS_COMPUTE_16F_PEDANTIC", "HIPBLAS_R_16F"),
    ("CUBLAS_COMPUTE_32F", "HIPBLAS_R_32F"),
    ("CUBLAS_COMPUTE_32F_PEDANTIC", "HIPBLAS_R_32F"),
    ("CUBLAS_COMPUTE_32F_FAST_16F", "HIPBLAS_R_32F"),
    ("CUBLAS_COMPUTE_32F_FAST_16BF", "HIPBLAS_R_32F"),
    ("CUBLAS_COMPUTE_32F_FAST_TF32", "HIPBLAS_R_32F"),
    ("CUBLAS_COMPUTE_64F", "HIPBLAS_R_64F"),
    ("CUBLAS_COMPUTE_64F_PEDANTIC", "HIPBLAS_R_64F"),
    ("CUBLAS_COMPUTE_32I", "HIPBLAS_R_32I"),
    ("CUBLAS_COMPUTE_32I_PEDANTIC", "HIPBLAS_R_32I"),
];

/// Functions anycuda answers itself on hipBLAS (see `body`).
const ANSWERED: &[&str] = &[
    "cublasSetMathMode",
    "cublasGetMathMode",
    "cublasGetStatusName",
    "cublasGetStatusString",
];

/// cuBLAS enum types translated argument by argument: (cuBLAS type names, table short name).
const TRANSLATED: &[(&[&str], &str)] = &[
    (&["cublasOperation_t"], "OPERATION"),
    (&["cublasFillMode_t"], "FILLMODE"),
    (&["cublasDiagType_t"], "DIAGTYPE"),
    (&["cublasSideMode_t"], "SIDEMODE"),
    (&["cublasPointerMode_t"], "POINTERMODE"),
    (&["cublasAtomicsMode_t"], "ATOMICSMODE"),
    (&["cublasGemmAlgo_t"], "GEMMALGO"),
    (
        &["cudaDataType", "cudaDataType_t", "cublasDataType_t"],
        "DATATYPE",
    ),
    (&["cublasComputeType_t"], "COMPUTETYPE"),
];

fn translated_short(ty: &str) -> Option<&'static str> {
    TRANSLATED
        .iter()
        .find(|(names, _)| names.contains(&ty))
        .map(|(_, s)| *s)
}

/// An argument's ABI class, as the System V x86-64 calling convention sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Class {
    Ptr,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    /// A struct passed by value, with its size.
    Struct(u64),
}

/// Type aliases (`cublasHandle_t` -> `*mut cublasContext`) and enum names of some bindings.
pub(crate) struct Types<'a> {
    aliases: BTreeMap<String, syn::Type>,
    enums: BTreeSet<String>,
    sizes: Vec<&'a std::collections::HashMap<String, u64>>,
}

impl<'a> Types<'a> {
    pub(crate) fn of(bs: &[&'a Bindings]) -> Self {
        let mut aliases = BTreeMap::new();
        let mut enums = BTreeSet::new();
        let mut sizes = Vec::new();
        for b in bs {
            for it in &b.items {
                if let model::Item::Plain(syn::Item::Type(t)) = it {
                    aliases.insert(t.ident.to_string(), (*t.ty).clone());
                }
            }
            for e in b.enums.values() {
                enums.insert(e.tag.clone());
                enums.insert(e.user_name().to_string());
                enums.extend(e.aliases.iter().cloned());
            }
            sizes.push(&b.sizes);
        }
        Self {
            aliases,
            enums,
            sizes,
        }
    }

    /// Whether `n` names an enum (its tag, typedef name or an alias).
    pub(crate) fn is_enum(&self, n: &str) -> bool {
        self.enums.contains(n)
    }

    fn class(&self, t: &syn::Type) -> Result<Class> {
        let s = type_str(t);
        if s.starts_with('*') || s.starts_with("Option<") {
            return Ok(Class::Ptr);
        }
        let Some(id) = model::type_ident(t) else {
            bail!("no ABI class for {s}");
        };
        Ok(match id.as_str() {
            "c_char" | "c_schar" | "c_uchar" | "i8" | "u8" => Class::I8,
            "c_short" | "c_ushort" | "i16" | "u16" => Class::I16,
            "c_int" | "c_uint" | "i32" | "u32" => Class::I32,
            "c_long" | "c_ulong" | "c_longlong" | "c_ulonglong" | "i64" | "u64" | "usize"
            | "isize" => Class::I64,
            "c_float" | "f32" => Class::F32,
            "c_double" | "f64" => Class::F64,
            other if self.enums.contains(other) => Class::I32,
            other => {
                if let Some(a) = self.aliases.get(other) {
                    return self.class(a);
                }
                match self.sizes.iter().find_map(|m| m.get(other)) {
                    Some(n) => Class::Struct(*n),
                    None => bail!("no ABI class for {other}"),
                }
            }
        })
    }

    /// Why two declarations disagree in ABI, or `None` when they agree.
    pub(crate) fn disagree(
        &self,
        c: &FnDecl,
        other: &Types<'_>,
        h: &FnDecl,
    ) -> Result<Option<String>> {
        if c.args.len() != h.args.len() {
            return Ok(Some(format!(
                "{} takes {} arguments, {} {}",
                c.name,
                c.args.len(),
                h.name,
                h.args.len()
            )));
        }
        for (i, ((cn, ct), (_, ht))) in c.args.iter().zip(&h.args).enumerate() {
            let (a, b) = (self.class(ct)?, other.class(ht)?);
            if a != b {
                return Ok(Some(format!(
                    "argument {i} ({cn}) is {} ({a:?}) in {}, {} ({b:?}) in {}",
                    type_str(ct),
                    c.name,
                    type_str(ht),
                    h.name
                )));
            }
        }
        Ok(None)
    }
}

/// What the HIP side of the cuBLAS codegen produces.
pub struct HipOutputs {
    /// The hallucinated statuses added to `cublasStatus_t`: (hipBLAS name, hipBLAS value).
    pub hip_only_status: Vec<(String, i64)>,
    /// `HIPBLAS_DECLARED` and `HIPBLAS_NEW_TYPES`, for `api/src/generated/cublas_fns.rs`.
    pub fns_items: Vec<syn::Item>,
    /// `backends/hip/src/generated/cublas.rs`.
    pub hip_module: String,
}

fn bind_hipblas(root: &Path, inc: &Path, extra_inc: &[&Path]) -> Result<Bindings> {
    let shim = root.join("codegen/shim");
    // C: hipBLAS's C++ branches (complex classes, static_asserts over <type_traits>) add nothing
    // to the C ABI the functions are called through.
    let mut clang_args = vec![
        "-D__HIP_PLATFORM_AMD__".to_string(),
        format!("-I{}", inc.display()),
        format!("-I{}", inc.join("hipblas").display()),
    ];
    for e in extra_inc {
        clang_args.push(format!("-I{}", e.display()));
    }
    model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hipblas/hipblas.h"],
                allow_files: &[
                    r".*/hipblas\.h",
                    r".*/hipblas-common\.h",
                    r".*/library_types\.h",
                ],
                clang_args,
            },
            &shim.join("hipblas"),
        )?,
        "hipblas.h",
    )
}

/// Reads both hipBLAS inputs and generates the HIP side.
pub fn generate(
    root: &Path,
    cublas_b: &Bindings,
    runtime_b: &Bindings,
    fns: &[&FnDecl],
    named_base: i64,
    lib: &Lib<'_>,
    inputs: &str,
) -> Result<HipOutputs> {
    let v0 = optional_lib::pin(root, "HIPBLAS_DEB_VERSION")?;
    let v2 = optional_lib::pin(root, "HIPBLAS2_DEB_VERSION")?;
    let base = root.join(".cache/inputs");
    let inc0 = base.join("hipblas/usr/include");
    let inc2 = base.join("hipblas2/usr/include");
    for (h, stamp) in [
        (
            inc0.join("hipblas/hipblas.h"),
            base.join(format!("hipblas/.hipblas-{v0}.done")),
        ),
        (
            inc2.join("hipblas/hipblas.h"),
            base.join(format!("hipblas2/.hipblas-{v2}.done")),
        ),
    ] {
        if !h.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned hipBLAS {v0} and {v2}); run `bash ci/fetch-inputs.sh`",
                h.display()
            );
        }
    }
    let hip0 = bind_hipblas(root, &inc0, &[])?;
    let hip2 = bind_hipblas(root, &inc2, &[&inc2])?;

    let status =
        optional_lib::map_enum(&SIDES, cublas_b, &hip0, "cublasStatus_t", "hipblasStatus_t")?;
    // Only 0, 1 and 8 mean the same on both sides (checked: a header change fails here).
    let same: Vec<i64> = status
        .pairs
        .iter()
        .filter(|(_, a, _, b)| a == b)
        .map(|(_, a, _, _)| *a)
        .collect();
    if same != [0, 1, 8] {
        bail!("cuBLAS and hipBLAS statuses agree on {same:?}, not on 0, 1 and 8 only: check the table");
    }
    // One status table serves every release: hipBLAS 2.x (hipblas-common.h) must number its
    // statuses as 0.x does.
    let status2 =
        optional_lib::map_enum(&SIDES, cublas_b, &hip2, "cublasStatus_t", "hipblasStatus_t")?;
    if status2.pairs != status.pairs || status2.hip_only != status.hip_only {
        bail!("hipBLAS {v2} numbers its statuses differently from {v0}: the status table needs a per-ABI version");
    }
    let mut maps: Vec<(&str, EnumMap)> = Vec::new();
    for (cu, hu, short) in [
        ("cublasOperation_t", "hipblasOperation_t", "OPERATION"),
        ("cublasFillMode_t", "hipblasFillMode_t", "FILLMODE"),
        ("cublasDiagType_t", "hipblasDiagType_t", "DIAGTYPE"),
        ("cublasSideMode_t", "hipblasSideMode_t", "SIDEMODE"),
        ("cublasPointerMode_t", "hipblasPointerMode_t", "POINTERMODE"),
        ("cublasAtomicsMode_t", "hipblasAtomicsMode_t", "ATOMICSMODE"),
    ] {
        maps.push((
            short,
            optional_lib::map_enum(&SIDES, cublas_b, &hip0, cu, hu)?,
        ));
    }
    let op = &maps[0].1;
    if !op
        .pairs
        .iter()
        .any(|(n, a, _, b)| n == "CUBLAS_OP_N" && *a == 0 && *b == 111)
    {
        bail!("CUBLAS_OP_N is no longer 0 <-> HIPBLAS_OP_N 111: check the operation table");
    }
    // cudaDataType <-> hipblasDatatype_t (0.x/1.x), paired by name (`_16BF` is `_16B`).
    let datatype = optional_lib::map_enum(
        &DT_SIDES,
        runtime_b,
        &hip0,
        "cudaDataType",
        "hipblasDatatype_t",
    )?;
    // hipBLAS 2.x takes hipDataType, whose values are CUDA's: checked for every value the pinned
    // HIP headers' hipDataType declares (passed unchanged at run time).
    let hipdt = optional_lib::map_enum(
        &HIPDT_SIDES,
        runtime_b,
        &hip2,
        "cudaDataType",
        "hipDataType",
    )?;
    if hipdt.pairs.is_empty() {
        bail!("no cudaDataType/hipDataType pairs: check the hipBLAS 2.x input");
    }
    for (c, cv, h, hv) in &hipdt.pairs {
        if cv != hv {
            bail!("{c} = {cv} but {h} = {hv}: hipDataType no longer takes CUDA's values");
        }
    }
    // cublasComputeType_t <-> hipblasComputeType_t (2.x/3.x), paired by name.
    let compute2 = optional_lib::map_enum(
        &SIDES,
        cublas_b,
        &hip2,
        "cublasComputeType_t",
        "hipblasComputeType_t",
    )?;
    // cublasComputeType_t -> hipblasDatatype_t (0.x/1.x), by the table above.
    let cvals = enum_values(cublas_b, "cublasComputeType_t")?;
    let dvals = enum_values(&hip0, "hipblasDatatype_t")?;
    let mut compute0 = Vec::new();
    for (c, h) in COMPUTE_AS_DATATYPE {
        let cv = cvals
            .get(*c)
            .with_context(|| format!("cublas_api.h has no {c}"))?;
        let hv = dvals
            .get(*h)
            .with_context(|| format!("hipblas.h has no {h}"))?;
        compute0.push((c.to_string(), *cv, h.to_string(), *hv));
    }
    // Every cuBLAS GEMM algorithm -> HIPBLAS_GEMM_DEFAULT (the only one hipBLAS declares, and
    // the only one its NVIDIA build accepts).
    let avals = enum_values(cublas_b, "cublasGemmAlgo_t")?;
    let hdef = *enum_values(&hip0, "hipblasGemmAlgo_t")?
        .get("HIPBLAS_GEMM_DEFAULT")
        .context("hipblas.h has no HIPBLAS_GEMM_DEFAULT")?;
    let algo: Vec<(String, i64, String, i64)> = avals
        .iter()
        .map(|(n, v)| (n.clone(), *v, "HIPBLAS_GEMM_DEFAULT".to_string(), hdef))
        .collect();

    // Function pairs and ABI checks.
    let ctypes = Types::of(&[cublas_b, runtime_b]);
    let h0types = Types::of(&[&hip0]);
    let h2types = Types::of(&[&hip2]);
    let hip0_fns: BTreeMap<&str, &FnDecl> = hip0
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f))
        .collect();
    let hip2_fns: BTreeMap<&str, &FnDecl> = hip2
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f))
        .collect();
    let mut declared = Vec::new();
    let mut new_types = Vec::new();
    let mut changed: Vec<(String, String)> = Vec::new();
    let mut why_not: BTreeMap<String, String> = BTreeMap::new();
    for f in fns {
        let hn = hip_name(&f.name);
        let Some(h) = hip0_fns.get(hn.as_str()) else {
            continue;
        };
        if let Some(d) = ctypes.disagree(f, &h0types, h)? {
            why_not.insert(f.name.clone(), d);
            continue;
        }
        let typed = f.args.iter().any(|(_, t)| {
            matches!(
                translated_short(&type_str(t)),
                Some("DATATYPE" | "COMPUTETYPE")
            )
        });
        if typed {
            // The 2.x signature (`hipblasXEx_v2`) must agree too: it is what is called there.
            let v2n = format!("{hn}_v2");
            let h2 = hip2_fns.get(v2n.as_str()).with_context(|| {
                format!("{} takes data types, but hipBLAS {v2} has no {v2n}", f.name)
            })?;
            if let Some(d) = ctypes.disagree(f, &h2types, h2)? {
                bail!("{}: the hipBLAS 2.x signature disagrees: {d}", f.name);
            }
            new_types.push(f.name.clone());
        } else {
            // The same name in hipBLAS 2.x must keep the ABI, or it is served on 0.x/1.x only.
            match hip2_fns.get(hn.as_str()) {
                Some(h2) => {
                    if let Some(d) = ctypes.disagree(f, &h2types, h2)? {
                        changed.push((f.name.clone(), d));
                    }
                }
                None => changed.push((f.name.clone(), format!("hipBLAS {v2} has no {hn}"))),
            }
        }
        declared.push((f.name.clone(), hn));
    }
    // One table serves every ABI: a pair that hipBLAS 2.x changed (other than the data-type
    // functions above, resolved as `_v2` there) would need a per-ABI symbol or refusal.
    if !changed.is_empty() {
        bail!("hipBLAS {v2} changed these functions' ABI, which the table does not handle: {changed:?}");
    }
    let declared_set: BTreeSet<&str> = declared.iter().map(|(c, _)| c.as_str()).collect();

    let declared_items: Vec<TokenStream> = declared.iter().map(|(c, h)| quote!((#c, #h))).collect();
    let new_items = new_types.iter().map(|c| quote!(#c));
    let answered = ANSWERED
        .iter()
        .filter(|a| fns.iter().any(|f| f.name == **a));
    let fns_items: Vec<syn::Item> = vec![
        syn::parse_quote! {
            /// The functions of [`CUBLAS_FUNCTIONS`] the HIP backend serves through hipBLAS:
            /// (cuBLAS name, hipBLAS symbol), where the pinned hipBLAS 5.5.1 `hipblas.h`
            /// declares the twin with the same ABI.
            pub static HIPBLAS_DECLARED: &[(&str, &str)] = &[#(#declared_items),*];
        },
        syn::parse_quote! {
            /// The functions of [`CUBLAS_FUNCTIONS`] the HIP backend answers itself on hipBLAS,
            /// without a hipBLAS twin: the math modes (kept per handle: hipBLAS's full precision
            /// satisfies every mode) and cuBLAS's status names.
            pub static HIPBLAS_ANSWERED: &[&str] = &[#(#answered),*];
        },
        syn::parse_quote! {
            /// The functions of [`HIPBLAS_DECLARED`] that take data or compute types: on a
            /// hipBLAS with [`Abi::HipblasV2`] they are resolved as `hipblasXEx_v2`.
            pub static HIPBLAS_NEW_TYPES: &[&str] = &[#(#new_items),*];
        },
    ];

    // The module.
    let mut items = optional_lib::uses(lib, "anycuda_api");
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        &status,
        "STATUS",
        quote!(),
    ));
    items.push(optional_lib::status_from_hip(
        &SIDES,
        &status,
        named_base,
        "status_from_hipblas",
        "CUBLAS_STATUS_INTERNAL_ERROR",
    ));
    for (short, m) in &maps {
        items.extend(optional_lib::enum_map_items(&SIDES, m, short, quote!()));
        if matches!(*short, "POINTERMODE" | "ATOMICSMODE") {
            items.push(from_hip_fn(m, short));
        }
    }
    items.extend(optional_lib::enum_map_items(
        &DT_SIDES,
        &datatype,
        "DATATYPE",
        quote!(),
    ));
    items.extend(pairs_fn(
        "cublasComputeType_t",
        &compute0,
        "computetype_to_hipblas_datatype",
        "COMPUTETYPE_AS_DATATYPE",
        "A `cublasComputeType_t` as hipBLAS 0.x/1.x's compute argument (a `hipblasDatatype_t`): `_FAST_` and `_PEDANTIC` modes as their plain type (see the codegen's `COMPUTE_AS_DATATYPE`); `None` without a counterpart.",
    ));
    items.extend(optional_lib::enum_map_items(
        &SIDES,
        &compute2,
        "COMPUTETYPE",
        quote!(),
    ));
    items.extend(pairs_fn(
        "cublasGemmAlgo_t",
        &algo,
        "gemmalgo_to_hipblas",
        "GEMMALGO_PAIRS",
        "A `cublasGemmAlgo_t` in hipBLAS's numbering: every algorithm cuBLAS declares is `HIPBLAS_GEMM_DEFAULT`, the only one hipBLAS has; `None` for a value cuBLAS does not declare.",
    ));
    items.push(status_names(cublas_b, &status, named_base)?);

    let self_ty: syn::Type = syn::parse_quote!(crate::cublas::BlasLibrary);
    items.push(optional_lib::hip_impl(
        lib,
        fns,
        &self_ty,
        &[
            "hipBLAS with cuBLAS's values: enums translated on the way in, statuses and mode",
            "out-pointers on the way out; functions hipBLAS lacks answer",
            "`CUBLAS_STATUS_NOT_SUPPORTED` with a reason. A cuBLAS library (`Flavor::Cublas`)",
            "gets values unchanged.",
        ],
        |f, args| body(f, args, &declared_set, &why_not, &v0),
    )?);
    let hip_module = crate::emit::render(
        inputs,
        "cuBLAS<->hipBLAS translation: tables generated from both headers, and the translating impl.",
        &items,
    )?;
    Ok(HipOutputs {
        hip_only_status: status.hip_only.clone(),
        fns_items,
        hip_module,
    })
}

fn enum_values(b: &Bindings, ty: &str) -> Result<BTreeMap<String, i64>> {
    let e = b
        .enums
        .values()
        .find(|e| e.user_name() == ty || e.tag == ty)
        .with_context(|| format!("no enum {ty}"))?;
    Ok(e.variants
        .iter()
        .map(|v| (v.name.clone(), v.value))
        .collect())
}

/// A static of pairs and `fn_name(v) -> Option<c_int>` over it.
fn pairs_fn(
    ty: &str,
    pairs: &[(String, i64, String, i64)],
    fn_name: &str,
    static_name: &str,
    doc: &str,
) -> Vec<syn::Item> {
    let t = ident(ty);
    let f = ident(fn_name);
    let s = ident(static_name);
    let rows = pairs.iter().map(|(a, av, b, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!((#a, #av, #b, #bv))
    });
    let mut seen = BTreeSet::new();
    let arms: Vec<TokenStream> = pairs
        .iter()
        .filter(|(_, av, _, _)| seen.insert(*av))
        .map(|(_, av, _, bv)| {
            let (av, bv) = (int_lit(*av), int_lit(*bv));
            quote!(#av => Some(#bv as c_int))
        })
        .collect();
    let sdoc =
        format!(" `{ty}`: (cuBLAS name, value, hipBLAS name, value) of every translated value.");
    let fdoc = format!(" {doc}");
    vec![
        syn::parse_quote! { #[doc = #sdoc] pub static #s: &[(&str, i64, &str, i64)] = &[#(#rows),*]; },
        syn::parse_quote! {
            #[doc = #fdoc]
            #[inline]
            pub fn #f(v: #t) -> Option<c_int> {
                match v.0 as i64 { #(#arms,)* _ => None }
            }
        },
    ]
}

/// `short_from_hipblas(raw) -> Option<T>`: a hipBLAS mode value in cuBLAS's numbering.
fn from_hip_fn(m: &EnumMap, short: &str) -> syn::Item {
    let t = ident(&m.ty);
    let f = ident(&format!("{}_from_hipblas", short.to_ascii_lowercase()));
    let arms = m.pairs.iter().map(|(_, av, _, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!(#bv => Some(#t(#av as _)))
    });
    let doc = format!(
        " A hipBLAS value in cuBLAS's `{}`, `None` without a counterpart.",
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

/// `status_name(s) -> *const c_char`: cuBLAS's own name of a status (hipBLAS names its own
/// statuses, not cuBLAS's), and the hallucinated names of the hipBLAS-only ones.
fn status_names(cublas_b: &Bindings, status: &EnumMap, named_base: i64) -> Result<syn::Item> {
    let vals = enum_values(cublas_b, "cublasStatus_t")?;
    let mut seen = BTreeSet::new();
    let mut arms = Vec::new();
    let mut add = |v: i64, name: String| {
        if seen.insert(v) {
            let lit = proc_macro2::Literal::byte_string(format!("{name}\0").as_bytes());
            let v = int_lit(v);
            arms.push(quote!(#v => #lit.as_ptr().cast()));
        }
    };
    for (n, v) in &vals {
        add(*v, n.clone());
    }
    for (h, v) in &status.hip_only {
        add(named_base + v, hallucinated_name(h));
    }
    Ok(syn::parse_quote! {
        /// cuBLAS's name of a status (`"CUBLAS_STATUS_SUCCESS"`), the hallucinated name of a
        /// hipBLAS-only one, `"CUBLAS_STATUS_UNKNOWN"` otherwise. Static, NUL-terminated.
        pub fn status_name(s: cublasStatus_t) -> *const c_char {
            match s.0 as i64 {
                #(#arms,)*
                _ => b"CUBLAS_STATUS_UNKNOWN\0".as_ptr().cast(),
            }
        }
    })
}

/// One method of the translating impl.
fn body(
    f: &FnDecl,
    args: &[Ident],
    declared: &BTreeSet<&str>,
    why_not: &BTreeMap<String, String>,
    v0: &str,
) -> Result<TokenStream> {
    let n = ident(&f.name);
    let ret = ret_str(f);
    let forward = quote! {
        let t = self.table();
        if !self.translates() {
            // SAFETY: a cuBLAS library (Flavor::Cublas): forwarded unchanged.
            return unsafe { t.#n(#(#args),*) };
        }
    };
    let handle_guard: Vec<TokenStream> = args
        .iter()
        .zip(&f.args)
        .filter(|(_, (_, t))| type_str(t) == "cublasHandle_t")
        .map(|(a, _)| {
            quote! {
                if #a.is_null() {
                    return cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
                }
            }
        })
        .collect();
    // Hand-served functions (see backends/hip/src/cublas.rs).
    match f.name.as_str() {
        "cublasGetStatusName" | "cublasGetStatusString" => {
            return Ok(quote! {
                #forward
                status_name(status)
            })
        }
        "cublasSetMathMode" | "cublasGetMathMode" => {
            let call = if f.name == "cublasSetMathMode" {
                quote!(self.set_math_mode(#(#args),*))
            } else {
                quote! {
                    // SAFETY: the out-pointer is the caller's, valid for a write by contract.
                    unsafe { self.get_math_mode(#(#args),*) }
                }
            };
            return Ok(quote! {
                #forward
                #(#handle_guard)*
                #call
            });
        }
        "cublasGetVersion_v2" | "cublasGetProperty" => {
            let why = format!(
                "{}: hipBLAS has no run-time version query (hipBLAS {v0} declares none), and anycuda does not invent one",
                f.name
            );
            return Ok(quote! {
                #forward
                #(#handle_guard)*
                crate::cublas::refuse(#why)
            });
        }
        _ => {}
    }
    if ret != "cublasStatus_t" {
        // cublasGetCudartVersion (no CUDA runtime behind hipBLAS on AMD: 0, as without a
        // library) and cublasXerbla (nothing to report to).
        let fb = match ret.as_str() {
            "usize" => quote!(0),
            "()" => quote!(()),
            other => bail!("{} returns {other}: no HIP answer for it", f.name),
        };
        return Ok(quote! {
            #forward
            #fb
        });
    }
    if !declared.contains(f.name.as_str()) {
        let hn = hip_name(&f.name);
        let why = match why_not.get(&f.name) {
            Some(d) => format!("{}: hipBLAS's {hn} has another ABI ({d}), so the HIP backend cannot serve it", f.name),
            None => format!(
                "{}: hipBLAS has no {hn} (not declared by the pinned hipBLAS {v0} headers), so the HIP backend cannot serve it",
                f.name
            ),
        };
        return Ok(quote! {
            #forward
            #(#handle_guard)*
            crate::cublas::refuse(#why)
        });
    }
    let mut pre = Vec::new();
    let mut post = Vec::new();
    for (a, (_, t)) in args.iter().zip(&f.args) {
        let ts = type_str(t);
        if let Some(short) = translated_short(&ts) {
            let ty: syn::Type = syn::parse_str(&ts)?;
            let conv = match short {
                "DATATYPE" => quote!(self.datatype(#a)),
                "COMPUTETYPE" => quote!(self.computetype(#a)),
                "GEMMALGO" => quote!(gemmalgo_to_hipblas(#a)),
                s => {
                    let f = ident(&format!("{}_to_hipblas", s.to_ascii_lowercase()));
                    quote!(#f(#a))
                }
            };
            // cuBLAS answers a value it does not know with CUBLAS_STATUS_INVALID_VALUE; a
            // value it knows that hipBLAS has no counterpart of is refused with a reason.
            let why = format!("{}: the {ts} value has no hipBLAS counterpart", f.name);
            pre.push(quote! {
                let Some(#a) = #conv else {
                    return crate::cublas::no_counterpart(anycuda_api::CudaEnum::info(#a).is_some(), #why);
                };
                let #a = #ty(#a as _);
            });
            continue;
        }
        if let Some(inner) = ts
            .strip_prefix("*mut")
            .or_else(|| ts.strip_prefix("*const"))
        {
            match (translated_short(inner), ts.starts_with("*mut")) {
                (Some(s @ ("POINTERMODE" | "ATOMICSMODE")), true) => {
                    let conv = ident(&format!("{}_from_hipblas", s.to_ascii_lowercase()));
                    post.push(quote! {
                        if r == cublasStatus_t::CUBLAS_STATUS_SUCCESS && !#a.is_null() {
                            // SAFETY: hipBLAS wrote a mode through the caller's out-pointer.
                            let raw = unsafe { (*#a).0 } as c_int;
                            match #conv(raw) {
                                // SAFETY: as above.
                                Some(v) => unsafe { *#a = v },
                                None => return cublasStatus_t::CUBLAS_STATUS_INTERNAL_ERROR,
                            }
                        }
                    });
                }
                (Some(_), _) => bail!(
                    "{} takes {ts}, an array of values hipBLAS numbers differently: adapt it by hand",
                    f.name
                ),
                (None, _) => {}
            }
        }
        if ["cublasMath_t", "cublasStatus_t", "libraryPropertyType"].contains(&ts.as_str()) {
            bail!("{} takes {ts}, which has no hipBLAS table: add one", f.name);
        }
    }
    if f.name == "cublasCreate_v2" {
        // No device: cuBLAS's own answer, before hipBLAS/rocBLAS see it (see
        // backends/hip/src/cublas.rs).
        pre.insert(
            0,
            quote! {
                if !self.has_device() {
                    return cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
                }
            },
        );
    }
    if f.name == "cublasDestroy_v2" {
        post.push(quote! {
            if r == cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                self.forget_handle(handle);
            }
        });
    }
    Ok(quote! {
        #forward
        #(#handle_guard)*
        #(#pre)*
        // SAFETY: forwarded under the caller's contract, values in hipBLAS's numbering, to the
        // hipBLAS twin whose ABI the codegen checked against cuBLAS's.
        let r = status_from_hipblas(unsafe { t.#n(#(#args),*) });
        #(#post)*
        r
    })
}
