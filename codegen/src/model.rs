//! One `syn`-based reader for every bindgen output: the headers we run bindgen on and the
//! bindings shipped inside cubecl-hip-sys (same bindgen version, same options shape).

use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, HashMap};
use syn::visit_mut::VisitMut;

/// One enumerator of a constified C enum.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The C enumerator name (bindgen's `Tag_` prefix removed).
    pub name: String,
    /// Its value.
    pub value: i64,
    /// The header's doc comment, raw.
    pub doc: String,
}

/// A C enum as bindgen constified it: an integer type alias plus one const per enumerator.
#[derive(Debug, Clone)]
pub struct EnumDef {
    /// bindgen's name for the enum (the tag, or the typedef for `typedef enum {..} T`).
    pub tag: String,
    /// The integer type bindgen gives, e.g. `c_uint`.
    pub repr: String,
    /// The enum's doc comment, raw.
    pub doc: String,
    /// Enumerators in header order.
    pub variants: Vec<Variant>,
    /// Typedef names bindgen emitted as `pub use self::Tag as Alias;`.
    pub aliases: Vec<String>,
}

impl EnumDef {
    /// The name users write: the (first) typedef when there is one, else the tag.
    pub fn user_name(&self) -> &str {
        self.aliases
            .first()
            .map(String::as_str)
            .unwrap_or(&self.tag)
    }
}

/// One function declared in an `extern "C"` block.
#[derive(Debug, Clone)]
pub struct FnDecl {
    /// The C symbol.
    pub name: String,
    /// The doc comment, raw.
    pub doc: String,
    /// Parameters: (name, type), types already normalised to `core::ffi` names.
    pub args: Vec<(String, syn::Type)>,
    /// Return type, if not `()`.
    pub ret: Option<syn::Type>,
    /// Whether the C function is variadic.
    pub variadic: bool,
}

/// An item of a bindgen file, in file order, with enums and functions lifted out.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a handful of items per file; boxing buys nothing
pub enum Item {
    /// An enum; the key into [`Bindings::enums`].
    Enum(String),
    /// Any other item, normalised (`::std::os::raw::c_int` → `c_int`, ...).
    Plain(syn::Item),
}

/// Everything read from one bindgen output.
#[derive(Debug, Clone, Default)]
pub struct Bindings {
    /// Items in file order (enum consts, functions and layout tests removed).
    pub items: Vec<Item>,
    /// Enums by tag.
    pub enums: BTreeMap<String, EnumDef>,
    /// Functions in file order.
    pub functions: Vec<FnDecl>,
    /// `size_of` of structs/unions from bindgen's layout tests (absent for cubecl inputs).
    pub sizes: HashMap<String, u64>,
}

/// Rewrites `::std::os::raw::c_int` to `c_int`, `::std::option::Option` to `Option`,
/// `::std::mem::x` to `::core::mem::x`, so output only depends on `core`.
pub struct CoreFfi;

impl VisitMut for CoreFfi {
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let strs: Vec<&str> = segs.iter().map(String::as_str).collect();
        match strs.as_slice() {
            ["std", "os", "raw", _] | ["std", "option", _] | ["core", "ffi", _] => {
                let last = p.segments.last().cloned().expect("nonempty");
                p.leading_colon = None;
                p.segments = std::iter::once(last).collect();
            }
            ["std", ..] => {
                if let Some(first) = p.segments.first_mut() {
                    first.ident = syn::Ident::new("core", first.ident.span());
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_path_mut(self, p);
    }
}

/// The joined `#[doc]` text of attributes.
pub fn doc_of(attrs: &[syn::Attribute]) -> String {
    let mut out = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                out.push(s.value());
            }
        }
    }
    out.join("\n")
}

