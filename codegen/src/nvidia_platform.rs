//! Tables for HIP's NVIDIA platform: the HIP 5.2.3 headers' `hip/nvidia_detail/*.h` compiled over
//! CUDA (see `ci/hip-nvidia/README.md`). There many HIP names are CUDA's: `#define hipX cudaY`,
//! `#define HIP_X CU_Y`, `typedef enum cudaY hipX;`, so hipX's value is CUDA's value of Y, not
//! AMD's. A few HIP enums are redeclared there with other values (`hipMemoryAdvise` counts from 0
//! where AMD's starts at 1), and the ones declared before the platform split of
//! `hip_runtime_api.h` (`hipError_t`, `hipDeviceAttribute_t`, ...) keep HIP's own values: that
//! library converts them itself.
//!
//! The 5.2.3 (AMD) maps are rebuilt with the NVIDIA values substituted:
//! - every HIP name `#define`d to an integer or to a CUDA constant known to the CUDA model
//!   (driver and runtime enumerators and integer `#define`s) takes that value, in enum maps
//!   (pairs, HIP-only) and flag groups alike;
//! - a HIP enum whose type is aliased to a CUDA enum or redeclared there is *replaced* on that
//!   platform: its AMD enumerators that the NVIDIA headers do not define do not exist there and
//!   are dropped; a HIP-only enumerator `#define`d to a CUDA enumerator of the paired CUDA type
//!   (or one whose name agrees by the name rules) becomes a pair; and where the HIP type *is* the
//!   paired CUDA enum, every other CUDA value passes through unchanged;
//! - every other HIP enum keeps its AMD 5.2.3 map (`own`: declared for both platforms; `absent`:
//!   AMD-only, no NVIDIA function takes it).

use crate::mapping::{norm, EnumMapData, FlagMapData, Mapping, Prefixes};
use crate::model::{Bindings, EnumDef};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// The NVIDIA-platform maps (same order as [`Mapping::types`] / [`Mapping::flag_fields`]) and a
/// summary of what changed against the HIP 5.2.3 (AMD) maps.
pub struct NvidiaPlatform {
    /// One map per enum pair.
    pub enum_maps: Vec<EnumMapData>,
    /// One map per flag group.
    pub flag_maps: Vec<FlagMapData>,
    /// One line per changed map, for the generated doc and the codegen report.
    pub summary: Vec<String>,
    /// `#define hipX Y` lines whose `Y` is not known to the CUDA model (not on that platform).
    pub unresolved: Vec<String>,
}

/// How a HIP enum exists on the NVIDIA platform.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    /// Declared for both platforms (before the platform split): HIP's own values.
    Own,
    /// Redeclared by an `nvidia_detail` header with its own enumerators.
    Redeclared,
    /// The CUDA enum of this name (tag or typedef).
    Aliased(String),
    /// AMD-only: not declared on the NVIDIA platform.
    Absent,
}

/// Removes `/* */` and `//` comments and joins `\`-continued lines.
fn clean(text: &str) -> String {
    let block = regex::Regex::new(r"(?s)/\*.*?\*/").expect("regex");
    let text = block.replace_all(text, " ");
    let text = text.replace("\\\r\n", " ").replace("\\\n", " ");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(n) = s.strip_prefix('-') {
        parse_int(n).map(|v| -v)
    } else {
        s.parse().ok()
    }
}

/// `typedef enum [Tag] { a [= v], ... } Name;` / `enum Tag { ... };` bodies: (names, values).
/// An enum body: its names (tag, typedef) and its (enumerator, value)s.
type EnumBody = (Vec<String>, Vec<(String, i64)>);

