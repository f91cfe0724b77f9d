//! The HIP side: every supported HIP version read into one model, the union of their types
//! (one emitted type per distinct layout) and functions (one field per distinct ABI), and the
//! emission of `backends/hip/src/generated/{types,table}.rs`.

use crate::emit::{ffi_use, int_lit};
use crate::emit_cuda::brief;
use crate::layout;
use crate::model::{doc_attrs, Bindings, FnDecl, Item};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span};
use quote::quote;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// One supported HIP version.
#[derive(Debug, Clone)]
pub struct HipVer {
    /// `HIP_VERSION` (major * 10_000_000 + minor * 100_000 + patch).
    pub hip_version: i64,
    /// Where it came from, e.g. `Debian libamdhip64-dev headers` or `cubecl bindings_60850.rs`.
    pub source: String,
    /// The bindings.
    pub b: Bindings,
}

impl HipVer {
    /// `major.minor.patch` from `HIP_VERSION`.
    pub fn label(&self) -> String {
        let v = self.hip_version;
        format!("{}.{}.{}", v / 10_000_000, (v / 100_000) % 100, v % 100_000)
    }
    /// `__hip<major>_<minor>`.
    pub fn suffix(&self) -> String {
        let v = self.hip_version;
        format!("__hip{}_{}", v / 10_000_000, (v / 100_000) % 100)
    }
    /// Integer constants (`#define`s and enumerators) with their values.
    pub fn int_consts(&self) -> BTreeMap<String, i64> {
        let mut m = BTreeMap::new();
        for e in self.b.enums.values() {
            for v in &e.variants {
                m.insert(v.name.clone(), v.value);
            }
        }
        for it in &self.b.items {
            if let Item::Plain(syn::Item::Const(c)) = it {
                if let Some(v) = int_expr(&c.expr) {
                    m.insert(c.ident.to_string(), v);
                }
            }
        }
        m
    }
    /// The `HIP_VERSION` const of the bindings.
    pub fn declared_version(b: &Bindings) -> Option<i64> {
        b.items.iter().find_map(|it| match it {
            Item::Plain(syn::Item::Const(c)) if c.ident == "HIP_VERSION" => int_expr(&c.expr),
            _ => None,
        })
    }
}

fn int_expr(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>().ok(),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => int_expr(&u.expr).map(|v| -v),
        _ => None,
    }
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// A type definition of one version: the item plus `impl` blocks on it (bitfield accessors).
#[derive(Clone)]
struct Def {
    item: syn::Item,
    impls: Vec<syn::Item>,
}

