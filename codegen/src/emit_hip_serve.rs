//! `backends/hip/src/generated/serve.rs`: the HIP backend's `Driver` and `Runtime` impls.
//!
//! For every CUDA function of the catalogue, in this order:
//! 1. listed in `codegen/hip-adapted.txt` (with its room) → the body calls the hand-written
//!    `crate::adapt::<name>(self, args..)` (same CUDA signature);
//! 2. a HIP counterpart (`codegen/hip-names.txt`, else the name rules) whose call is mechanically
//!    translatable parameter by parameter → a generated forwarding body;
//! 3. otherwise omitted: the trait default answers not-supported, and the reason is recorded in
//!    `DRIVER_NOT_SERVED` / `RUNTIME_NOT_SERVED` (and printed with `ANYCUDA_CODEGEN_REPORT=1`).
//!
//! Mechanical means: same parameter count and order, and for each parameter one of
//! - identical representation (primitives of the same kind and size, pointers to such, structs
//!   and unions whose fields are pairwise identical recursively, callbacks likewise);
//! - a handle pair (`CUstream` ↔ `hipStream_t`, `CUdeviceptr` ↔ `hipDeviceptr_t`, ...), cast;
//!   stream handles go through `crate::conv::stream_to_hip` (CUDA's legacy-stream handle 0x1 is HIP's
//!   null stream);
//! - a CUDA enum ↔ its paired HIP enum, through the `conv` tables (by value as an argument, as
//!   a single out-parameter; inside structs only when the two enums' values are identical);
//! - a flag word listed in `codegen/hip-flag-params.txt` (translated bit by bit, or checked).
//!
//! Integer parameters whose name says "flag" must be listed there: an unlisted flag word would
//! otherwise pass through untranslated.

use crate::emit_cuda::CudaFn;
use crate::hip::{HipFn, HipUnion};
use crate::mapping::Mapping;
use crate::model::{Bindings, Item};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use syn::visit_mut::VisitMut;

/// Handle typedefs: CUDA name → HIP name. A CUDA parameter spelled with the CUDA name passes
/// as the HIP handle (pointer cast; integer handles become pointers of the same size).
const HANDLES: &[(&str, &str)] = &[
    ("CUcontext", "hipCtx_t"),
    ("CUmodule", "hipModule_t"),
    ("CUfunction", "hipFunction_t"),
    ("CUstream", "hipStream_t"),
    ("CUevent", "hipEvent_t"),
    ("CUarray", "hipArray_t"),
    ("CUmipmappedArray", "hipMipmappedArray_t"),
    ("CUgraph", "hipGraph_t"),
    ("CUgraphNode", "hipGraphNode_t"),
    ("CUgraphExec", "hipGraphExec_t"),
    ("CUmemoryPool", "hipMemPool_t"),
    ("CUuserObject", "hipUserObject_t"),
    ("CUexternalMemory", "hipExternalMemory_t"),
    ("CUexternalSemaphore", "hipExternalSemaphore_t"),
    ("CUgraphicsResource", "hipGraphicsResource_t"),
    ("CUlinkState", "hipLinkState_t"),
    ("CUlibrary", "hipLibrary_t"),
    ("CUkernel", "hipKernel_t"),
    ("CUtexObject", "hipTextureObject_t"),
    ("CUsurfObject", "hipSurfaceObject_t"),
    (
        "CUmemGenericAllocationHandle",
        "hipMemGenericAllocationHandle_t",
    ),
    ("CUdeviceptr", "hipDeviceptr_t"),
    ("CUdevice", "hipDevice_t"),
    ("CUtexref", "*mut textureReference"),
    ("cudaStream_t", "hipStream_t"),
    ("cudaEvent_t", "hipEvent_t"),
    ("cudaArray_t", "hipArray_t"),
    ("cudaArray_const_t", "hipArray_const_t"),
    ("cudaMipmappedArray_t", "hipMipmappedArray_t"),
    ("cudaMipmappedArray_const_t", "hipMipmappedArray_const_t"),
    ("cudaGraph_t", "hipGraph_t"),
    ("cudaGraphNode_t", "hipGraphNode_t"),
    ("cudaGraphExec_t", "hipGraphExec_t"),
    ("cudaMemPool_t", "hipMemPool_t"),
    ("cudaUserObject_t", "hipUserObject_t"),
    ("cudaExternalMemory_t", "hipExternalMemory_t"),
    ("cudaExternalSemaphore_t", "hipExternalSemaphore_t"),
    ("cudaGraphicsResource_t", "hipGraphicsResource_t"),
    ("cudaFunction_t", "hipFunction_t"),
    ("cudaTextureObject_t", "hipTextureObject_t"),
    ("cudaSurfaceObject_t", "hipSurfaceObject_t"),
    ("cudaKernel_t", "hipKernel_t"),
    ("cudaLibrary_t", "hipLibrary_t"),
];

/// Stream handles: translated by `crate::conv::stream_to_hip` (legacy 0x1 → HIP's null stream).
const STREAMS: &[&str] = &["CUstream", "cudaStream_t"];

/// Error codes for an enum argument HIP cannot take, where CUDA's own answer is not the
/// generic one: (CUDA enum, code for a value that is no CUDA constant, code for a CUDA
/// constant HIP lacks).
const ENUM_ERRORS: &[(&str, &str, &str)] = &[
    (
        "cudaMemcpyKind",
        "cudaErrorInvalidMemcpyDirection",
        "cudaErrorInvalidMemcpyDirection",
    ),
    (
        "CUlimit",
        "CUDA_ERROR_INVALID_VALUE",
        "CUDA_ERROR_UNSUPPORTED_LIMIT",
    ),
    (
        "cudaLimit",
        "cudaErrorInvalidValue",
        "cudaErrorUnsupportedLimit",
    ),
];

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// Which CUDA API a function belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ApiKind {
    Driver,
    Runtime,
}

impl ApiKind {
    fn module(self) -> &'static str {
        match self {
            ApiKind::Driver => "driver",
            ApiKind::Runtime => "runtime",
        }
    }
    fn ret(self) -> &'static str {
        match self {
            ApiKind::Driver => "CUresult",
            ApiKind::Runtime => "cudaError_t",
        }
    }
    /// (no library, no entry point, invalid value, not supported)
    fn codes(self) -> [&'static str; 4] {
        match self {
            ApiKind::Driver => [
                "CUDA_ERROR_NOT_INITIALIZED",
                "CUDA_ERROR_NOT_SUPPORTED",
                "CUDA_ERROR_INVALID_VALUE",
                "CUDA_ERROR_NOT_SUPPORTED",
            ],
            ApiKind::Runtime => [
                "cudaErrorInitializationError",
                "cudaErrorNotSupported",
                "cudaErrorInvalidValue",
                "cudaErrorNotSupported",
            ],
        }
    }
    fn code(self, name: &str) -> TokenStream {
        let m = ident(self.module());
        let t = ident(self.ret());
        let c = ident(name);
        quote!(anycuda_api::#m::#t::#c)
    }
}

/// A data file line: whitespace-separated fields before `|`, the reason after it.
fn data_lines(root: &Path, file: &str) -> Result<Vec<(usize, Vec<String>, String)>> {
    let path = root.join("codegen").join(file);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (fields, reason) = match l.split_once('|') {
            Some((f, r)) => (f, r.trim().to_string()),
            None => (l, String::new()),
        };
        if reason.is_empty() {
            bail!("codegen/{file}:{}: every entry needs `| reason`", i + 1);
        }
        out.push((
            i + 1,
            fields.split_whitespace().map(str::to_string).collect(),
            reason,
        ));
    }
    Ok(out)
}