fn enum_bodies(text: &str) -> Result<Vec<EnumBody>> {
    let re = regex::Regex::new(
        r"(?s)(typedef\s+)?enum\s+(?:__HIP_NODISCARD\s+)?(\w*)\s*\{([^}]*)\}\s*(\w*)\s*;",
    )?;
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        let names: Vec<String> = [&c[2], &c[4]]
            .iter()
            .filter(|n| !n.is_empty())
            .map(|n| n.to_string())
            .collect();
        let mut vals = Vec::new();
        let mut next = 0i64;
        for e in c[3].split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (n, v) = match e.split_once('=') {
                Some((n, v)) => {
                    let v = match parse_int(v) {
                        Some(v) => v,
                        // `A = B` naming an earlier enumerator of the same enum.
                        None => *vals
                            .iter()
                            .find(|(n, _)| n == v.trim())
                            .map(|(_, v)| v)
                            .with_context(|| format!("enum {names:?}: value `{v}` of {n}"))?,
                    };
                    (n.trim(), v)
                }
                None => (e, next),
            };
            vals.push((n.to_string(), v));
            next = v + 1;
        }
        out.push((names, vals));
    }
    Ok(out)
}

fn cuda_enum_of<'a>(cuda: &[&'a Bindings], name: &str) -> Option<&'a EnumDef> {
    cuda.iter().find_map(|b| {
        b.enums
            .values()
            .find(|e| e.tag == name || e.aliases.iter().any(|a| a == name))
    })
}

/// What the NVIDIA headers say: per-name values, enum statuses, and unresolved defines.
struct Headers {
    values: HashMap<String, i64>,
    /// HIP name → the CUDA constant it is `#define`d to.
    targets: HashMap<String, String>,
    own: BTreeSet<String>,
    redeclared: BTreeSet<String>,
    aliased: HashMap<String, String>,
    /// (HIP name, description) of `#define hipX Y` whose Y is no CUDA constant or enum.
    unresolved: Vec<(String, String)>,
}

fn read_headers(
    hip_include: &Path,
    cuda: &[&Bindings],
    cuda_consts: &HashMap<String, i64>,
) -> Result<Headers> {
    let dir = hip_include.join("hip/nvidia_detail");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no headers in {}", dir.display());
    }
    let mut h = Headers {
        values: HashMap::new(),
        targets: HashMap::new(),
        own: BTreeSet::new(),
        redeclared: BTreeSet::new(),
        aliased: HashMap::new(),
        unresolved: Vec::new(),
    };
    let define = regex::Regex::new(r"(?m)^[ \t]*#[ \t]*define[ \t]+((?i:hip)\w*)[ \t]+(.+?)\s*$")?;
    let typedef = regex::Regex::new(r"typedef\s+(?:enum\s+)?(\w+)\s+((?i:hip)\w*)\s*;")?;
    let cuda_name = regex::Regex::new(r"^(cuda|CU|CUDA|cu)\w*$")?;
    for f in &files {
        let text = clean(&crate::read(f)?);
        let file = f.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        for (names, vals) in enum_bodies(&text)? {
            h.redeclared.extend(names);
            for (n, v) in vals {
                h.values.insert(n, v);
            }
        }
        for c in typedef.captures_iter(&text) {
            if cuda_enum_of(cuda, &c[1]).is_some() {
                h.aliased.insert(c[2].to_string(), c[1].to_string());
            }
        }
        for c in define.captures_iter(&text) {
            let (name, rhs) = (c[1].to_string(), c[2].trim());
            if let Some(v) = parse_int(rhs) {
                h.values.insert(name, v);
            } else if let Some(v) = cuda_consts.get(rhs) {
                h.values.insert(name.clone(), *v);
                h.targets.insert(name, rhs.to_string());
            } else if cuda_enum_of(cuda, rhs).is_some() {
                h.aliased.insert(name, rhs.to_string());
            } else if cuda_name.is_match(rhs) {
                let d = format!("`{name}` -> `{rhs}` ({file})");
                h.unresolved.push((name, d));
            }
        }
    }
    // Enums declared before the platform split of hip_runtime_api.h exist on both platforms.
    let api = crate::read(&hip_include.join("hip/hip_runtime_api.h"))?;
    let split = api
        .find("#if (defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__))")
        .context("hip_runtime_api.h: no platform split")?;
    for (names, _) in enum_bodies(&clean(&api[..split]))? {
        h.own.extend(names);
    }
    Ok(h)
}

fn status(h: &Headers, hip_type: &str) -> Status {
    if h.own.contains(hip_type) {
        Status::Own
    } else if h.redeclared.contains(hip_type) {
        Status::Redeclared
    } else if let Some(c) = h.aliased.get(hip_type) {
        Status::Aliased(c.clone())
    } else {
        Status::Absent
    }
}