/// Definitions of one version by name; enums become `pub type Tag = repr;` and typedef aliases.
fn defs_of(v: &HipVer) -> BTreeMap<String, Def> {
    let mut m: BTreeMap<String, Def> = BTreeMap::new();
    let mut impls: Vec<syn::Item> = Vec::new();
    for it in &v.b.items {
        match it {
            Item::Enum(tag) => {
                let e = &v.b.enums[tag];
                let t = ident(tag);
                let r = ident(&e.repr);
                let d = doc_attrs(&e.doc);
                m.insert(
                    tag.clone(),
                    Def {
                        item: syn::parse_quote!(#(#d)* pub type #t = #r;),
                        impls: vec![],
                    },
                );
                for a in &e.aliases {
                    let ai = ident(a);
                    m.insert(
                        a.clone(),
                        Def {
                            item: syn::parse_quote!(pub type #ai = #t;),
                            impls: vec![],
                        },
                    );
                }
            }
            Item::Plain(p) => {
                let name = match p {
                    syn::Item::Struct(s) => s.ident.to_string(),
                    syn::Item::Union(u) => u.ident.to_string(),
                    syn::Item::Type(t) => t.ident.to_string(),
                    syn::Item::Impl(_) => {
                        impls.push(p.clone());
                        continue;
                    }
                    _ => continue,
                };
                m.insert(
                    name,
                    Def {
                        item: p.clone(),
                        impls: vec![],
                    },
                );
            }
        }
    }
    for i in impls {
        if let syn::Item::Impl(ii) = &i {
            if let syn::Type::Path(tp) = &*ii.self_ty {
                if let Some(seg) = tp.path.segments.last() {
                    if let Some(d) = m.get_mut(&seg.ident.to_string()) {
                        d.impls.push(i.clone());
                    }
                }
            }
        }
    }
    m
}

/// Identifiers a type expression, item or signature refers to.
#[derive(Default)]
struct Refs(BTreeSet<String>);
impl<'ast> Visit<'ast> for Refs {
    fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
        self.0.insert(s.ident.to_string());
        syn::visit::visit_path_segment(self, s);
    }
}

fn item_refs(item: &syn::Item) -> BTreeSet<String> {
    let mut r = Refs::default();
    match item {
        syn::Item::Struct(s) => s.fields.iter().for_each(|f| r.visit_type(&f.ty)),
        syn::Item::Union(u) => u.fields.named.iter().for_each(|f| r.visit_type(&f.ty)),
        syn::Item::Type(t) => r.visit_type(&t.ty),
        _ => {}
    }
    r.0
}

/// The item without docs and derives (only `repr` kept): what makes two definitions equal.
fn strip_attrs(item: &syn::Item) -> String {
    let mut i = item.clone();
    let keep = |attrs: &mut Vec<syn::Attribute>| attrs.retain(|a| a.path().is_ident("repr"));
    match &mut i {
        syn::Item::Struct(s) => {
            keep(&mut s.attrs);
            s.fields.iter_mut().for_each(|f| f.attrs.clear());
        }
        syn::Item::Union(u) => {
            keep(&mut u.attrs);
            u.fields.named.iter_mut().for_each(|f| f.attrs.clear());
        }
        syn::Item::Type(t) => keep(&mut t.attrs),
        _ => {}
    }
    quote!(#i).to_string()
}

/// Whether an item is an opaque handle target (`struct X { _unused: [u8; 0] }`).
fn is_opaque(item: &syn::Item) -> bool {
    match item {
        syn::Item::Struct(s) => {
            s.fields.len() == 1
                && s.fields
                    .iter()
                    .all(|f| f.ident.as_ref().is_some_and(|i| i == "_unused"))
        }
        _ => false,
    }
}

/// Deep identity of a definition: its own text plus the identities of what it refers to.
/// Names in `opaque` (opaque in some version, i.e. private to the runtime) compare by name only.
fn deep_key(
    name: &str,
    defs: &BTreeMap<String, Def>,
    opaque: &BTreeSet<String>,
    memo: &mut HashMap<String, u64>,
    stack: &mut Vec<String>,
) -> u64 {
    if let Some(k) = memo.get(name) {
        return *k;
    }
    let mut h = DefaultHasher::new();
    name.hash(&mut h);
    if opaque.contains(name) {
        return h.finish();
    }
    let Some(d) = defs.get(name) else {
        return h.finish();
    };
    if stack.iter().any(|s| s == name) {
        "@cycle".hash(&mut h);
        return h.finish();
    }
    stack.push(name.to_string());
    strip_attrs(&d.item).hash(&mut h);
    for r in item_refs(&d.item) {
        if r != name && defs.contains_key(&r) {
            deep_key(&r, defs, opaque, memo, stack).hash(&mut h);
        }
    }
    stack.pop();
    let k = h.finish();
    memo.insert(name.to_string(), k);
    k
}

/// Renames identifiers by a map (type variants).
struct Rename<'a>(&'a HashMap<String, String>);
impl VisitMut for Rename<'_> {
    fn visit_path_segment_mut(&mut self, s: &mut syn::PathSegment) {
        if let Some(n) = self.0.get(&s.ident.to_string()) {
            s.ident = ident(n);
        }
        syn::visit_mut::visit_path_segment_mut(self, s);
    }
    fn visit_item_struct_mut(&mut self, s: &mut syn::ItemStruct) {
        if let Some(n) = self.0.get(&s.ident.to_string()) {
            s.ident = ident(n);
        }
        syn::visit_mut::visit_item_struct_mut(self, s);
    }
    fn visit_item_union_mut(&mut self, s: &mut syn::ItemUnion) {
        if let Some(n) = self.0.get(&s.ident.to_string()) {
            s.ident = ident(n);
        }
        syn::visit_mut::visit_item_union_mut(self, s);
    }
    fn visit_item_type_mut(&mut self, s: &mut syn::ItemType) {
        if let Some(n) = self.0.get(&s.ident.to_string()) {
            s.ident = ident(n);
        }
        syn::visit_mut::visit_item_type_mut(self, s);
    }
}