/// A primitive: (kind `i`/`u`/`f`, bytes).
fn prim(name: &str) -> Option<(char, u8)> {
    Some(match name {
        "c_char" | "c_schar" | "i8" => ('i', 1),
        "c_uchar" | "u8" | "bool" => ('u', 1),
        "c_short" | "i16" => ('i', 2),
        "c_ushort" | "u16" => ('u', 2),
        "c_int" | "i32" => ('i', 4),
        "c_uint" | "u32" => ('u', 4),
        "c_long" | "c_longlong" | "i64" | "isize" => ('i', 8),
        "c_ulong" | "c_ulonglong" | "u64" | "usize" => ('u', 8),
        "c_float" | "f32" => ('f', 4),
        "c_double" | "f64" => ('f', 8),
        _ => return None,
    })
}

fn is_builtin(name: &str) -> bool {
    prim(name).is_some() || matches!(name, "c_void" | "Option")
}

/// One side's type universe.
struct Side<'a> {
    aliases: HashMap<String, &'a syn::Type>,
    records: HashMap<String, &'a syn::Item>,
    /// Enum name (tag or alias) → canonical name (CUDA: the user name; HIP: the tag).
    enums: HashMap<String, String>,
}

impl<'a> Side<'a> {
    fn cuda(b: &'a Bindings) -> Self {
        let mut s = Side {
            aliases: HashMap::new(),
            records: HashMap::new(),
            enums: HashMap::new(),
        };
        for it in &b.items {
            if let Item::Plain(p) = it {
                match p {
                    syn::Item::Type(t) => {
                        s.aliases.insert(t.ident.to_string(), &*t.ty);
                    }
                    syn::Item::Struct(st) => {
                        s.records.insert(st.ident.to_string(), p);
                    }
                    syn::Item::Union(u) => {
                        s.records.insert(u.ident.to_string(), p);
                    }
                    _ => {}
                }
            }
        }
        for e in b.enums.values() {
            let u = e.user_name().to_string();
            s.enums.insert(e.tag.clone(), u.clone());
            for a in &e.aliases {
                s.enums.insert(a.clone(), u.clone());
            }
        }
        s
    }

    fn hip(u: &'a HipUnion) -> Self {
        let mut s = Side {
            aliases: HashMap::new(),
            records: HashMap::new(),
            enums: HashMap::new(),
        };
        for (name, items) in &u.types {
            let Some(p) = items.first() else { continue };
            match p {
                syn::Item::Type(t) => {
                    s.aliases.insert(name.clone(), &*t.ty);
                }
                syn::Item::Struct(_) | syn::Item::Union(_) => {
                    s.records.insert(name.clone(), p);
                }
                _ => {}
            }
        }
        for v in &u.versions {
            for e in v.b.enums.values() {
                s.enums.insert(e.tag.clone(), e.tag.clone());
                for a in &e.aliases {
                    s.enums.insert(a.clone(), e.tag.clone());
                }
            }
        }
        s
    }

    /// The single identifier of a plain path type.
    fn name_of(t: &syn::Type) -> Option<String> {
        match t {
            syn::Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last()?;
                matches!(seg.arguments, syn::PathArguments::None).then(|| seg.ident.to_string())
            }
            syn::Type::Paren(p) => Self::name_of(&p.elem),
            _ => None,
        }
    }

    /// One alias step, if `t` names an alias.
    fn unalias(&self, t: &syn::Type) -> Option<&'a syn::Type> {
        Self::name_of(t).and_then(|n| self.aliases.get(&n).copied())
    }

    fn enum_of(&self, t: &syn::Type) -> Option<String> {
        Self::name_of(t).and_then(|n| self.enums.get(&n).cloned())
    }

    /// Fully expanded text (aliases resolved, `const` dropped): the identity of a HIP handle.
    fn expand(&self, t: &syn::Type, depth: usize) -> String {
        if depth > 32 {
            return "?".into();
        }
        if let Some(e) = self.enum_of(t) {
            return format!("enum {e}");
        }
        if let Some(a) = self.unalias(t) {
            return self.expand(a, depth + 1);
        }
        match t {
            syn::Type::Ptr(p) => format!("*{}", self.expand(&p.elem, depth + 1)),
            syn::Type::Paren(p) => self.expand(&p.elem, depth + 1),
            other => {
                let s = quote!(#other).to_string();
                match Self::name_of(other).as_deref().and_then(prim) {
                    Some((k, n)) => format!("{k}{n}"),
                    None => s,
                }
            }
        }
    }
}

/// How one parameter crosses.
#[derive(Clone)]
enum Conv {
    /// Same Rust type (or same-size primitive, `as _`).
    Pass { cast: bool },
    /// Pointer (or handle) cast.
    Cast,
    /// Integer handle (CUdeviceptr, ...) to a HIP pointer.
    IntToPtr,
    /// A stream handle.
    Stream,
    /// Identical layout by value (structs, callbacks).
    Transmute { hip_ty: syn::Type },
    /// CUDA enum argument through `conv.<field>`.
    EnumIn { field: String, hip_ty: syn::Type },
    /// Single enum out-parameter.
    EnumOut { field: String, hip_ty: syn::Type },
    /// Flag word through `conv.<group>`.
    FlagsIn { group: String, hip_ty: syn::Type },
    /// Flag word coming back through `conv.<group>`.
    FlagsOut { group: String, hip_ty: syn::Type },
    /// Only 0 is valid in CUDA (reserved): non-zero is invalid value.
    Reserved { cast: bool },
    /// Only 0 is expressible on HIP: non-zero is not supported.
    Zero { cast: bool },
}

/// The parameter-level data of `hip-flag-params.txt`.
#[derive(Clone)]
enum FlagRule {
    Group(String),
    Same,
    Zero,
    Reserved,
    Deny(String),
}

struct Ctx<'a> {
    hip: Side<'a>,
    mapping: &'a Mapping,
    /// CUDA enum user name → (conv field, HIP type canonical tag).
    pairs: HashMap<String, String>,
    records_memo: HashMap<(String, String), bool>,
    hip_fns: BTreeMap<String, Vec<&'a HipFn>>,
    versions: Vec<i64>,
    flag_rules: HashMap<(String, String), FlagRule>,
}

impl<'a> Ctx<'a> {
    fn hip_enum_tag(&self, name: &str) -> Option<String> {
        self.hip.enums.get(name).cloned()
    }

    /// Whether a CUDA enum and the HIP enum named `hip_tag` are a conv pair.
    fn paired(&self, cuda: &str, hip_tag: &str) -> bool {
        self.pairs
            .get(cuda)
            .and_then(|h| self.hip_enum_tag(h))
            .is_some_and(|t| t == hip_tag)
    }