/// Per-map change counts.
#[derive(Default)]
struct Counts {
    substituted: usize,
    dropped: usize,
    newly_paired: usize,
    hip_only_substituted: usize,
    pass_through: usize,
}

/// Builds the NVIDIA-platform maps from the HIP 5.2.3 (first version) maps of `m`.
pub fn build(
    hip_include: &Path,
    m: &Mapping,
    cuda: &[&Bindings],
    cuda_consts: &HashMap<String, i64>,
) -> Result<NvidiaPlatform> {
    let h = read_headers(hip_include, cuda, cuda_consts)?;
    let (Some(amd_enums), Some(amd_flags)) = (m.enum_maps.first(), m.flag_maps.first()) else {
        bail!("no HIP 5.2.3 maps to derive the NVIDIA platform's from");
    };
    let mut enum_maps = Vec::new();
    let mut summary = Vec::new();
    for amd in amd_enums {
        let st = status(&h, &amd.hip_type);
        if matches!(st, Status::Own | Status::Absent) {
            enum_maps.push(amd.clone());
            continue;
        }
        let ce = cuda_enum_of(cuda, &amd.cuda_type).context("paired CUDA enum vanished")?;
        let (map, n) = rebuild(amd, ce, &st, &h, cuda)?;
        let what = match &st {
            Status::Aliased(a) => format!("aliased to {a}"),
            _ => "redeclared".to_string(),
        };
        if n.substituted + n.dropped + n.newly_paired + n.hip_only_substituted + n.pass_through > 0
        {
            summary.push(format!(
                "{} <-> {} ({what}): {} values substituted, {} HIP-only substituted, {} HIP-only paired, {} AMD-only dropped, {} CUDA values passed through",
                amd.cuda_type, amd.hip_type, n.substituted, n.hip_only_substituted, n.newly_paired, n.dropped, n.pass_through
            ));
        }
        enum_maps.push(map);
    }
    let mut flag_maps = Vec::new();
    for amd in amd_flags {
        let mut f = amd.clone();
        let mut n = 0;
        for e in &mut f.entries {
            if let Some(v) = h.values.get(&e.2).filter(|_| !e.2.is_empty()) {
                if *v != e.3 {
                    e.3 = *v;
                    n += 1;
                }
            }
        }
        if n > 0 {
            summary.push(format!("flag group {}: {n} values substituted", f.field));
        }
        flag_maps.push(f);
    }
    // Only names the tables know matter (the rest are types, handles, macros).
    let known: BTreeSet<&str> = amd_enums
        .iter()
        .flat_map(|e| {
            e.pairs
                .iter()
                .map(|p| p.2.as_str())
                .chain(e.hip_only.iter().map(|x| x.0.as_str()))
        })
        .chain(
            amd_flags
                .iter()
                .flat_map(|f| f.entries.iter().map(|e| e.2.as_str())),
        )
        .collect();
    let unresolved: Vec<String> = h
        .unresolved
        .iter()
        .filter(|(n, _)| known.contains(n.as_str()))
        .map(|(_, d)| d.clone())
        .collect();
    if std::env::var_os("ANYCUDA_CODEGEN_REPORT").is_some() {
        for s in &summary {
            eprintln!("nvidia platform: {s}");
        }
        for u in &unresolved {
            eprintln!("nvidia platform: not in the CUDA headers (not on that platform): {u}");
        }
    }
    Ok(NvidiaPlatform {
        enum_maps,
        flag_maps,
        summary,
        unresolved,
    })
}

/// The name key of a CUDA enumerator, by its own enum's prefix (cross-API name rule).
fn cuda_key(cuda: &[&Bindings], name: &str) -> Option<String> {
    let e = cuda
        .iter()
        .flat_map(|b| b.enums.values())
        .find(|e| e.variants.iter().any(|v| v.name == name))?;
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    Some(norm(Prefixes::of(&names).rest(name)))
}