/// The ABI identity of a type in one version: aliases expanded (an enum is its integer),
/// `*const`/`*mut` alike, structs and unions by name plus deep layout key, opaque ones by name.
fn canon(
    t: &syn::Type,
    defs: &BTreeMap<String, Def>,
    opaque: &BTreeSet<String>,
    memo: &mut HashMap<String, u64>,
) -> String {
    match t {
        syn::Type::Ptr(p) => format!("*{}", canon(&p.elem, defs, opaque, memo)),
        syn::Type::Array(a) => {
            let len = &a.len;
            format!("[{};{}]", canon(&a.elem, defs, opaque, memo), quote!(#len))
        }
        syn::Type::Paren(p) => canon(&p.elem, defs, opaque, memo),
        syn::Type::BareFn(f) => {
            let args: Vec<String> = f
                .inputs
                .iter()
                .map(|a| canon(&a.ty, defs, opaque, memo))
                .collect();
            let ret = match &f.output {
                syn::ReturnType::Default => String::new(),
                syn::ReturnType::Type(_, t) => canon(t, defs, opaque, memo),
            };
            format!("fn({})->{ret}{}", args.join(","), f.variadic.is_some())
        }
        syn::Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return String::new();
            };
            let name = seg.ident.to_string();
            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                let inner: Vec<String> = a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(canon(t, defs, opaque, memo)),
                        _ => None,
                    })
                    .collect();
                return format!("{name}<{}>", inner.join(","));
            }
            match defs.get(&name).map(|d| &d.item) {
                Some(syn::Item::Type(ta)) => canon(&ta.ty, defs, opaque, memo),
                Some(_) => format!(
                    "{name}#{}",
                    deep_key(&name, defs, opaque, memo, &mut Vec::new())
                ),
                None => name,
            }
        }
        other => quote!(#other).to_string(),
    }
}

/// Describes a set of versions for docs.
pub fn describe_versions(vs: &[&HipVer], all: usize) -> String {
    if vs.len() == all {
        return "every supported HIP version".to_string();
    }
    let l: Vec<String> = vs.iter().map(|v| v.label()).collect();
    format!("HIP {}", l.join(", "))
}

/// One function field of a HIP table.
#[derive(Debug, Clone)]
pub struct HipFn {
    /// The field name (the symbol, or the symbol plus a version suffix for an older ABI).
    pub field: String,
    /// The exact symbol to resolve.
    pub symbol: String,
    /// The declaration (types renamed to the emitted variants).
    pub decl: FnDecl,
    /// Indices (into the version list) of the versions declaring this ABI.
    pub versions: Vec<usize>,
}

/// The union of every HIP version.
pub struct HipUnion {
    /// Versions, ascending.
    pub versions: Vec<HipVer>,
    /// Emitted type items (already renamed), by emitted name.
    pub types: BTreeMap<String, Vec<syn::Item>>,
    /// Emitted consts (identical in every version).
    pub consts: Vec<syn::Item>,
    /// Table fields, sorted by field name.
    pub functions: Vec<HipFn>,
    /// Same symbol, different ABI across versions: (symbol, [(field, versions text)]).
    pub conflicts: Vec<(String, Vec<(String, String)>)>,
}