    /// Whether the pair's values are identical in every HIP version (usable inside structs).
    fn values_identical(&self, cuda: &str) -> bool {
        let Some(i) = self.mapping.types.iter().position(|t| t.cuda == cuda) else {
            return false;
        };
        self.mapping.enum_maps.iter().all(|per| {
            let Some(e) = per.get(i) else { return false };
            let cuda_vals: BTreeSet<i64> = e
                .pairs
                .iter()
                .map(|p| p.1)
                .chain(e.cuda_only.iter().map(|c| c.1))
                .collect();
            let hip_vals: BTreeSet<i64> = e
                .pairs
                .iter()
                .map(|p| p.3)
                .chain(e.hip_only.iter().map(|h| h.1))
                .collect();
            e.pairs.iter().all(|p| p.1 == p.3)
                && e.cuda_only.iter().all(|c| !hip_vals.contains(&c.1))
                && e.hip_only.iter().all(|h| !cuda_vals.contains(&h.1))
        })
    }

    /// Identical representation of a CUDA type (in `c`) and a HIP type.
    fn deep(
        &mut self,
        c: &Side<'_>,
        ct: &syn::Type,
        ht: &syn::Type,
        depth: usize,
    ) -> std::result::Result<(), String> {
        if depth > 40 {
            return Err("types nest too deeply".into());
        }
        let (cs, hs) = (quote!(#ct).to_string(), quote!(#ht).to_string());
        if let Some(cn) = Side::name_of(ct) {
            if let Some((_, hn)) = HANDLES.iter().find(|(c, _)| *c == cn) {
                let want = self.hip.expand(&syn::parse_str(hn).expect("type"), 0);
                let got = self.hip.expand(ht, 0);
                if want == got || (cn == "CUdeviceptr" && got == "*c_void") {
                    return Ok(());
                }
                return Err(format!("`{cs}` vs `{hs}`: not the same handle"));
            }
        }
        if let Some(ce) = c.enum_of(ct) {
            let Some(he) = self.hip.enum_of(ht) else {
                return Err(format!("enum `{cs}` vs non-enum `{hs}`"));
            };
            if !self.paired(&ce, &he) {
                return Err(format!("enum `{cs}` is not paired with `{hs}`"));
            }
            if !self.values_identical(&ce) {
                return Err(format!(
                    "enum `{cs}` inside a pointer/struct: values differ from `{hs}`"
                ));
            }
            return Ok(());
        }
        if self.hip.enum_of(ht).is_some() {
            return Err(format!("`{cs}` vs enum `{hs}`"));
        }
        if let Some(a) = c.unalias(ct) {
            return self.deep(c, a, ht, depth + 1);
        }
        if let Some(a) = self.hip.unalias(ht) {
            return self.deep(c, ct, a, depth + 1);
        }
        match (ct, ht) {
            (syn::Type::Paren(p), _) => self.deep(c, &p.elem, ht, depth + 1),
            (_, syn::Type::Paren(p)) => self.deep(c, ct, &p.elem, depth + 1),
            (syn::Type::Ptr(a), syn::Type::Ptr(b)) => self.deep(c, &a.elem, &b.elem, depth + 1),
            (syn::Type::Array(a), syn::Type::Array(b)) => {
                let (la, lb) = (&a.len, &b.len);
                let (la, lb) = (array_len(la), array_len(lb));
                if la.is_none() || la != lb {
                    return Err(format!("arrays `{cs}` vs `{hs}` differ in length"));
                }
                self.deep(c, &a.elem, &b.elem, depth + 1)
            }
            (syn::Type::BareFn(a), syn::Type::BareFn(b)) => {
                if a.inputs.len() != b.inputs.len() || a.variadic.is_some() != b.variadic.is_some()
                {
                    return Err(format!("callbacks `{cs}` vs `{hs}` differ in arity"));
                }
                for (x, y) in a.inputs.iter().zip(b.inputs.iter()) {
                    self.deep(c, &x.ty, &y.ty, depth + 1)?;
                }
                match (&a.output, &b.output) {
                    (syn::ReturnType::Default, syn::ReturnType::Default) => Ok(()),
                    (syn::ReturnType::Type(_, x), syn::ReturnType::Type(_, y)) => {
                        self.deep(c, x, y, depth + 1)
                    }
                    _ => Err(format!("callbacks `{cs}` vs `{hs}` differ in return")),
                }
            }
            (syn::Type::Path(a), syn::Type::Path(b)) => {
                let sa = a.path.segments.last().ok_or("empty path")?;
                let sb = b.path.segments.last().ok_or("empty path")?;
                let (na, nb) = (sa.ident.to_string(), sb.ident.to_string());
                match (&sa.arguments, &sb.arguments) {
                    (
                        syn::PathArguments::AngleBracketed(x),
                        syn::PathArguments::AngleBracketed(y),
                    ) => {
                        if na != nb || x.args.len() != y.args.len() {
                            return Err(format!("`{cs}` vs `{hs}`"));
                        }
                        for (p, q) in x.args.iter().zip(y.args.iter()) {
                            match (p, q) {
                                (syn::GenericArgument::Type(p), syn::GenericArgument::Type(q)) => {
                                    self.deep(c, p, q, depth + 1)?
                                }
                                _ => return Err(format!("`{cs}` vs `{hs}`")),
                            }
                        }
                        return Ok(());
                    }
                    (syn::PathArguments::None, syn::PathArguments::None) => {}
                    _ => return Err(format!("`{cs}` vs `{hs}`")),
                }
                if na == "c_void" && nb == "c_void" {
                    return Ok(());
                }
                match (prim(&na), prim(&nb)) {
                    // same size; signedness may differ (C `unsigned int` count vs `int`): the
                    // bits cross unchanged
                    (Some(x), Some(y)) if x.1 == y.1 && (x.0 == 'f') == (y.0 == 'f') => {
                        return Ok(())
                    }
                    (Some(_), Some(_)) => {
                        return Err(format!("`{cs}` vs `{hs}` differ in size or kind"))
                    }
                    _ => {}
                }
                match (c.records.get(&na), self.hip.records.get(&nb)) {
                    (Some(ri), Some(rh)) => self.record(c, &na, ri, &nb, rh, depth),
                    (Some(syn::Item::Union(u)), None) => self.widened(c, &na, u, ht, depth),
                    _ => Err(format!("`{cs}` vs `{hs}`")),
                }
            }
            _ => Err(format!("`{cs}` vs `{hs}`")),
        }
    }

    /// A field CUDA 13.x widened into an anonymous union (`CUmemLocation::id`,
    /// `{ int id; struct { unsigned char deviceId, localityDomainId; } localized; }`) where HIP
    /// keeps the plain field: identical when the union's first member is identical to HIP's
    /// field and no other member is larger (plain data only), so the union is that field's size.
    fn widened(
        &mut self,
        c: &Side<'_>,
        cn: &str,
        u: &syn::ItemUnion,
        ht: &syn::Type,
        depth: usize,
    ) -> std::result::Result<(), String> {
        let mut fields = u.fields.named.iter();
        let first = fields.next().ok_or_else(|| format!("empty union `{cn}`"))?;
        self.deep(c, &first.ty, ht, depth + 1)
            .map_err(|e| format!("union `{cn}`: first member: {e}"))?;
        let size = prim_of(c, &first.ty)
            .ok_or_else(|| format!("union `{cn}`: first member is not plain"))?
            .1;
        for f in fields {
            let plain = match prim_of(c, &f.ty) {
                Some(p) => p.1 <= size,
                None => match Side::name_of(&f.ty).and_then(|n| c.records.get(&n)) {
                    Some(syn::Item::Struct(st)) => {
                        let sizes: Option<Vec<u8>> = st
                            .fields
                            .iter()
                            .map(|g| prim_of(c, &g.ty).map(|p| p.1))
                            .collect();
                        sizes.is_some_and(|v| {
                            v.iter().map(|&x| x as u32).sum::<u32>() <= size as u32
                        })
                    }
                    _ => false,
                },
            };
            if !plain {
                return Err(format!(
                    "union `{cn}`: member larger than its first, or not plain"
                ));
            }
        }
        Ok(())
    }

    fn record(
        &mut self,
        c: &Side<'_>,
        cn: &str,
        ci: &syn::Item,
        hn: &str,
        hi: &syn::Item,
        depth: usize,
    ) -> std::result::Result<(), String> {
        let key = (cn.to_string(), hn.to_string());
        if let Some(ok) = self.records_memo.get(&key) {
            return if *ok {
                Ok(())
            } else {
                Err(format!("struct `{cn}` and `{hn}` differ"))
            };
        }
        self.records_memo.insert(key.clone(), true);
        let reprs = |attrs: &[syn::Attribute]| -> Vec<String> {
            attrs
                .iter()
                .filter(|a| a.path().is_ident("repr"))
                .map(|a| quote!(#a).to_string())
                .collect()
        };
        let fields = |i: &syn::Item| -> Option<(bool, Vec<String>, Vec<syn::Type>)> {
            match i {
                syn::Item::Struct(s) => Some((
                    false,
                    reprs(&s.attrs),
                    s.fields.iter().map(|f| f.ty.clone()).collect(),
                )),
                syn::Item::Union(u) => Some((
                    true,
                    reprs(&u.attrs),
                    u.fields.named.iter().map(|f| f.ty.clone()).collect(),
                )),
                _ => None,
            }
        };
        let res = (|| {
            let (Some(a), Some(b)) = (fields(ci), fields(hi)) else {
                return Err(format!("`{cn}` vs `{hn}`"));
            };
            if a.0 != b.0 || a.1 != b.1 || a.2.len() != b.2.len() {
                return Err(format!(
                    "struct `{cn}` and `{hn}` differ in kind, repr or field count"
                ));
            }
            if a.2.len() == 1 && Side::name_of(&a.2[0]).is_none() && cn.ends_with("_st") {
                // an opaque CUDA struct (`_unused: [u8; 0]`) is no layout to compare
            }
            for (x, y) in a.2.iter().zip(b.2.iter()) {
                self.deep(c, x, y, depth + 1)
                    .map_err(|e| format!("struct `{cn}` vs `{hn}`: {e}"))?;
            }
            Ok(())
        })();
        self.records_memo.insert(key, res.is_ok());
        res
    }

    /// The conversion of one top-level parameter.
    fn param(
        &mut self,
        c: &Side<'_>,
        f: &CudaFn,
        pname: &str,
        ct: &syn::Type,
        ht: &syn::Type,
    ) -> std::result::Result<Conv, String> {
        let hip_q = qualify(ht, "super::types");
        let cuda_prim = prim_of(c, ct);
        let hip_prim = prim_of(&self.hip, ht);
        let same_text = quote!(#ct).to_string() == quote!(#ht).to_string();
        if let Some(rule) = self
            .flag_rules
            .get(&(f.name.clone(), pname.to_string()))
            .cloned()
        {
            let (Some(cp), Some(hp)) = (cuda_prim, hip_prim) else {
                // pointer to a flag word: an out-parameter
                if let (syn::Type::Ptr(a), syn::Type::Ptr(b), FlagRule::Group(g)) = (ct, ht, &rule)
                {
                    if prim_of(c, &a.elem).is_some() && prim_of(&self.hip, &b.elem).is_some() {
                        return Ok(Conv::FlagsOut {
                            group: g.clone(),
                            hip_ty: qualify(&b.elem, "super::types"),
                        });
                    }
                }
                if let (syn::Type::Ptr(a), syn::Type::Ptr(b), FlagRule::Same) = (ct, ht, &rule) {
                    if prim_of(c, &a.elem).map(|p| p.1) == prim_of(&self.hip, &b.elem).map(|p| p.1)
                        && prim_of(c, &a.elem).is_some()
                    {
                        return Ok(Conv::Cast);
                    }
                }
                if let FlagRule::Deny(why) = &rule {
                    return Err(format!("parameter `{pname}`: {why}"));
                }
                return Err(format!(
                    "flag parameter `{pname}` is not an integer on both sides"
                ));
            };
            if cp.0 == 'f' || hp.0 == 'f' {
                return Err(format!("flag parameter `{pname}` is a float"));
            }
            let cast = !same_text;
            return match rule {
                FlagRule::Group(g) => Ok(Conv::FlagsIn {
                    group: g,
                    hip_ty: hip_q,
                }),
                FlagRule::Same => Ok(Conv::Pass { cast }),
                FlagRule::Zero => Ok(Conv::Zero { cast }),
                FlagRule::Reserved => Ok(Conv::Reserved { cast }),
                FlagRule::Deny(why) => Err(format!("parameter `{pname}`: {why}")),
            };
        }
        if let Some(cn) = Side::name_of(ct) {
            if HANDLES.iter().any(|(h, _)| *h == cn) {
                self.deep(c, ct, ht, 0)
                    .map_err(|e| format!("parameter `{pname}`: {e}"))?;
                if STREAMS.contains(&cn.as_str()) {
                    return Ok(Conv::Stream);
                }
                let int_cuda = prim_of(c, ct).is_some();
                let int_hip = prim_of(&self.hip, ht).is_some();
                return Ok(match (int_cuda, int_hip) {
                    (true, false) => Conv::IntToPtr,
                    (true, true) => Conv::Pass { cast: !same_text },
                    _ => Conv::Cast,
                });
            }
        }
        if let Some(ce) = c.enum_of(ct) {
            let Some(he) = self.hip.enum_of(ht) else {
                return Err(format!(
                    "parameter `{pname}`: enum `{}` vs `{}`",
                    quote!(#ct),
                    quote!(#ht)
                ));
            };
            if !self.paired(&ce, &he) {
                return Err(format!(
                    "parameter `{pname}`: enum `{ce}` has no conv pair with `{he}`"
                ));
            }
            return Ok(Conv::EnumIn {
                field: ce,
                hip_ty: hip_q,
            });
        }
        if let (syn::Type::Ptr(a), syn::Type::Ptr(b)) = (ct, ht) {
            if let Some(ce) = c.enum_of(&a.elem) {
                if let Some(he) = self.hip.enum_of(&b.elem) {
                    let arrays = f.decl.args.iter().any(|(n, _)| {
                        let n = n.to_ascii_lowercase();
                        n.starts_with("num") || n.starts_with("count") || n.ends_with("count")
                    });
                    if self.paired(&ce, &he) && a.mutability.is_some() && !arrays {
                        return Ok(Conv::EnumOut {
                            field: ce,
                            hip_ty: qualify(&b.elem, "super::types"),
                        });
                    }
                }
            }
        }
        let ptr_to_int = matches!(ct, syn::Type::Ptr(a) if prim_of(c, &a.elem).is_some());
        if (cuda_prim.is_some() || ptr_to_int) && pname.to_ascii_lowercase().contains("flag") {
            return Err(format!(
                "flag parameter `{pname}` is not listed in codegen/hip-flag-params.txt"
            ));
        }
        self.deep(c, ct, ht, 0)
            .map_err(|e| format!("parameter `{pname}`: {e}"))?;
        if cuda_prim.is_some() {
            return Ok(Conv::Pass { cast: !same_text });
        }
        if !c_expand_is_ptr(c, ct) {
            return Ok(Conv::Transmute { hip_ty: hip_q });
        }
        Ok(if same_text {
            Conv::Pass { cast: false }
        } else {
            Conv::Cast
        })
    }
}

/// Whether a CUDA type expands to a pointer.
fn c_expand_is_ptr(c: &Side<'_>, t: &syn::Type) -> bool {
    let mut t = t;
    for _ in 0..32 {
        match t {
            syn::Type::Ptr(_) => return true,
            syn::Type::Paren(p) => t = &p.elem,
            _ => match c.unalias(t) {
                Some(a) => t = a,
                None => return false,
            },
        }
    }
    false
}

/// The primitive a type expands to (not enums).
fn prim_of(s: &Side<'_>, t: &syn::Type) -> Option<(char, u8)> {
    let mut t = t;
    for _ in 0..32 {
        if s.enum_of(t).is_some() {
            return None;
        }
        if let Some(n) = Side::name_of(t) {
            if let Some(p) = prim(&n) {
                return Some(p);
            }
        }
        match s.unalias(t) {
            Some(a) => t = a,
            None => return None,
        }
    }
    None
}

fn array_len(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// Prefixes non-builtin single-identifier type paths with `module::`; `c_*` become
/// `::core::ffi::c_*`.
struct Qualify<'a>(&'a str);
impl VisitMut for Qualify<'_> {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if name.starts_with("c_") {
                let seg = p.path.segments[0].clone();
                *p = syn::parse_quote!(::core::ffi::#seg);
                return;
            }
            if !is_builtin(&name) {
                let m: syn::Path = syn::parse_str(self.0).expect("module path");
                let seg = p.path.segments[0].clone();
                *p = syn::parse_quote!(#m::#seg);
                return;
            }
        }
        syn::visit_mut::visit_type_path_mut(self, p);
    }
}

fn qualify(t: &syn::Type, module: &str) -> syn::Type {
    let mut t = t.clone();
    Qualify(module).visit_type_mut(&mut t);
    t
}

/// A function left out, or why it is served as it is.
struct Outcome {
    name: String,
    /// `Ok(hip symbol)` served mechanically, `Err(reason)` left out; adapted ones are `Ok("")`.
    served: std::result::Result<String, String>,
}

/// Renders `backends/hip/src/generated/serve.rs`.
#[allow(clippy::too_many_arguments)]
pub fn module(
    root: &Path,
    driver_fns: &[CudaFn],
    driver_b: &Bindings,
    runtime_fns: &[CudaFn],
    runtime_b: &Bindings,
    hu: &HipUnion,
    mapping: &Mapping,
    inputs: &str,
) -> Result<String> {
    let all_cuda: BTreeSet<&str> = driver_fns
        .iter()
        .chain(runtime_fns.iter())
        .map(|f| f.name.as_str())
        .collect();
    let mut hip_fns: BTreeMap<String, Vec<&HipFn>> = BTreeMap::new();
    for f in &hu.functions {
        hip_fns.entry(f.symbol.clone()).or_default().push(f);
    }

    // Data files.
    let mut names: HashMap<String, Option<String>> = HashMap::new();
    for (line, fields, _) in data_lines(root, "hip-names.txt")? {
        let [c, h] = fields.as_slice() else {
            bail!("codegen/hip-names.txt:{line}: expected `<cuda name> <hip name or -> | reason`");
        };
        if !all_cuda.contains(c.as_str()) {
            bail!("codegen/hip-names.txt:{line}: `{c}` is no CUDA function of the catalogue");
        }
        if h != "-" && !hip_fns.contains_key(h) {
            bail!(
                "codegen/hip-names.txt:{line}: `{h}` is no HIP function of any supported version"
            );
        }
        if names
            .insert(c.clone(), (h != "-").then(|| h.clone()))
            .is_some()
        {
            bail!("codegen/hip-names.txt:{line}: `{c}` listed twice");
        }
    }
    let adapted = read_adapted(root, &all_cuda)?;
    // Functions whose trait default is real (`codegen/trait-defaults.txt`, kept by the traits'
    // emitter): never forwarded, never adapted, except the error strings (below) and nvcc's
    // hidden entry points (`__cuda*`, codegen/shim/crt/nvcc_entry_points.h): their defaults answer only when nothing can serve
    // them (no backend, a CUDA runtime without the symbol), while the HIP backend keeps their
    // registry itself (adapt/nvcc.rs).
    let td_path = root.join("codegen/trait-defaults.txt");
    let trait_defaults: BTreeSet<String> = std::fs::read_to_string(&td_path)
        .with_context(|| format!("reading {}", td_path.display()))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split('|').next().map(|n| n.trim().to_string()))
        .collect();
    // The error strings' defaults answer the headers' long doc comments; the HIP backend asks
    // HIP for CUDA's short strings instead (adapt/errors.rs).
    const HIP_ANSWERS_BETTER: [&str; 2] = ["cuGetErrorString", "cudaGetErrorString"];
    for a in adapted.keys() {
        if trait_defaults.contains(a)
            && !a.starts_with("__cuda")
            && !HIP_ANSWERS_BETTER.contains(&a.as_str())
        {
            bail!("codegen/hip-adapted.txt: `{a}` is served by its trait default (codegen/trait-defaults.txt)");
        }
    }
    let mut flag_rules: HashMap<(String, String), FlagRule> = HashMap::new();
    let mut same_enums: Vec<(usize, String)> = Vec::new();
    for (line, fields, reason) in data_lines(root, "hip-flag-params.txt")? {
        let [func, param, group] = fields.as_slice() else {
            bail!("codegen/hip-flag-params.txt:{line}: expected `<function> <parameter> <group> | reason`");
        };
        let Some(cf) = driver_fns
            .iter()
            .chain(runtime_fns.iter())
            .find(|f| &f.name == func)
        else {
            bail!("codegen/hip-flag-params.txt:{line}: `{func}` is no CUDA function");
        };
        if !cf.decl.args.iter().any(|(n, _)| n == param) {
            bail!("codegen/hip-flag-params.txt:{line}: `{func}` has no parameter `{param}`");
        }
        let rule = match group.as_str() {
            "=same" => FlagRule::Same,
            g if g.starts_with("=same:") => {
                let e = &g["=same:".len()..];
                same_enums.push((line, e.to_string()));
                FlagRule::Same
            }
            "=zero" => FlagRule::Zero,
            "=reserved" => FlagRule::Reserved,
            "!" => FlagRule::Deny(reason.clone()),
            g if mapping.flag_fields.iter().any(|f| f == g) => FlagRule::Group(g.to_string()),
            g => bail!("codegen/hip-flag-params.txt:{line}: unknown flag group `{g}`"),
        };
        flag_rules.insert((func.clone(), param.clone()), rule);
    }

    let pairs: HashMap<String, String> = mapping
        .types
        .iter()
        .map(|t| (t.cuda.clone(), t.hip.clone()))
        .collect();
    let mut ctx = Ctx {
        hip: Side::hip(hu),
        mapping,
        pairs,
        records_memo: HashMap::new(),
        hip_fns,
        versions: hu.versions.iter().map(|v| v.hip_version).collect(),
        flag_rules,
    };

    for (line, e) in &same_enums {
        if !ctx.pairs.contains_key(e) || !ctx.values_identical(e) {
            bail!("codegen/hip-flag-params.txt:{line}: `=same:{e}` but {e} and its HIP enum do not have identical values in every HIP version");
        }
    }
    let guards = read_nvcc_guards(root, runtime_fns)?;
    let mut items: Vec<syn::Item> = vec![syn::parse_quote!(
        use anycuda_api::CudaEnum;
    )];
    let mut report: Vec<(ApiKind, Vec<Outcome>)> = Vec::new();
    for (kind, fns, b) in [
        (ApiKind::Driver, driver_fns, driver_b),
        (ApiKind::Runtime, runtime_fns, runtime_b),
    ] {
        let side = Side::cuda(b);
        let mut methods = Vec::new();
        let mut outcomes = Vec::new();
        for f in fns {
            let (m, o) = one(&mut ctx, &side, kind, f, &names, &adapted, &trait_defaults)?;
            let guard = guards.get(&f.name).filter(|_| kind == ApiKind::Runtime);
            match (m, guard) {
                (Some(m), Some(g)) => methods.push(with_nvcc_guard(m, &f.name, g)?),
                (Some(m), None) => methods.push(m),
                (None, Some(_)) => bail!(
                    "codegen/hip-nvcc-guard.txt: `{}` is not served on HIP, so it has no method to guard",
                    f.name
                ),
                (None, None) => {}
            }
            outcomes.push(o);
        }
        let (list, tr) = match kind {
            ApiKind::Driver => (ident("DRIVER_SERVED"), quote!(Driver)),
            ApiKind::Runtime => (ident("RUNTIME_SERVED"), quote!(Runtime)),
        };
        // Emitted as a plain impl (so prettyplease formats it), wrapped in `served!` below.
        let _ = &list;
        let imp: syn::Item = syn::parse_quote! {
            impl anycuda_api::traits::#tr for crate::HipBackend {
                #(#methods)*
            }
        };
        items.push(imp);
        let nl = match kind {
            ApiKind::Driver => ident("DRIVER_NOT_SERVED"),
            ApiKind::Runtime => ident("RUNTIME_NOT_SERVED"),
        };
        let rows = outcomes.iter().filter_map(|o| match &o.served {
            Err(r) => {
                let n = &o.name;
                Some(quote!((#n, #r)))
            }
            Ok(_) => None,
        });
        let d = format!(
            " The {} functions the HIP backend leaves to the trait default (not supported), with why.",
            match kind {
                ApiKind::Driver => "Driver",
                ApiKind::Runtime => "Runtime",
            }
        );
        items.push(syn::parse_quote! {
            #[doc = #d]
            pub const #nl: &[(&str, &str)] = &[#(#rows),*];
        });
        report.push((kind, outcomes));
    }

    if std::env::var_os("ANYCUDA_CODEGEN_REPORT").is_some() {
        for (kind, outs) in &report {
            let served = outs.iter().filter(|o| o.served.is_ok()).count();
            eprintln!(
                "hip serve {}: {served} of {} served",
                kind.module(),
                outs.len()
            );
            let mut cats: BTreeMap<String, usize> = BTreeMap::new();
            for o in outs {
                if let Err(r) = &o.served {
                    *cats.entry(category(r)).or_default() += 1;
                    eprintln!("  not served {}: {r}", o.name);
                }
            }
            let mut cats: Vec<(String, usize)> = cats.into_iter().collect();
            cats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (c, n) in cats {
                eprintln!("  {n:>4} {c}");
            }
        }
    }

    let text = crate::emit::render(
        inputs,
        "The HIP backend's `Driver` and `Runtime` impls, generated by `codegen/src/emit_hip_serve.rs`.\n\nEach served function either forwards to its HIP counterpart with every argument translated\n(handles cast, enums and flags through `crate::conv`, HIP errors back to CUDA codes) or, when\nlisted in `codegen/hip-adapted.txt`, calls the hand-written function of the same name in the\n`crate::adapt` room the index names. Everything else keeps the trait default (not supported); `DRIVER_NOT_SERVED` and\n`RUNTIME_NOT_SERVED` say why.",
        &items,
    )?;
    // `impl Trait for crate::HipBackend { .. }` → `anycuda_api::served! { LIST; impl .. }`, so the
    // impl also lists what it serves (prettyplease does not format inside macro calls).
    let mut out = String::with_capacity(text.len() + 128);
    let mut open = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("impl anycuda_api::traits::") {
            let list = if rest.starts_with("Driver ") {
                "DRIVER_SERVED"
            } else {
                "RUNTIME_SERVED"
            };
            out.push_str(&format!("anycuda_api::served! {{ {list};\n"));
            open = true;
        }
        out.push_str(line);
        out.push('\n');
        if open && line == "}" {
            out.push_str("}\n");
            open = false;
        }
    }
    Ok(out)
}

/// The report category of a reason (its text up to the first detail).
fn category(r: &str) -> String {
    if let Some(rest) = r.strip_prefix("parameter `") {
        let detail = rest.split_once(": ").map_or(rest, |x| x.1);
        let detail = detail.split('`').next().unwrap_or(detail);
        return format!("parameter: {}", detail.trim());
    }
    r.split('`').next().unwrap_or(r).trim().to_string()
}

/// The adaptation index `codegen/hip-adapted.txt`: CUDA name → room (module under
/// `backends/hip/src/adapt/`).
///
/// Checked both ways against the hand-written code, so the index cannot go stale: each entry's
/// file exists and names the function, and every CUDA-named function an adaptation room defines
/// (`pub(crate) [unsafe] fn cu…/cuda…`) is listed with that room.
fn read_adapted(root: &Path, all_cuda: &BTreeSet<&str>) -> Result<BTreeMap<String, String>> {
    let src = root.join("backends/hip/src");
    let word = |text: &str, name: &str| {
        regex::Regex::new(&format!(r"\b{}\b", regex::escape(name)))
            .map(|r| r.is_match(text))
            .unwrap_or(false)
    };
    let mut adapted = BTreeMap::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (line, fields, _) in data_lines(root, "hip-adapted.txt")? {
        let [c, file] = fields.as_slice() else {
            bail!(
                "codegen/hip-adapted.txt:{line}: expected `<cuda name> adapt/<room>.rs | reason`"
            );
        };
        if !all_cuda.contains(c.as_str()) {
            bail!("codegen/hip-adapted.txt:{line}: `{c}` is no CUDA function of the catalogue");
        }
        let Some(room) = file
            .strip_prefix("adapt/")
            .and_then(|f| f.strip_suffix(".rs"))
            .filter(|r| !r.is_empty() && r.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'))
        else {
            bail!("codegen/hip-adapted.txt:{line}: `{file}` is no `adapt/<room>.rs`");
        };
        if !texts.contains_key(file) {
            let path = src.join(file);
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!("codegen/hip-adapted.txt:{line}: reading {}", path.display())
            })?;
            texts.insert(file.clone(), text);
        }
        if !word(&texts[file], c) {
            bail!("codegen/hip-adapted.txt:{line}: `{c}` is not in backends/hip/src/{file}");
        }
        if adapted.insert(c.clone(), room.to_string()).is_some() {
            bail!("codegen/hip-adapted.txt:{line}: `{c}` listed twice");
        }
    }
    let def = regex::Regex::new(r"(?m)^pub\(crate\) (?:unsafe )?fn ((?:cu|cuda)[A-Z]\w*)\(")?;
    let dir = src.join("adapt");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path)?;
        let room = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        for m in def.captures_iter(&text) {
            let name = &m[1];
            match adapted.get(name) {
                Some(r) if r == room => {}
                Some(r) => bail!("codegen/hip-adapted.txt: `{name}` is filed under adapt/{r}.rs but defined in adapt/{room}.rs"),
                None if all_cuda.contains(name) => bail!("codegen/hip-adapted.txt: `{name}` (adapt/{room}.rs) is not listed"),
                None => {}
            }
        }
    }
    Ok(adapted)
}

/// `codegen/hip-nvcc-guard.txt`: Runtime function → (pointer parameter, `kernel` or `var`).
fn read_nvcc_guards(
    root: &Path,
    runtime_fns: &[CudaFn],
) -> Result<BTreeMap<String, (String, String)>> {
    let mut out = BTreeMap::new();
    for (line, fields, _reason) in data_lines(root, "hip-nvcc-guard.txt")? {
        let [func, param, what] = fields.as_slice() else {
            bail!("codegen/hip-nvcc-guard.txt:{line}: expected `<function> <parameter> kernel|var | reason`");
        };
        let Some(cf) = runtime_fns.iter().find(|f| &f.name == func) else {
            bail!("codegen/hip-nvcc-guard.txt:{line}: `{func}` is no CUDA Runtime function");
        };
        match cf.decl.args.iter().find(|(n, _)| n == param) {
            Some((_, t)) if quote!(#t).to_string().replace(' ', "") == "*constc_void" => {}
            Some((_, t)) => bail!(
                "codegen/hip-nvcc-guard.txt:{line}: `{func}`'s `{param}` is `{}`, not `const void *`",
                quote!(#t)
            ),
            None => bail!("codegen/hip-nvcc-guard.txt:{line}: `{func}` has no parameter `{param}`"),
        }
        if !["kernel", "var", "hook"].contains(&what.as_str()) {
            bail!("codegen/hip-nvcc-guard.txt:{line}: `{what}` is none of `kernel`, `var`, `hook`");
        }
        if out
            .insert(func.clone(), (param.clone(), what.clone()))
            .is_some()
        {
            bail!("codegen/hip-nvcc-guard.txt:{line}: `{func}` listed twice");
        }
    }
    Ok(out)
}

/// `m` with the registry question of `codegen/hip-nvcc-guard.txt` as its first statement.
fn with_nvcc_guard(
    m: TokenStream,
    name: &str,
    (param, what): &(String, String),
) -> Result<TokenStream> {
    let mut f: syn::ImplItemFn =
        syn::parse2(m).with_context(|| format!("re-reading the HIP method of {name}"))?;
    let stmt: syn::Stmt = if what == "hook" {
        // The registry's own method for the call: every argument passed on.
        let hook = ident(name);
        let args: Vec<TokenStream> = f
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => {
                    let pat = &t.pat;
                    Some(quote!(#pat))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        syn::parse_quote! {
            // SAFETY: the caller's contract, forwarded unchanged.
            if let Some(e) = unsafe { crate::adapt::nvcc::hooks::#hook(self, #(#args),*) } {
                return e;
            }
        }
    } else {
        let p = ident(param);
        let check = ident(&format!("refuse_{what}"));
        syn::parse_quote! {
            if let Some(e) = crate::adapt::nvcc::#check(#p, #name) {
                return e;
            }
        }
    };
    f.block.stmts.insert(0, stmt);
    f.attrs
        .push(syn::parse_quote!(#[doc = " nvcc-built modules: see `codegen/hip-nvcc-guard.txt`."]));
    Ok(quote!(#f))
}

/// The method (if served) and outcome of one CUDA function.
fn one(
    ctx: &mut Ctx<'_>,
    side: &Side<'_>,
    kind: ApiKind,
    f: &CudaFn,
    names: &HashMap<String, Option<String>>,
    adapted: &BTreeMap<String, String>,
    trait_defaults: &BTreeSet<String>,
) -> Result<(Option<TokenStream>, Outcome)> {
    let module = format!("anycuda_api::{}", kind.module());
    let name = ident(&f.name);
    let params: Vec<(Ident, syn::Type)> = f
        .decl
        .args
        .iter()
        .enumerate()
        .map(|(i, (n, t))| {
            let n = if n.is_empty() || n == "_" {
                format!("arg{i}")
            } else {
                n.clone()
            };
            (ident(&n), qualify(t, &module))
        })
        .collect();
    let ret_ty: syn::Type = match &f.decl.ret {
        Some(t) => qualify(t, &module),
        None => syn::parse_quote!(()),
    };
    let sig_params = params.iter().map(|(n, t)| quote!(#n: #t));
    let arg_names: Vec<&Ident> = params.iter().map(|(n, _)| n).collect();
    let out = |served| Outcome {
        name: f.name.clone(),
        served,
    };
    if trait_defaults.contains(&f.name) && !adapted.contains_key(&f.name) {
        return Ok((
            None,
            out(Err(
                "served by the trait default from anycuda's own tables".into()
            )),
        ));
    }
    if let Some(room) = adapted.get(&f.name) {
        let room = ident(room);
        let m = quote! {
            #[doc = " Hand-adapted (`codegen/hip-adapted.txt`)."]
            #[inline]
            unsafe fn #name(&self, #(#sig_params),*) -> #ret_ty {
                unsafe { crate::adapt::#room::#name(self, #(#arg_names),*) }
            }
        };
        return Ok((Some(m), out(Ok(String::new()))));
    }
    let ret_ok = f
        .decl
        .ret
        .as_ref()
        .and_then(Side::name_of)
        .is_some_and(|r| r == kind.ret() || (kind == ApiKind::Runtime && r == "cudaError"));
    if !ret_ok || f.decl.variadic {
        let r = f
            .decl
            .ret
            .as_ref()
            .map_or("()".to_string(), |t| quote!(#t).to_string());
        return Ok((None, out(Err(format!("returns `{r}`, not an error code")))));
    }
    let hip_name = match names.get(&f.name) {
        Some(Some(h)) => h.clone(),
        Some(None) => {
            return Ok((
                None,
                out(Err(
                    "no HIP counterpart with CUDA's behaviour (codegen/hip-names.txt)".into(),
                )),
            ))
        }
        None => {
            let rest = match kind {
                ApiKind::Driver => f.name.strip_prefix("cu"),
                ApiKind::Runtime => f.name.strip_prefix("cuda"),
            }
            .unwrap_or(&f.name);
            let cands = match kind {
                ApiKind::Driver => vec![format!("hipDrv{rest}"), format!("hip{rest}")],
                ApiKind::Runtime => vec![format!("hip{rest}")],
            };
            match cands.into_iter().find(|c| ctx.hip_fns.contains_key(c)) {
                Some(c) => c,
                None => {
                    return Ok((None, out(Err(format!("no HIP counterpart `hip{rest}`")))));
                }
            }
        }
    };
    let variants: Vec<HipFn> = ctx.hip_fns[&hip_name]
        .iter()
        .map(|h| (*h).clone())
        .collect();
    let [no_lib, no_fn, _, _] = kind.codes();
    let (no_lib, no_fn) = (kind.code(no_lib), kind.code(no_fn));
    // newest ABI first
    let mut variants: Vec<(i64, HipFn)> = variants
        .into_iter()
        .map(|h| {
            let min = h
                .versions
                .iter()
                .map(|&i| ctx.versions[i])
                .min()
                .unwrap_or(0);
            (min, h)
        })
        .collect();
    variants.sort_by_key(|v| std::cmp::Reverse(v.0));
    let mut bodies = Vec::new();
    let mut first_err = None;
    for (min, h) in &variants {
        match variant_body(ctx, side, kind, f, &params, h) {
            Ok(b) => bodies.push((*min, Some(b))),
            Err(e) => {
                first_err.get_or_insert(format!("`{}`: {e}", h.field));
                bodies.push((*min, None));
            }
        }
    }
    if bodies.iter().all(|b| b.1.is_none()) {
        let e = first_err.unwrap_or_default();
        let e = e.split_once(": ").map_or(e.clone(), |x| x.1.to_string());
        return Ok((None, out(Err(format!("{e} (HIP `{hip_name}`)")))));
    }
    let body = if bodies.len() == 1 {
        bodies.pop().and_then(|b| b.1).context("one body")?
    } else {
        let mut chain = quote!();
        let n = bodies.len();
        for (i, (min, b)) in bodies.into_iter().enumerate() {
            let b = b.unwrap_or_else(|| quote!(#no_fn));
            let min = min as i32;
            chain = if i == 0 {
                quote!(if hip_v >= #min { #b })
            } else if i + 1 == n {
                quote!(#chain else { #b })
            } else {
                quote!(#chain else if hip_v >= #min { #b })
            };
        }
        quote! {
            let hip_v = self.hip_abi_version();
            #chain
        }
    };
    let doc = format!(" `{}` → `{hip_name}`.", f.name);
    let m = quote! {
        #[doc = #doc]
        #[inline]
        unsafe fn #name(&self, #(#sig_params),*) -> #ret_ty {
            let Some(hip_t) = self.native_hip() else { return #no_lib; };
            #body
        }
    };
    let _ = no_lib;
    Ok((Some(m), out(Ok(hip_name))))
}

/// The forwarding body for one HIP ABI (a block evaluating to the CUDA code).
fn variant_body(
    ctx: &mut Ctx<'_>,
    side: &Side<'_>,
    kind: ApiKind,
    f: &CudaFn,
    params: &[(Ident, syn::Type)],
    h: &HipFn,
) -> std::result::Result<TokenStream, String> {
    if h.decl.variadic {
        return Err("HIP function is variadic".into());
    }
    let hip_ret = h.decl.ret.as_ref().and_then(Side::name_of);
    if hip_ret.as_deref() != Some("hipError_t") {
        return Err("HIP function does not return hipError_t".into());
    }
    if h.decl.args.len() != f.decl.args.len() {
        return Err(format!(
            "argument count differs ({} vs {})",
            f.decl.args.len(),
            h.decl.args.len()
        ));
    }
    let [_, no_fn, invalid, unsupported] = kind.codes();
    let mut pre = Vec::new();
    let mut args = Vec::new();
    let mut post = Vec::new();
    for (((pn, _), (cname, ct)), (_, ht)) in params
        .iter()
        .zip(f.decl.args.iter())
        .zip(h.decl.args.iter())
    {
        let conv = ctx.param(side, f, cname, ct, ht)?;
        let tmp = ident(&format!("h_{pn}"));
        let tmp_p = ident(&format!("hp_{pn}"));
        match conv {
            Conv::Pass { cast: false } => args.push(quote!(#pn)),
            Conv::Pass { cast: true } | Conv::Cast => args.push(quote!(#pn as _)),
            Conv::IntToPtr => args.push(quote!(#pn as usize as _)),
            Conv::Stream => {
                args.push(quote!(crate::conv::stream_to_hip(self.platform, #pn as _) as _))
            }
            Conv::Transmute { hip_ty } => {
                pre.push(quote!(let #tmp: #hip_ty = unsafe { ::core::mem::transmute(#pn) };));
                args.push(quote!(#tmp));
            }
            Conv::EnumIn { field, hip_ty } => {
                let fi = ident(&field);
                let (inv, uns) = ENUM_ERRORS
                    .iter()
                    .find(|e| e.0 == field)
                    .map_or((invalid, unsupported), |e| (e.1, e.2));
                let (inv, uns) = (kind.code(inv), kind.code(uns));
                pre.push(quote! {
                    let #tmp: #hip_ty = match crate::conv::enum_arg(self.conv.#fi, #pn) {
                        Ok(v) => v as _,
                        Err(crate::conv::Refusal::NotSupported) => return #uns,
                        Err(_) => return #inv,
                    };
                });
                args.push(quote!(#tmp));
            }
            Conv::EnumOut { field, hip_ty } => {
                let fi = ident(&field);
                // The pointee's CUDA type, qualified for this API.
                let syn::Type::Ptr(cp) = &params
                    .iter()
                    .find(|(n, _)| n == pn)
                    .map(|p| p.1.clone())
                    .ok_or("parameter")?
                else {
                    return Err("enum out-parameter is no pointer".into());
                };
                let cuda_ty = &cp.elem;
                pre.push(quote! {
                    let mut #tmp: #hip_ty = 0 as _;
                    let #tmp_p: *mut #hip_ty = if #pn.is_null() { ::core::ptr::null_mut() } else { &mut #tmp };
                });
                args.push(quote!(#tmp_p));
                post.push(quote! {
                    if hip_r == 0 && !#pn.is_null() {
                        let raw = #tmp as i64;
                        unsafe { *#pn = crate::conv::enum_out::<#cuda_ty>(self.conv.#fi, raw) };
                    }
                });
            }
            Conv::FlagsIn { group, hip_ty } => {
                let g = ident(&group);
                let (inv, uns) = (kind.code(invalid), kind.code(unsupported));
                pre.push(quote! {
                    let #tmp: #hip_ty = match crate::conv::flags_to_hip(self.conv.#g, #pn as u64) {
                        Ok(b) => b as _,
                        Err(crate::conv::Refusal::NotSupported) => return #uns,
                        Err(_) => return #inv,
                    };
                });
                args.push(quote!(#tmp));
            }
            Conv::FlagsOut { group, hip_ty } => {
                let g = ident(&group);
                pre.push(quote! {
                    let mut #tmp: #hip_ty = 0;
                    let #tmp_p: *mut #hip_ty = if #pn.is_null() { ::core::ptr::null_mut() } else { &mut #tmp };
                });
                args.push(quote!(#tmp_p));
                post.push(quote! {
                    if hip_r == 0 && !#pn.is_null() {
                        unsafe { *#pn = crate::conv::flags_to_cuda(self.conv.#g, #tmp as u64) as _ };
                    }
                });
            }
            Conv::Reserved { cast } => {
                let code = kind.code(invalid);
                pre.push(quote!(if #pn != 0 { return #code; }));
                args.push(if cast { quote!(#pn as _) } else { quote!(#pn) });
            }
            Conv::Zero { cast } => {
                let code = kind.code(unsupported);
                pre.push(quote!(if #pn != 0 { return #code; }));
                args.push(if cast { quote!(#pn as _) } else { quote!(#pn) });
            }
        }
    }
    let field = ident(&h.field);
    let no_fn = kind.code(no_fn);
    let tr = match kind {
        ApiKind::Driver => quote!(cu),
        ApiKind::Runtime => quote!(rt),
    };
    Ok(quote! {
        let Some(hip_f) = hip_t.#field else { return #no_fn; };
        #(#pre)*
        let hip_r = unsafe { hip_f(#(#args),*) };
        #(#post)*
        self.#tr(hip_r)
    })
}