fn rebuild(
    amd: &EnumMapData,
    ce: &EnumDef,
    st: &Status,
    h: &Headers,
    cuda: &[&Bindings],
) -> Result<(EnumMapData, Counts)> {
    let mut n = Counts::default();
    let cnames: Vec<&str> = ce.variants.iter().map(|v| v.name.as_str()).collect();
    let cpre = Prefixes::of(&cnames);
    let cval: HashMap<&str, i64> = ce
        .variants
        .iter()
        .map(|v| (v.name.as_str(), v.value))
        .collect();
    let mut pairs = Vec::new();
    for (c, cv, hn, hv) in &amd.pairs {
        // The header's `#define hipX cudaY` names another enumerator than the name rules did.
        if let Some(y) = h.targets.get(hn) {
            if cval.contains_key(y.as_str()) && cval[y.as_str()] != *cv {
                bail!(
                    "{}: {hn} is {y} on HIP's NVIDIA platform, but the tables pair it with {c}; fix codegen/mapping-exceptions.txt",
                    amd.cuda_type
                );
            }
        }
        match h.values.get(hn) {
            Some(v) => {
                if v != hv {
                    n.substituted += 1;
                }
                pairs.push((c.clone(), *cv, hn.clone(), *v));
            }
            None => n.dropped += 1,
        }
    }
    let mut hip_only = Vec::new();
    for (hn, hv, xn, xv) in &amd.hip_only {
        let Some(v) = h.values.get(hn) else {
            n.dropped += 1;
            continue;
        };
        // `#define hipX cudaY` with Y of the paired CUDA type (or agreeing by name): a pair.
        let paired = h.targets.get(hn).and_then(|y| {
            if cval.contains_key(y.as_str()) {
                return Some(y.clone());
            }
            let k = cuda_key(cuda, y)?;
            cnames
                .iter()
                .find(|c| norm(cpre.rest(c)) == k && cval[**c] == *v)
                .map(|c| c.to_string())
        });
        match paired {
            Some(c) => {
                n.newly_paired += 1;
                pairs.push((c.clone(), cval[c.as_str()], hn.clone(), *v));
            }
            None => {
                if v != hv {
                    n.hip_only_substituted += 1;
                }
                hip_only.push((hn.clone(), *v, xn.clone(), *xv));
            }
        }
    }
    pairs.sort_by_key(|p| cnames.iter().position(|c| *c == p.0));
    let mut to_hip: BTreeMap<i64, i64> = BTreeMap::new();
    let mut to_cuda: BTreeMap<i64, i64> = BTreeMap::new();
    for (_, cv, _, hv) in &pairs {
        to_hip.entry(*cv).or_insert(*hv);
        to_cuda.entry(*hv).or_insert(*cv);
    }
    // The HIP type *is* the CUDA enum `a` there: every other CUDA value passes through, as is
    // when `a` is the paired type, else as the enumerator of `a` that agrees by name (the
    // driver/runtime twin, e.g. `CU_GRAPH_NODE_TYPE_MEM_ALLOC` -> `cudaGraphNodeTypeMemAlloc`).
    if let Status::Aliased(a) = st {
        let ae = cuda_enum_of(cuda, a).context("aliased CUDA enum vanished")?;
        let same = std::ptr::eq(ae, ce);
        let anames: Vec<&str> = ae.variants.iter().map(|v| v.name.as_str()).collect();
        let apre = Prefixes::of(&anames);
        for v in &ce.variants {
            if to_hip.contains_key(&v.value) {
                continue;
            }
            let hit = if same {
                Some((v.name.clone(), v.value))
            } else {
                let k = norm(cpre.rest(&v.name));
                ae.variants
                    .iter()
                    .find(|x| norm(apre.rest(&x.name)) == k)
                    .map(|x| (x.name.clone(), x.value))
            };
            let Some((hn, hv)) = hit else { continue };
            if to_cuda.contains_key(&hv) {
                continue;
            }
            n.pass_through += 1;
            pairs.push((v.name.clone(), v.value, hn, hv));
            to_hip.insert(v.value, hv);
            to_cuda.insert(hv, v.value);
        }
        pairs.sort_by_key(|p| cnames.iter().position(|c| *c == p.0));
    }
    let mut kept = Vec::new();
    for x in hip_only {
        if to_cuda.contains_key(&x.1) {
            // Its NVIDIA value is a real one already: nothing to hallucinate.
            n.dropped += 1;
            continue;
        }
        to_cuda.insert(x.1, x.3);
        to_hip.entry(x.3).or_insert(x.1);
        kept.push(x);
    }
    let cuda_only = ce
        .variants
        .iter()
        .filter(|v| !to_hip.contains_key(&v.value))
        .map(|v| (v.name.clone(), v.value))
        .collect();
    Ok((
        EnumMapData {
            cuda_type: amd.cuda_type.clone(),
            hip_type: amd.hip_type.clone(),
            to_hip: to_hip.into_iter().collect(),
            to_cuda: to_cuda.into_iter().collect(),
            pairs,
            cuda_only,
            hip_only: kept,
        },
        n,
    ))
}

