//! x86-64 Linux `size_of`/`align_of` of bindgen-shaped Rust types, for the size assertions of
//! types whose input (cubecl's bindings) carries no layout tests. Checked at generation time
//! against every size bindgen itself reports, and at compile time by the emitted assertions.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;

/// Definitions a layout can refer to: struct, union and type-alias items by name.
pub type Defs<'a> = HashMap<String, &'a syn::Item>;

/// `(size, align)` of a named type.
pub fn of_name(name: &str, defs: &Defs<'_>) -> Result<(u64, u64)> {
    if let Some(p) = primitive(name) {
        return Ok(p);
    }
    let item = defs
        .get(name)
        .with_context(|| format!("layout: unknown type `{name}`"))?;
    match item {
        syn::Item::Type(t) => of_type(&t.ty, defs),
        syn::Item::Struct(s) => {
            let (packed, align_attr) = repr_of(&s.attrs);
            let mut size = 0u64;
            let mut align = 1u64;
            for f in s.fields.iter() {
                let (fs, fa) = of_type(&f.ty, defs).with_context(|| format!("in struct {name}"))?;
                let fa = packed.map_or(fa, |p| fa.min(p));
                size = round_up(size, fa) + fs;
                align = align.max(fa);
            }
            if let Some(a) = align_attr {
                align = align.max(a);
            }
            Ok((round_up(size, align), align))
        }
        syn::Item::Union(u) => {
            let (packed, align_attr) = repr_of(&u.attrs);
            let mut size = 0u64;
            let mut align = 1u64;
            for f in u.fields.named.iter() {
                let (fs, fa) = of_type(&f.ty, defs).with_context(|| format!("in union {name}"))?;
                let fa = packed.map_or(fa, |p| fa.min(p));
                size = size.max(fs);
                align = align.max(fa);
            }
            if let Some(a) = align_attr {
                align = align.max(a);
            }
            Ok((round_up(size, align), align))
        }
        _ => bail!("layout: `{name}` is not a type"),
    }
}

fn round_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

fn repr_of(attrs: &[syn::Attribute]) -> (Option<u64>, Option<u64>) {
    let mut packed = None;
    let mut align = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let s = quote::quote!(#a).to_string().replace(' ', "");
        if let Some(i) = s.find("packed") {
            let rest = &s[i + 6..];
            packed = Some(
                rest.strip_prefix('(')
                    .and_then(|r| r.split(')').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1),
            );
        }
        if let Some(i) = s.find("align(") {
            align = s[i + 6..].split(')').next().and_then(|n| n.parse().ok());
        }
    }
    (packed, align)
}

fn primitive(name: &str) -> Option<(u64, u64)> {
    Some(match name {
        "c_char" | "c_schar" | "c_uchar" | "i8" | "u8" | "bool" => (1, 1),
        "c_short" | "c_ushort" | "i16" | "u16" => (2, 2),
        "c_int" | "c_uint" | "i32" | "u32" | "f32" | "c_float" => (4, 4),
        "c_long" | "c_ulong" | "c_longlong" | "c_ulonglong" | "i64" | "u64" | "f64"
        | "c_double" | "usize" | "isize" => (8, 8),
        "i128" | "u128" => (16, 16),
        _ => return None,
    })
}

/// `(size, align)` of a type expression.
pub fn of_type(t: &syn::Type, defs: &Defs<'_>) -> Result<(u64, u64)> {
    match t {
        syn::Type::Ptr(_) | syn::Type::Reference(_) | syn::Type::BareFn(_) => Ok((8, 8)),
        syn::Type::Array(a) => {
            let (s, al) = of_type(&a.elem, defs)?;
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<u64>()?,
                other => bail!("layout: array length `{}`", quote::quote!(#other)),
            };
            Ok((s * n, al))
        }
        syn::Type::Paren(p) => of_type(&p.elem, defs),
        syn::Type::Tuple(tt) if tt.elems.is_empty() => Ok((0, 1)),
        syn::Type::Path(p) => {
            let seg = p.path.segments.last().context("empty path")?;
            let name = seg.ident.to_string();
            let generic = match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match (name.as_str(), generic) {
                ("Option", Some(inner)) => of_type(inner, defs),
                ("__BindgenBitfieldUnit", Some(inner)) => of_type(inner, defs),
                ("__IncompleteArrayField", Some(inner)) => Ok((0, of_type(inner, defs)?.1)),
                ("PhantomData", _) => Ok((0, 1)),
                _ => of_name(&name, defs),
            }
        }
        other => bail!("layout: unsupported type `{}`", quote::quote!(#other)),
    }
}