/// Builds the union of all versions.
pub fn union(versions: Vec<HipVer>) -> Result<HipUnion> {
    let n = versions.len();
    let defs: Vec<BTreeMap<String, Def>> = versions.iter().map(defs_of).collect();

    // Closure of the types that function signatures need, per version.
    let mut needed: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
    for (vi, v) in versions.iter().enumerate() {
        let mut work: Vec<String> = Vec::new();
        for f in v.b.functions.iter().filter(|f| f.name.starts_with("hip")) {
            let mut r = Refs::default();
            f.args.iter().for_each(|(_, t)| r.visit_type(t));
            if let Some(t) = &f.ret {
                r.visit_type(t);
            }
            work.extend(r.0);
        }
        while let Some(w) = work.pop() {
            let Some(d) = defs[vi].get(&w) else { continue };
            if !needed[vi].insert(w.clone()) {
                continue;
            }
            work.extend(item_refs(&d.item));
            for i in &d.impls {
                let mut r = Refs::default();
                if let syn::Item::Impl(ii) = i {
                    r.visit_type(&ii.self_ty);
                }
                work.extend(r.0);
            }
        }
    }

    // Variants per name: group versions by deep key; newest group keeps the plain name.
    let mut rename: Vec<HashMap<String, String>> = vec![HashMap::new(); n];
    // emitted name -> (C name, representative version, versions, number of variants of the C name)
    let mut reps: BTreeMap<String, (String, usize, Vec<usize>, usize)> = BTreeMap::new();
    let all_names: BTreeSet<String> = needed.iter().flatten().cloned().collect();
    let mut memos: Vec<HashMap<String, u64>> = vec![HashMap::new(); n];
    let opaque: BTreeSet<String> = defs
        .iter()
        .flat_map(|d| {
            d.iter()
                .filter(|(_, d)| is_opaque(&d.item))
                .map(|(k, _)| k.clone())
        })
        .collect();
    for name in &all_names {
        let mut groups: Vec<(u64, Vec<usize>)> = Vec::new();
        for vi in (0..n).rev() {
            if !needed[vi].contains(name) {
                continue;
            }
            let k = deep_key(name, &defs[vi], &opaque, &mut memos[vi], &mut Vec::new());
            match groups.iter_mut().find(|(gk, _)| *gk == k) {
                Some(g) => g.1.push(vi),
                None => groups.push((k, vec![vi])),
            }
        }
        for (gi, (_, vis)) in groups.iter().enumerate() {
            let oldest = *vis.iter().min().context("empty group")?;
            let emitted = if gi == 0 {
                name.clone()
            } else {
                let mut s = format!("{name}{}", versions[oldest].suffix());
                if reps.contains_key(&s) {
                    s = format!("{name}__hip{}", versions[oldest].hip_version);
                }
                s
            };
            for &vi in vis {
                rename[vi].insert(name.clone(), emitted.clone());
            }
            let mut sorted = vis.clone();
            sorted.sort_unstable();
            reps.insert(
                emitted,
                (
                    name.clone(),
                    *vis.iter().max().context("empty group")?,
                    sorted,
                    groups.len(),
                ),
            );
        }
    }

    // Emit each variant from its newest version, renamed; size-assert structs and unions.
    let mut types: BTreeMap<String, Vec<syn::Item>> = BTreeMap::new();
    for (emitted, (orig, rep, vis, ngroups)) in &reps {
        let orig = orig.clone();
        // An opaque-in-some-version type is emitted opaque (its layout is the runtime's business).
        let rep = if opaque.contains(&orig) {
            vis.iter()
                .rev()
                .find(|&&vi| is_opaque(&defs[vi][&orig].item))
                .unwrap_or(rep)
        } else {
            rep
        };
        let d = &defs[*rep][&orig];
        let mut item = d.item.clone();
        Rename(&rename[*rep]).visit_item_mut(&mut item);
        if *ngroups > 1 {
            let vv: Vec<&HipVer> = vis.iter().map(|&i| &versions[i]).collect();
            let note = format!(" Layout of C `{orig}` in {} (it differs between HIP versions; see the other `{orig}*` types).", describe_versions(&vv, n));
            let note_attr: syn::Attribute = syn::parse_quote!(#[doc = #note]);
            match &mut item {
                syn::Item::Struct(s) => s.attrs.insert(0, note_attr),
                syn::Item::Union(u) => u.attrs.insert(0, note_attr),
                syn::Item::Type(t) => t.attrs.insert(0, note_attr),
                _ => {}
            }
        }
        let mut out = vec![item.clone()];
        for i in &d.impls {
            let mut i = i.clone();
            Rename(&rename[*rep]).visit_item_mut(&mut i);
            out.push(i);
        }
        if matches!(item, syn::Item::Struct(_) | syn::Item::Union(_))
            && !orig.starts_with("__Bindgen")
            && !opaque.contains(&orig)
        {
            let ldefs: layout::Defs<'_> = defs[*rep]
                .iter()
                .map(|(k, v)| (k.clone(), &v.item))
                .collect();
            let (size, _) = layout::of_name(&orig, &ldefs)?;
            for &vi in vis {
                if let Some(&bs) = versions[vi].b.sizes.get(&orig) {
                    if bs != size {
                        bail!(
                            "layout of {orig}: computed {size}, bindgen says {bs} (HIP {})",
                            versions[vi].label()
                        );
                    }
                }
            }
            let t = ident(emitted);
            let size = size as usize;
            out.push(syn::parse_quote!(
                const _: () = assert!(::core::mem::size_of::<#t>() == #size);
            ));
        }
        types.insert(emitted.clone(), out);
    }

    // Integer constants identical in every version whose type is emitted or primitive.
    let mut consts = Vec::new();
    let per: Vec<BTreeMap<String, i64>> = versions.iter().map(HipVer::int_consts).collect();
    let newest = &versions[n - 1];
    for (name, val) in &per[n - 1] {
        if name.starts_with("__") || !per.iter().all(|m| m.get(name) == Some(val)) {
            continue;
        }
        let ty: Option<String> = newest
            .b
            .enums
            .values()
            .find(|e| e.variants.iter().any(|v| &v.name == name))
            .map(|e| e.tag.clone())
            .or_else(|| {
                newest.b.items.iter().find_map(|it| match it {
                    Item::Plain(syn::Item::Const(c)) if c.ident == name => {
                        crate::model::type_ident(&c.ty)
                    }
                    _ => None,
                })
            });
        let Some(ty) = ty else { continue };
        let prim = matches!(
            ty.as_str(),
            "u32" | "i32" | "u64" | "i64" | "c_int" | "c_uint"
        );
        if !prim && !types.contains_key(&ty) {
            continue;
        }
        if rename.iter().any(|r| r.get(&ty).is_some_and(|e| e != &ty)) {
            continue;
        }
        let (ni, ti, vl) = (ident(name), ident(&ty), int_lit(*val));
        consts.push(syn::parse_quote!(pub const #ni: #ti = #vl;));
    }

    // Functions: one field per distinct ABI of each symbol.
    let mut by_sym: BTreeMap<String, Vec<(u64, FnDecl, Vec<usize>)>> = BTreeMap::new();
    for vi in (0..n).rev() {
        for f in versions[vi]
            .b
            .functions
            .iter()
            .filter(|f| f.name.starts_with("hip"))
        {
            let mut d = f.clone();
            for (_, t) in d.args.iter_mut() {
                Rename(&rename[vi]).visit_type_mut(t);
            }
            if let Some(t) = d.ret.as_mut() {
                Rename(&rename[vi]).visit_type_mut(t);
            }
            let key_args: Vec<String> = f
                .args
                .iter()
                .map(|(_, t)| canon(t, &defs[vi], &opaque, &mut memos[vi]))
                .collect();
            let ret = f
                .ret
                .as_ref()
                .map(|t| canon(t, &defs[vi], &opaque, &mut memos[vi]));
            let key_text = format!("{} -> {:?} {}", key_args.join(","), ret, f.variadic);
            let mut h = DefaultHasher::new();
            key_text.hash(&mut h);
            let k = h.finish();
            let e = by_sym.entry(f.name.clone()).or_default();
            match e.iter_mut().find(|(gk, _, _)| *gk == k) {
                Some(g) => g.2.push(vi),
                None => e.push((k, d, vec![vi])),
            }
        }
    }
    let mut functions = Vec::new();
    let mut conflicts = Vec::new();
    for (sym, groups) in by_sym {
        let mut cf = Vec::new();
        for (gi, (_, decl, vis)) in groups.iter().enumerate() {
            let mut vis = vis.clone();
            vis.sort_unstable();
            let field = if gi == 0 {
                sym.clone()
            } else {
                format!("{sym}{}", versions[vis[0]].suffix())
            };
            let vv: Vec<&HipVer> = vis.iter().map(|&i| &versions[i]).collect();
            cf.push((field.clone(), describe_versions(&vv, n)));
            functions.push(HipFn {
                field,
                symbol: sym.clone(),
                decl: decl.clone(),
                versions: vis,
            });
        }
        if cf.len() > 1 {
            conflicts.push((sym, cf));
        }
    }
    functions.sort_by(|a, b| a.field.cmp(&b.field));
    Ok(HipUnion {
        versions,
        types,
        consts,
        functions,
        conflicts,
    })
}

/// Renders `backends/hip/src/generated/types.rs`.
pub fn types_module(u: &HipUnion, inputs: &str) -> Result<String> {
    let mut items: Vec<syn::Item> = Vec::new();
    for v in u.types.values() {
        items.extend(v.iter().cloned());
    }
    items.extend(u.consts.iter().cloned());
    let text: String = items.iter().map(|i| quote!(#i).to_string()).collect();
    if let Some(us) = ffi_use(&text) {
        items.insert(0, us);
    }
    let vs: Vec<String> = u
        .versions
        .iter()
        .map(|v| format!("{} ({})", v.label(), v.source))
        .collect();
    crate::emit::render(
        inputs,
        &format!(
            "HIP types referenced by HIP function signatures, across every supported HIP version:\n{}.\n\nEnums are plain integer aliases (their values differ between versions: use the `conv`\ntables). A type whose layout differs between versions is emitted once per layout; the\nnewest keeps the C name, older ones carry a `__hip<major>_<minor>` suffix. Constants are\nthose with the same value in every version.",
            vs.join(",\n")
        ),
        &items,
    )
}

fn table_struct(
    u: &HipUnion,
    struct_name: &str,
    list_name: &str,
    fns: &[&HipFn],
    what: &str,
) -> Vec<syn::Item> {
    let n = u.versions.len();
    let sn = ident(struct_name);
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    for f in fns {
        let fi = ident(&f.field);
        let ty = crate::emit_cuda::fn_ptr_type(&f.decl);
        let vv: Vec<&HipVer> = f.versions.iter().map(|&i| &u.versions[i]).collect();
        let mut d = format!(" `{}`, declared by {}", f.symbol, describe_versions(&vv, n));
        if f.field != f.symbol {
            d.push_str(&format!(
                ". An older ABI of the symbol: resolve it only when the loaded runtime is one of those versions; newer versions use field `{}`",
                f.symbol
            ));
        }
        let b = brief(&f.decl.doc);
        if !b.is_empty() {
            d.push_str(": ");
            d.push_str(&b);
        }
        let lit = syn::LitCStr::new(
            &std::ffi::CString::new(f.symbol.clone()).expect("symbol has no NUL"),
            Span::call_site(),
        );
        fields.push(quote!(#[doc = #d] pub #fi: #ty));
        inits.push(
            quote!(#fi: unsafe { ::core::mem::transmute::<*mut c_void, #ty>(resolve(#lit)) }),
        );
        names.push(fi);
    }
    let count = fns.len();
    let mut syms: Vec<&str> = fns.iter().map(|f| f.symbol.as_str()).collect();
    syms.sort_unstable();
    syms.dedup();
    let ln = ident(list_name);
    let sdoc = format!(" The {what} entry points of every supported HIP version, one `Option<unsafe extern \"C\" fn>` per distinct ABI (`None`: not provided by the loaded library).");
    let ldoc = format!(" Every symbol [`{struct_name}`] resolves, sorted.");
    vec![
        syn::parse_quote!(#[doc = #ldoc] pub static #ln: &[&str] = &[#(#syms),*];),
        syn::parse_quote! {
            #[doc = #sdoc]
            #[derive(Clone, Copy)]
            pub struct #sn { #(#fields),* }
        },
        syn::parse_quote! {
            impl #sn {
                /// Resolves every entry point by its exact symbol name; a null pointer leaves the
                /// field `None`.
                ///
                /// # Safety
                /// `resolve` must return null or a pointer to a function with exactly the ABI of
                /// that symbol in the loaded HIP version. Fields for other versions' ABIs of the
                /// same symbol are resolved too; the caller must only call the field matching
                /// the loaded runtime's version (see each field's doc).
                pub unsafe fn load(mut resolve: impl FnMut(&'static ::core::ffi::CStr) -> *mut c_void) -> Self {
                    Self { #(#inits),* }
                }
                /// How many fields resolved.
                pub fn loaded_count(&self) -> usize {
                    [#(self.#names.is_some()),*].iter().filter(|b| **b).count()
                }
            }
        },
        syn::parse_quote! {
            impl ::core::fmt::Debug for #sn {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#struct_name)
                        .field("loaded", &self.loaded_count())
                        .field("of", &#count)
                        .finish()
                }
            }
        },
    ]
}

/// Renders `backends/hip/src/generated/table.rs`.
pub fn table_module(u: &HipUnion, inputs: &str) -> Result<String> {
    let rtc: Vec<&HipFn> = u
        .functions
        .iter()
        .filter(|f| f.symbol.starts_with("hiprtc"))
        .collect();
    let hip: Vec<&HipFn> = u
        .functions
        .iter()
        .filter(|f| !f.symbol.starts_with("hiprtc"))
        .collect();
    let mut items: Vec<syn::Item> = vec![syn::parse_quote!(
        use super::types::*;
    )];
    items.extend(table_struct(
        u,
        "HipTable",
        "HIP_FUNCTIONS",
        &hip,
        "HIP runtime",
    ));
    items.extend(table_struct(
        u,
        "HiprtcTable",
        "HIPRTC_FUNCTIONS",
        &rtc,
        "hipRTC",
    ));
    let text: String = items
        .iter()
        .map(|i| quote!(#i).to_string())
        .collect::<String>()
        + " c_void";
    if let Some(us) = ffi_use(&text) {
        items.insert(0, us);
    }
    let mut doc = String::from("Function-pointer tables for the HIP runtime and hipRTC: the union of every supported HIP\nversion's functions.");
    if !u.conflicts.is_empty() {
        doc.push_str("\n\nSymbols whose ABI differs between versions (one field per ABI):");
        for (s, cf) in &u.conflicts {
            let l: Vec<String> = cf.iter().map(|(f, v)| format!("`{f}` ({v})")).collect();
            doc.push_str(&format!("\n- `{s}`: {}", l.join("; ")));
        }
    }
    crate::emit::render(inputs, &doc, &items)
}