/// The `NVIDIA_PLATFORM` items of `generated/conv.rs` (maps already emitted under the names given).
pub fn tables_items(
    m: &Mapping,
    nv: &NvidiaPlatform,
    em_names: &BTreeMap<&EnumMapData, String>,
    fm_names: &BTreeMap<&FlagMapData, String>,
) -> Result<Vec<syn::Item>> {
    use proc_macro2::{Ident, Span};
    use quote::quote;
    let id = |s: &str| Ident::new(s, Span::call_site());
    let mut inits = Vec::new();
    let mut all = Vec::new();
    for (t, e) in m.types.iter().zip(&nv.enum_maps) {
        let f = id(&t.cuda);
        let s = id(em_names.get(e).context("NVIDIA enum map not emitted")?);
        inits.push(quote!(#f: &#s));
        all.push(quote!(&#s));
    }
    let mut all_f = Vec::new();
    for (g, f) in m.flag_fields.iter().zip(&nv.flag_maps) {
        let fi = id(g);
        let s = id(fm_names.get(f).context("NVIDIA flag map not emitted")?);
        inits.push(quote!(#fi: &#s));
        all_f.push(quote!(&#s));
    }
    let mut doc: Vec<String> = vec![
        " Tables for HIP's NVIDIA platform: HIP 5.2.3's `hip/nvidia_detail` headers compiled over".into(),
        " CUDA (`hipRuntimeGetVersion` reports the CUDA version there, e.g. 13000).".into(),
        "".into(),
        " The HIP 5.2.3 maps with the values of those headers substituted: `#define hipX cudaY`".into(),
        " gives hipX CUDA's value of Y, enums aliased to a CUDA enum pass CUDA values through and".into(),
        " lose the AMD-only enumerators, redeclared enums take their NVIDIA values; `hipError_t`,".into(),
        " `hipDeviceAttribute_t` and the other enums declared for both platforms keep HIP's".into(),
        " values. `hip_versions` is empty: no `HIP_VERSION` selects these (see `crate::conv::tables_for`).".into(),
        "".into(),
        " Changes against the HIP 5.2.3 (AMD) tables:".into(),
    ];
    for s in &nv.summary {
        doc.push(format!(" - {s}"));
    }
    if !nv.unresolved.is_empty() {
        doc.push(String::new());
        doc.push(
            " `#define`s naming a CUDA constant the CUDA 13 headers lack (so absent there):".into(),
        );
        for u in &nv.unresolved {
            doc.push(format!(" - {u}"));
        }
    }
    let doc: Vec<syn::Attribute> = doc
        .iter()
        .map(|l| {
            let l = l.trim_end();
            syn::parse_quote!(#[doc = #l])
        })
        .collect();
    Ok(vec![
        syn::parse_quote! {
            static T_NVIDIA_PLATFORM: ConvTables = ConvTables {
                hip_versions: &[],
                #(#inits,)*
                all: &[#(#all),*],
                all_flags: &[#(#all_f),*],
            };
        },
        syn::parse_quote! {
            #(#doc)*
            pub static NVIDIA_PLATFORM: &ConvTables = &T_NVIDIA_PLATFORM;
        },
    ])
}

/// [`build`]s the NVIDIA platform's tables into `m` (rendered by `mapping::conv_module`).
pub fn attach(
    mut m: Mapping,
    hip_include: &Path,
    cuda: &[&Bindings],
    cuda_consts: &HashMap<String, i64>,
) -> Result<Mapping> {
    m.nvidia_platform = Some(build(hip_include, &m, cuda, cuda_consts)?);
    Ok(m)
}