/// Doc text whitespace-collapsed to one paragraph (Doxygen `///<` markers removed).
pub fn collapse_doc(doc: &str) -> String {
    doc.lines()
        .map(|l| l.trim().trim_start_matches('<').trim())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Doc text as rustdoc-safe lines: leading whitespace trimmed (no accidental indented code
/// blocks, hence no doctests), Doxygen `///<` markers removed, blank runs collapsed.
pub fn doc_lines(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in doc.lines() {
        let t = l.trim().trim_start_matches('<').trim();
        let t = t.replace("```", "'''");
        if t.is_empty() && out.last().is_none_or(|p| p.is_empty()) {
            continue;
        }
        out.push(t);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// `#[doc = " line"]` attributes for [`doc_lines`].
pub fn doc_attrs(doc: &str) -> Vec<syn::Attribute> {
    doc_lines(doc)
        .into_iter()
        .map(|l| {
            let s = if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            };
            syn::parse_quote!(#[doc = #s])
        })
        .collect()
}

/// Replaces an item's doc attributes with rustdoc-safe ones.
fn clean_docs(attrs: &mut Vec<syn::Attribute>) {
    let doc = doc_of(attrs);
    let mut rest: Vec<syn::Attribute> = attrs
        .drain(..)
        .filter(|a| !a.path().is_ident("doc"))
        .collect();
    let mut new = doc_attrs(&doc);
    new.append(&mut rest);
    *attrs = new;
}

/// Cleans docs on an item and on its fields.
pub fn clean_item_docs(item: &mut syn::Item) {
    match item {
        syn::Item::Struct(s) => {
            clean_docs(&mut s.attrs);
            for f in s.fields.iter_mut() {
                clean_docs(&mut f.attrs);
            }
        }
        syn::Item::Union(u) => {
            clean_docs(&mut u.attrs);
            for f in u.fields.named.iter_mut() {
                clean_docs(&mut f.attrs);
            }
        }
        syn::Item::Type(t) => clean_docs(&mut t.attrs),
        syn::Item::Const(c) => clean_docs(&mut c.attrs),
        _ => {}
    }
}

fn int_value(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i
            .base10_parse::<i128>()
            .ok()
            .and_then(|v| i64::try_from(v).ok()),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => int_value(expr).map(|v| -v),
        syn::Expr::Paren(p) => int_value(&p.expr),
        _ => None,
    }
}

/// The single identifier of a path type (`c_uint`, `CUresult`), if it is one.
pub fn type_ident(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    }
}

const INT_TYPES: &[&str] = &[
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
    "c_short",
    "c_ushort",
    "c_char",
    "c_schar",
    "c_uchar",
    "i8",
    "u8",
    "i16",
    "u16",
    "i32",
    "u32",
    "i64",
    "u64",
];

/// Reads bindgen output text into [`Bindings`].
pub fn read(text: &str, what: &str) -> Result<Bindings> {
    let size_re = regex::Regex::new(r#""Size of (\w+)"\s*\]\s*\[[^\]]*?-\s*(\d+)usize"#)?;
    let mut sizes = HashMap::new();
    for c in size_re.captures_iter(text) {
        sizes.insert(c[1].to_string(), c[2].parse()?);
    }
    let mut file: syn::File =
        syn::parse_file(text).with_context(|| format!("parsing bindgen output for {what}"))?;
    CoreFfi.visit_file_mut(&mut file);

    // Pass 1: integer type aliases, and consts typed by them.
    let mut int_aliases: HashMap<String, (String, String)> = HashMap::new();
    for it in &file.items {
        if let syn::Item::Type(t) = it {
            if let Some(id) = type_ident(&t.ty) {
                if INT_TYPES.contains(&id.as_str()) {
                    int_aliases.insert(t.ident.to_string(), (id, doc_of(&t.attrs)));
                }
            }
        }
    }
    let mut enums: BTreeMap<String, EnumDef> = BTreeMap::new();
    for it in &file.items {
        let syn::Item::Const(c) = it else { continue };
        let Some(ty) = type_ident(&c.ty) else {
            continue;
        };
        let Some((repr, doc)) = int_aliases.get(&ty) else {
            continue;
        };
        let name = c.ident.to_string();
        let Some(value) = int_value(&c.expr) else {
            bail!("{what}: enumerator {name} has a non-literal value");
        };
        let e = enums.entry(ty.clone()).or_insert_with(|| EnumDef {
            tag: ty.clone(),
            repr: repr.clone(),
            doc: doc.clone(),
            variants: Vec::new(),
            aliases: Vec::new(),
        });
        let short = name
            .strip_prefix(&format!("{ty}_"))
            .unwrap_or(&name)
            .to_string();
        e.variants.push(Variant {
            name: short,
            value,
            doc: doc_of(&c.attrs),
        });
    }

    // Pass 2: everything else, in order.
    let mut items = Vec::new();
    let mut functions = Vec::new();
    for it in file.items {
        match it {
            syn::Item::Const(c) if c.ident == "_" => {}
            syn::Item::Const(c) if type_ident(&c.ty).is_some_and(|t| enums.contains_key(&t)) => {}
            syn::Item::Type(t) if enums.contains_key(&t.ident.to_string()) => {
                items.push(Item::Enum(t.ident.to_string()));
            }
            syn::Item::Use(u) => {
                // `pub use self::Tag as Alias;`
                let mut handled = false;
                if let syn::UseTree::Path(p) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*p.tree {
                        let tag = r.ident.to_string();
                        if let Some(e) = enums.get_mut(&tag) {
                            e.aliases.push(r.rename.to_string());
                            handled = true;
                        } else {
                            let (a, b) = (&r.ident, &r.rename);
                            let vis = &u.vis;
                            items.push(Item::Plain(syn::parse_quote!(#vis type #b = #a;)));
                            handled = true;
                        }
                    }
                }
                if !handled {
                    bail!("{what}: unexpected use item");
                }
            }
            syn::Item::ForeignMod(m) => {
                for fi in m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        functions.push(fn_decl(&f.sig, &f.attrs)?);
                    }
                }
            }
            mut other => {
                clean_item_docs(&mut other);
                items.push(Item::Plain(other));
            }
        }
    }
    Ok(Bindings {
        items,
        enums,
        functions,
        sizes,
    })
}

fn fn_decl(sig: &syn::Signature, attrs: &[syn::Attribute]) -> Result<FnDecl> {
    let mut args = Vec::new();
    for (i, a) in sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(pt) = a else {
            bail!("receiver in extern fn {}", sig.ident)
        };
        let name = match &*pt.pat {
            syn::Pat::Ident(pi) => pi.ident.to_string(),
            _ => format!("arg{i}"),
        };
        args.push((name, (*pt.ty).clone()));
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
    };
    Ok(FnDecl {
        name: sig.ident.to_string(),
        doc: doc_of(attrs),
        args,
        ret,
        variadic: sig.variadic.is_some(),
    })
}
