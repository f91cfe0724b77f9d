//! CUDA↔HIP pairing: enum type pairs, enumerator pairs (name rules plus the hand-kept
//! exceptions of `codegen/mapping-exceptions.txt`), hallucinated constants and flag groups.

use crate::emit_cuda::{ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::hip::HipVer;
use crate::model::{collapse_doc, Bindings, EnumDef};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Splits a C identifier into words (`snake_case`, `UPPER_SNAKE`, `camelCase`; digits stay with
/// the preceding word, acronyms end before an uppercase letter followed by a lowercase one).
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in s.split('_').filter(|p| !p.is_empty()) {
        let cs: Vec<char> = part.chars().collect();
        let mut cur = String::new();
        for i in 0..cs.len() {
            let c = cs[i];
            let split = i > 0
                && c.is_ascii_uppercase()
                && (cs[i - 1].is_ascii_lowercase()
                    || (cs[i - 1].is_ascii_uppercase()
                        && cs.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
            if split && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

fn is_boundary(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    if i == 0 || i >= b.len() {
        return false;
    }
    b[i - 1] == b'_'
        || (b[i].is_ascii_uppercase()
            && (b[i - 1].is_ascii_lowercase() || b[i - 1].is_ascii_digit()))
}

/// The longest common prefix of `names` that ends at a word boundary in every name and leaves
/// something of each.
pub fn common_prefix<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut lcp = first.len();
    for n in &names[1..] {
        lcp = lcp.min(
            first
                .bytes()
                .zip(n.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    (1..=lcp)
        .rev()
        .find(|&i| names.iter().all(|n| is_boundary(n, i)))
        .map(|i| first[..i].to_string())
        .unwrap_or_default()
}

/// The longest word-boundary prefix shared by more than half of `names` (e.g. `CUDA_ERROR_` for
/// `CUresult`, whose only other name is `CUDA_SUCCESS`), else the common prefix.
pub fn dominant_prefix(names: &[&str]) -> String {
    let common = common_prefix(names.iter().copied());
    let mut best = common.clone();
    for n in names {
        for i in (common.len() + 1)..n.len() {
            if !is_boundary(n, i) || i <= best.len() {
                continue;
            }
            let p = &n[..i];
            let count = names
                .iter()
                .filter(|m| m.len() > i && m.starts_with(p) && is_boundary(m, i))
                .count();
            if count * 2 > names.len() {
                best = p.to_string();
            }
        }
    }
    best
}

/// An enumerator name without its enum's prefix: the dominant one where it has it, else the
/// common one.
pub struct Prefixes {
    /// The common prefix of every name.
    pub common: String,
    /// The dominant prefix (see [`dominant_prefix`]).
    pub dominant: String,
}

impl Prefixes {
    /// Computes both prefixes.
    pub fn of(names: &[&str]) -> Self {
        Prefixes {
            common: common_prefix(names.iter().copied()),
            dominant: dominant_prefix(names),
        }
    }
    /// The name's rest.
    pub fn rest<'a>(&self, name: &'a str) -> &'a str {
        if name.starts_with(&self.dominant) && is_boundary(name, self.dominant.len()) {
            &name[self.dominant.len()..]
        } else {
            name.get(self.common.len()..).unwrap_or(name)
        }
    }
}

/// Comparison key of an enumerator's rest: lowercase alphanumerics, with synonyms unified.
pub fn norm(rest: &str) -> String {
    let w: Vec<String> = words(rest)
        .into_iter()
        .map(|w| match w.to_ascii_lowercase().as_str() {
            // CUDA spells out what HIP abbreviates (and vice versa).
            "mem" => "memory".to_string(),
            o => o.to_string(),
        })
        .collect();
    let s: String = w
        .concat()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    s.replace("maximum", "max").replace("minimum", "min")
}

/// One exception line of `mapping-exceptions.txt`.
#[derive(Debug, Clone)]
struct Exception {
    cuda_type: String,
    cuda: Option<String>,
    hip: Option<String>,
    reason: String,
}

fn read_exceptions(root: &Path) -> Result<Vec<Exception>> {
    let p = root.join("codegen/mapping-exceptions.txt");
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{}:{}", p.display(), i + 1);
        let (head, reason) = line
            .split_once('|')
            .with_context(|| format!("{at}: missing `| reason`"))?;
        let f: Vec<&str> = head.split_whitespace().collect();
        let [ty, c, "=", h] = f.as_slice() else {
            bail!("{at}: expected `<CUDA type> <CUDA name|-> = <HIP name|-> | reason`");
        };
        if reason.trim().is_empty() {
            bail!("{at}: the reason is required");
        }
        let opt = |s: &str| (s != "-").then(|| s.to_string());
        if *c == "-" && *h == "-" {
            bail!("{at}: at least one side must be named");
        }
        out.push(Exception {
            cuda_type: ty.to_string(),
            cuda: opt(c),
            hip: opt(h),
            reason: reason.trim().to_string(),
        });
    }
    Ok(out)
}

/// An enum pair: the CUDA enum (by user name) and the HIP enum (by user name).
#[derive(Debug, Clone)]
pub struct TypePair {
    /// CUDA type name, e.g. `CUresult`.
    pub cuda: String,
    /// HIP type name, e.g. `hipError_t`.
    pub hip: String,
}

fn type_key(name: &str) -> String {
    let mut n = name.to_string();
    for p in ["hiprtc", "nvrtc", "cuda", "HIP", "hip", "CU", "cu"] {
        if let Some(r) = n.strip_prefix(p) {
            n = r.to_string();
            break;
        }
    }
    for s in ["_enum", "_t", "_e"] {
        if let Some(r) = n.strip_suffix(s) {
            n = r.to_string();
        }
    }
    n.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Reads `codegen/enum-pairs.txt` and adds the name-rule pairs: same type key after the API
/// prefix (`CU`/`cuda` vs `hip`/`HIP`; `nvrtc` vs `hiprtc`).
fn type_pairs(
    root: &Path,
    cuda: &[&Bindings],
    hip_names: &BTreeSet<String>,
) -> Result<Vec<TypePair>> {
    let p = root.join("codegen/enum-pairs.txt");
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut explicit: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, _reason) = line
            .split_once('|')
            .with_context(|| format!("{}:{}: missing `| reason`", p.display(), i + 1))?;
        let f: Vec<&str> = head.split_whitespace().collect();
        let [c, h] = f.as_slice() else {
            bail!(
                "{}:{}: expected `<CUDA type> <HIP type|-> | reason`",
                p.display(),
                i + 1
            );
        };
        explicit.insert(c.to_string(), (*h != "-").then(|| h.to_string()));
    }
    let mut by_key: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for h in hip_names {
        by_key.entry(type_key(h)).or_default().push(h);
    }
    let mut out = Vec::new();
    let mut cuda_names: Vec<String> = Vec::new();
    for b in cuda {
        for e in b.enums.values() {
            cuda_names.push(e.user_name().to_string());
        }
    }
    for c in &explicit {
        if !cuda_names.contains(c.0) {
            bail!("{}: {} is not a CUDA enum", p.display(), c.0);
        }
        if let Some(h) = c.1 {
            if !hip_names.contains(h) {
                bail!("{}: {h} is not a HIP enum", p.display());
            }
        }
    }
    cuda_names.sort();
    for c in cuda_names {
        let hip = match explicit.get(&c) {
            Some(h) => h.clone(),
            None => {
                let is_rtc = c.starts_with("nvrtc");
                // Driver-style `CU*` prefers `HIP*`, runtime-style `cuda*` prefers `hip*`.
                let want_upper = c.starts_with("CU");
                by_key.get(&type_key(&c)).and_then(|hs| {
                    let ok: Vec<&&String> = hs
                        .iter()
                        .filter(|h| h.starts_with("hiprtc") == is_rtc)
                        .collect();
                    ok.iter()
                        .find(|h| h.starts_with("HIP") == want_upper)
                        .or(ok.first())
                        .map(|h| (**h).clone())
                })
            }
        };
        if let Some(hip) = hip {
            out.push(TypePair { cuda: c, hip });
        }
    }
    Ok(out)
}

/// The map of one enum pair in one HIP version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumMapData {
    /// CUDA type.
    pub cuda_type: String,
    /// HIP type.
    pub hip_type: String,
    /// (cuda, hip) sorted by CUDA value, unique CUDA values.
    pub to_hip: Vec<(i64, i64)>,
    /// (hip, cuda) sorted by HIP value, unique HIP values.
    pub to_cuda: Vec<(i64, i64)>,
    /// (cuda name, cuda value, hip name, hip value).
    pub pairs: Vec<(String, i64, String, i64)>,
    /// CUDA values with no HIP counterpart.
    pub cuda_only: Vec<(String, i64)>,
    /// (hip name, hip value, hallucinated name, hallucinated value).
    pub hip_only: Vec<(String, i64, String, i64)>,
}

/// A flag group of one HIP version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlagMapData {
    /// Field name, e.g. `cu_stream_flags`.
    pub field: String,
    /// (cuda name, cuda value, hip name, hip value); `hip name` empty when this HIP version lacks it.
    pub entries: Vec<(String, i64, String, i64)>,
}

/// Everything the conversion tables need, per HIP version.
pub struct Mapping {
    /// Enum pairs (sorted by CUDA type).
    pub types: Vec<TypePair>,
    /// Per version: one map per enum pair (same order as `types`).
    pub enum_maps: Vec<Vec<EnumMapData>>,
    /// Flag group fields, sorted.
    pub flag_fields: Vec<String>,
    /// Per version: one map per flag group (same order as `flag_fields`).
    pub flag_maps: Vec<Vec<FlagMapData>>,
    /// Hallucinated constants per CUDA type.
    pub extras: Extras,
    /// Per enum pair, newest version: (cuda, hip, mapped, cuda_only, hip_only, values differ).
    pub stats: Vec<(String, String, usize, usize, usize, usize)>,
    /// HIP-only values outside the hallucination range (no constant is made for them).
    pub unrepresentable: Vec<String>,
    /// The tables of HIP's NVIDIA platform (`crate::nvidia_platform`), once attached.
    pub nvidia_platform: Option<crate::nvidia_platform::NvidiaPlatform>,
}

fn find_enum<'a>(bs: &[&'a Bindings], user: &str) -> Option<&'a EnumDef> {
    bs.iter()
        .find_map(|b| b.enums.values().find(|e| e.user_name() == user))
}

/// The invented CUDA name: the CUDA enum's (dominant) prefix, `HIP_`/`Hip`, then the HIP
/// name's rest in the CUDA enum's casing (UPPER_SNAKE `CUDA_ERROR_X` or camel `cudaErrorX`).
fn hallucinated_name(cuda_prefix: &str, upper: bool, hip_rest_words: &[String]) -> String {
    let mut s = cuda_prefix.to_string();
    if upper {
        if !s.is_empty() && !s.ends_with('_') {
            s.push('_');
        }
        s.push_str("HIP");
        for w in hip_rest_words {
            s.push('_');
            s.push_str(&w.to_ascii_uppercase());
        }
    } else {
        s.push_str("Hip");
        for w in hip_rest_words {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.push(f.to_ascii_uppercase());
                s.push_str(&lower_if_all_upper(c.as_str()));
            }
        }
    }
    s
}

/// `UNTIME` → `untime` (from an UPPER_SNAKE word), but `untime`/`exture1D` unchanged.
fn lower_if_all_upper(s: &str) -> String {
    if s.chars().any(|c| c.is_ascii_lowercase()) {
        s.to_string()
    } else {
        s.to_ascii_lowercase()
    }
}

/// Builds every map.
pub fn build(
    root: &Path,
    ranges: &Ranges,
    cuda: &[&Bindings],
    cuda_consts: &HashMap<String, i64>,
    versions: &[HipVer],
    hip_launch_params: &HashMap<String, i64>,
) -> Result<Mapping> {
    let exceptions = read_exceptions(root)?;
    let hip_names: BTreeSet<String> = versions
        .iter()
        .flat_map(|v| v.b.enums.values().map(|e| e.user_name().to_string()))
        .collect();
    let types = type_pairs(root, cuda, &hip_names)?;
    for ex in &exceptions {
        if !types.iter().any(|t| t.cuda == ex.cuda_type) {
            bail!(
                "mapping-exceptions.txt: {} is not a paired CUDA enum",
                ex.cuda_type
            );
        }
    }
    let n = versions.len();
    let mut enum_maps: Vec<Vec<EnumMapData>> = vec![Vec::new(); n];
    let mut extras = Extras::new();
    let mut stats = Vec::new();
    let mut unrepresentable = Vec::new();
    for tp in &types {
        let ce = find_enum(cuda, &tp.cuda).context("paired CUDA enum vanished")?;
        let cnames: Vec<&str> = ce.variants.iter().map(|v| v.name.as_str()).collect();
        let cpre = Prefixes::of(&cnames);
        let upper = !cnames
            .iter()
            .any(|c| cpre.rest(c).chars().any(|ch| ch.is_ascii_lowercase()));
        let cval: HashMap<&str, i64> = ce
            .variants
            .iter()
            .map(|v| (v.name.as_str(), v.value))
            .collect();
        // HIP enumerators per version; the HIP prefix from the union of names, for stability.
        let hv: Vec<Option<&EnumDef>> = versions
            .iter()
            .map(|v| v.b.enums.values().find(|e| e.user_name() == tp.hip))
            .collect();
        let all_hip: BTreeSet<&str> = hv
            .iter()
            .flatten()
            .flat_map(|e| e.variants.iter().map(|v| v.name.as_str()))
            .collect();
        let all_hip_v: Vec<&str> = all_hip.iter().copied().collect();
        let hpre = Prefixes::of(&all_hip_v);
        let exs: Vec<&Exception> = exceptions
            .iter()
            .filter(|e| e.cuda_type == tp.cuda)
            .collect();
        for e in &exs {
            if let Some(c) = &e.cuda {
                if !cval.contains_key(c.as_str()) {
                    bail!(
                        "mapping-exceptions.txt: {} has no enumerator {c} ({})",
                        tp.cuda,
                        e.reason
                    );
                }
            }
            if let Some(h) = &e.hip {
                if !all_hip.contains(h.as_str()) {
                    bail!(
                        "mapping-exceptions.txt: {} has no enumerator {h} in any HIP version ({})",
                        tp.hip,
                        e.reason
                    );
                }
            }
        }
        let ex_cuda: BTreeSet<&str> = exs.iter().filter_map(|e| e.cuda.as_deref()).collect();
        let ex_hip: BTreeSet<&str> = exs.iter().filter_map(|e| e.hip.as_deref()).collect();
        // Name pairs (version-independent: names only).
        let mut name_pairs: Vec<(String, String)> = Vec::new();
        let hip_by_key: BTreeMap<String, &str> = all_hip
            .iter()
            .filter(|h| !ex_hip.contains(*h))
            .map(|h| (norm(hpre.rest(h)), *h))
            .collect();
        for c in &cnames {
            if ex_cuda.contains(c) {
                continue;
            }
            if let Some(h) = hip_by_key.get(&norm(cpre.rest(c))) {
                name_pairs.push((c.to_string(), h.to_string()));
            }
        }
        for e in &exs {
            if let (Some(c), Some(h)) = (&e.cuda, &e.hip) {
                name_pairs.push((c.clone(), h.clone()));
            }
        }
        // Hallucinated constants: HIP names with no CUDA counterpart in any version.
        let paired_hip: BTreeSet<&str> = name_pairs.iter().map(|(_, h)| h.as_str()).collect();
        let mut halluc: BTreeMap<String, (String, i64, String)> = BTreeMap::new(); // hip -> (cuda name, value, doc)
        let real_values: BTreeSet<i64> = cval.values().copied().collect();
        // Values coming back from HIP are classified by range: no real value may sit there.
        if let Some(v) = real_values
            .iter()
            .find(|v| (ranges.named_base..ranges.unknown_base + ranges.range).contains(*v))
        {
            bail!(
                "{}: real CUDA value {v} lies in the reserved hallucination ranges",
                tp.cuda
            );
        }
        let mut hip_aliases: BTreeSet<String> = BTreeSet::new();
        let mut by_value: BTreeMap<i64, String> = BTreeMap::new(); // hallucinated value -> owning HIP name
        for (vi, e) in hv.iter().enumerate().rev() {
            let Some(e) = e else { continue };
            let paired_vals: BTreeSet<i64> = e
                .variants
                .iter()
                .filter(|v| paired_hip.contains(v.name.as_str()))
                .map(|v| v.value)
                .collect();
            // HIP names sharing a value: the last in header order is the real one, earlier ones
            // are range markers such as `...AmdSpecificBegin`, which get no constant of their own.
            let mut first_of_value: BTreeMap<i64, &str> = BTreeMap::new();
            for v in &e.variants {
                first_of_value.insert(v.value, v.name.as_str());
            }
            for v in &e.variants {
                if first_of_value.get(&v.value) != Some(&v.name.as_str()) {
                    hip_aliases.insert(v.name.clone());
                }
                if paired_hip.contains(v.name.as_str())
                    || paired_vals.contains(&v.value)
                    || halluc.contains_key(&v.name)
                    || hip_aliases.contains(&v.name)
                {
                    continue;
                }
                let name = hallucinated_name(&cpre.dominant, upper, &words(hpre.rest(&v.name)));
                let value = ranges.named_base + v.value;
                // Renamed between versions (same value, older name): share the newer constant.
                if let Some(owner) = by_value.get(&value).cloned() {
                    let entry = halluc[&owner].clone();
                    if let Some(o) = halluc.get_mut(&owner) {
                        o.2.push_str(&format!(
                            " HIP {} calls value {} {}.",
                            versions[vi].label(),
                            v.value,
                            v.name
                        ));
                    }
                    halluc.insert(v.name.clone(), entry);
                    continue;
                }
                by_value.insert(value, v.name.clone());
                if !(0..ranges.range).contains(&v.value) {
                    // Not representable in the reserved range (hallucinated.rs): no constant;
                    // such a value coming back is the caller's fallback case.
                    unrepresentable.push(format!(
                        "{}::{} = {} (from {})",
                        tp.cuda, name, v.value, v.name
                    ));
                    hip_aliases.insert(v.name.clone());
                    continue;
                }
                let desc = format!(
                    "HIP-only: {} (HIP value {}) has no CUDA counterpart. {}",
                    v.name,
                    v.value,
                    collapse_doc(&v.doc)
                )
                .trim()
                .to_string();
                halluc.insert(v.name.clone(), (name, value, desc));
            }
        }
        // Invariants: distinct from real values and names, and from each other.
        let mut seen_v = BTreeSet::new();
        let mut seen_n = BTreeSet::new();
        let owners: BTreeMap<&String, &(String, i64, String)> = halluc
            .iter()
            .filter(|(h, (_, v, _))| by_value.get(v) == Some(*h))
            .collect();
        for (h, (name, value, _)) in &owners {
            if real_values.contains(value) || cval.contains_key(name.as_str()) {
                bail!(
                    "hallucinated {}::{name} (from {h}) collides with a real CUDA constant",
                    tp.cuda
                );
            }
            if !seen_v.insert(*value) || !seen_n.insert(name.clone()) {
                bail!("hallucinated {}::{name} (from {h}) collides with another hallucinated constant", tp.cuda);
            }
        }
        let mut hx: Vec<(&&String, &&(String, i64, String))> = owners.iter().collect();
        hx.sort_by_key(|(_, (_, v, _))| *v);
        for (h, (name, value, desc)) in &hx {
            extras.entry(tp.cuda.clone()).or_default().push(ExtraConst {
                name: name.clone(),
                value: *value,
                description: desc.clone(),
                origin: ExtraOrigin::Hallucinated((**h).clone()),
            });
        }
        // Per-version maps.
        for (vi, e) in hv.iter().enumerate() {
            let hvals: HashMap<&str, i64> = e
                .map(|e| {
                    e.variants
                        .iter()
                        .map(|v| (v.name.as_str(), v.value))
                        .collect()
                })
                .unwrap_or_default();
            let mut pairs: Vec<(String, i64, String, i64)> = Vec::new();
            for (c, h) in &name_pairs {
                if let Some(hvv) = hvals.get(h.as_str()) {
                    pairs.push((c.clone(), cval[c.as_str()], h.clone(), *hvv));
                }
            }
            // Header order of the CUDA enum.
            pairs.sort_by_key(|p| cnames.iter().position(|c| *c == p.0));
            let mut to_hip: BTreeMap<i64, i64> = BTreeMap::new();
            let mut to_cuda: BTreeMap<i64, i64> = BTreeMap::new();
            for (_, cv, _, hvv) in &pairs {
                to_hip.entry(*cv).or_insert(*hvv);
                to_cuda.entry(*hvv).or_insert(*cv);
            }
            let mut hip_only = Vec::new();
            if let Some(e) = e {
                for v in &e.variants {
                    if let Some((cn, cv, _)) = halluc.get(&v.name) {
                        if to_cuda.contains_key(&v.value) {
                            continue;
                        }
                        hip_only.push((v.name.clone(), v.value, cn.clone(), *cv));
                        to_cuda.insert(v.value, *cv);
                        to_hip.entry(*cv).or_insert(v.value);
                    }
                }
            }
            let cuda_only: Vec<(String, i64)> = ce
                .variants
                .iter()
                .filter(|v| !to_hip.contains_key(&v.value))
                .map(|v| (v.name.clone(), v.value))
                .collect();
            if vi == n - 1 {
                let differ = pairs.iter().filter(|p| p.1 != p.3).count();
                stats.push((
                    tp.cuda.clone(),
                    tp.hip.clone(),
                    pairs.len(),
                    cuda_only.len(),
                    hip_only.len(),
                    differ,
                ));
            }
            enum_maps[vi].push(EnumMapData {
                cuda_type: tp.cuda.clone(),
                hip_type: tp.hip.clone(),
                to_hip: to_hip.into_iter().collect(),
                to_cuda: to_cuda.into_iter().collect(),
                pairs,
                cuda_only,
                hip_only,
            });
        }
    }

    // Flag groups.
    let p = root.join("codegen/flag-groups.txt");
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut groups: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let head = line.split('|').next().unwrap_or("");
        let f: Vec<&str> = head.split_whitespace().collect();
        let [g, c, h] = f.as_slice() else {
            bail!(
                "{}:{}: expected `<group> <CUDA name> <HIP name>`",
                p.display(),
                i + 1
            );
        };
        if !cuda_consts.contains_key(*c) {
            bail!("{}:{}: {c} is no CUDA integer constant", p.display(), i + 1);
        }
        groups
            .entry(g.to_string())
            .or_default()
            .push((c.to_string(), h.to_string()));
    }
    let flag_fields: Vec<String> = groups.keys().cloned().collect();
    let mut flag_maps: Vec<Vec<FlagMapData>> = vec![Vec::new(); n];
    for (vi, v) in versions.iter().enumerate() {
        let mut hc = v.int_consts();
        for (k, val) in hip_launch_params {
            hc.entry(k.clone()).or_insert(*val);
        }
        for (g, entries) in &groups {
            let mut es = Vec::new();
            for (c, h) in entries {
                let (hn, hvv) = match hc.get(h) {
                    Some(x) => (h.clone(), *x),
                    None => (String::new(), 0),
                };
                es.push((c.clone(), cuda_consts[c], hn, hvv));
            }
            flag_maps[vi].push(FlagMapData {
                field: g.clone(),
                entries: es,
            });
        }
    }
    for (g, entries) in &groups {
        for (c, h) in entries {
            if !versions
                .iter()
                .any(|v| v.int_consts().contains_key(h) || hip_launch_params.contains_key(h))
            {
                bail!("flag-groups.txt: {g}: {h} (for {c}) exists in no HIP version");
            }
        }
    }
    Ok(Mapping {
        types,
        enum_maps,
        flag_fields,
        flag_maps,
        extras,
        stats,
        unrepresentable,
        nvidia_platform: None,
    })
}

fn lit_str(s: &str) -> proc_macro2::TokenStream {
    quote::quote!(#s)
}

/// Renders `backends/hip/src/generated/conv.rs`.
pub fn conv_module(m: &Mapping, versions: &[HipVer], inputs: &str) -> Result<String> {
    use proc_macro2::{Ident, Span};
    use quote::quote;
    let id = |s: &str| Ident::new(s, Span::call_site());
    let mut items: Vec<syn::Item> = vec![syn::parse_quote!(
        use crate::conv::{EnumMap, FlagMap};
    )];

    // The ConvTables struct: one field per enum pair and per flag group.
    let mut fields = Vec::new();
    for t in &m.types {
        let f = id(&t.cuda);
        let d = format!(" `{}` ↔ `{}`.", t.cuda, t.hip);
        fields.push(quote!(#[doc = #d] pub #f: &'static EnumMap));
    }
    for g in &m.flag_fields {
        let f = id(g);
        let d = format!(" Flag group `{g}` (see `codegen/flag-groups.txt`).");
        fields.push(quote!(#[doc = #d] pub #f: &'static FlagMap));
    }
    items.push(syn::parse_quote! {
        /// The CUDA↔HIP conversion tables of one or more HIP versions (identical content shared).
        #[derive(Debug)]
        pub struct ConvTables {
            /// `HIP_VERSION`s these tables serve (consecutive supported versions, ascending).
            pub hip_versions: &'static [i32],
            #(#fields,)*
            /// Every enum map, for reports.
            pub all: &'static [&'static EnumMap],
            /// Every flag group, for reports.
            pub all_flags: &'static [&'static FlagMap],
        }
    });

    // Deduplicated maps.
    let mut em_names: BTreeMap<&EnumMapData, String> = BTreeMap::new();
    let mut em_count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut fm_names: BTreeMap<&FlagMapData, String> = BTreeMap::new();
    let mut fm_count: BTreeMap<&str, usize> = BTreeMap::new();
    // The per-version maps, then the NVIDIA platform's (sharing identical statics).
    let nv = m.nvidia_platform.as_ref();
    let sets = m.enum_maps.iter().zip(&m.flag_maps);
    for (ems, fms) in sets.chain(nv.map(|n| (&n.enum_maps, &n.flag_maps))) {
        for e in ems {
            if em_names.contains_key(e) {
                continue;
            }
            let k = em_count.entry(e.cuda_type.as_str()).or_insert(0);
            let name = format!("EM_{}_{}", e.cuda_type, k);
            *k += 1;
            let (ct, ht) = (lit_str(&e.cuda_type), lit_str(&e.hip_type));
            let th = e.to_hip.iter().map(|(a, b)| quote!((#a, #b)));
            let tc = e.to_cuda.iter().map(|(a, b)| quote!((#a, #b)));
            let pr = e.pairs.iter().map(|(a, b, c, d)| quote!((#a, #b, #c, #d)));
            let co = e.cuda_only.iter().map(|(a, b)| quote!((#a, #b)));
            let ho = e
                .hip_only
                .iter()
                .map(|(a, b, c, d)| quote!((#a, #b, #c, #d)));
            let n = id(&name);
            items.push(syn::parse_quote! {
                static #n: EnumMap = EnumMap {
                    cuda_type: #ct,
                    hip_type: #ht,
                    to_hip: &[#(#th),*],
                    to_cuda: &[#(#tc),*],
                    pairs: &[#(#pr),*],
                    cuda_only: &[#(#co),*],
                    hip_only: &[#(#ho),*],
                };
            });
            em_names.insert(e, name);
        }
        for f in fms {
            if fm_names.contains_key(f) {
                continue;
            }
            let k = fm_count.entry(f.field.as_str()).or_insert(0);
            let name = format!("FM_{}_{}", f.field, k);
            *k += 1;
            let fl = lit_str(&f.field);
            let es = f
                .entries
                .iter()
                .map(|(a, b, c, d)| quote!((#a, #b, #c, #d)));
            let n = id(&name);
            items.push(syn::parse_quote! {
                static #n: FlagMap = FlagMap { group: #fl, entries: &[#(#es),*] };
            });
            fm_names.insert(f, name);
        }
    }
    // One ConvTables per run of consecutive versions with identical maps.
    let mut runs: Vec<(usize, Vec<usize>)> = Vec::new(); // (first version, versions)
    for vi in 0..versions.len() {
        let same = runs.last().is_some_and(|(f, _)| {
            m.enum_maps[*f] == m.enum_maps[vi] && m.flag_maps[*f] == m.flag_maps[vi]
        });
        if same {
            if let Some(r) = runs.last_mut() {
                r.1.push(vi);
            }
        } else {
            runs.push((vi, vec![vi]));
        }
    }
    let mut table_of: Vec<String> = vec![String::new(); versions.len()];
    for (first, vis) in &runs {
        let tn = format!("T_{}", versions[*first].hip_version);
        let hv: Vec<i32> = vis
            .iter()
            .map(|&i| versions[i].hip_version as i32)
            .collect();
        let mut inits = Vec::new();
        let mut all = Vec::new();
        for (t, e) in m.types.iter().zip(&m.enum_maps[*first]) {
            let f = id(&t.cuda);
            let s = id(&em_names[e]);
            inits.push(quote!(#f: &#s));
            all.push(quote!(&#s));
        }
        let mut all_f = Vec::new();
        for (g, f) in m.flag_fields.iter().zip(&m.flag_maps[*first]) {
            let fi = id(g);
            let s = id(&fm_names[f]);
            inits.push(quote!(#fi: &#s));
            all_f.push(quote!(&#s));
        }
        let labels: Vec<String> = vis.iter().map(|&i| versions[i].label()).collect();
        let d = format!(" Tables for HIP {}.", labels.join(", "));
        let n = id(&tn);
        items.push(syn::parse_quote! {
            #[doc = #d]
            static #n: ConvTables = ConvTables {
                hip_versions: &[#(#hv),*],
                #(#inits,)*
                all: &[#(#all),*],
                all_flags: &[#(#all_f),*],
            };
        });
        for &vi in vis {
            table_of[vi] = tn.clone();
        }
    }
    if let Some(nv) = nv {
        items.extend(crate::nvidia_platform::tables_items(
            m, nv, &em_names, &fm_names,
        )?);
    }
    let tabs = table_of.iter().map(|t| {
        let t = id(t);
        quote!(&#t)
    });
    let hvs = versions.iter().map(|v| v.hip_version as i32);
    items.push(syn::parse_quote! {
        /// One entry per supported HIP version, ascending (parallel to [`HIP_VERSIONS`]);
        /// consecutive versions with identical tables share one static.
        pub static TABLES: &[&ConvTables] = &[#(#tabs),*];
    });
    items.push(syn::parse_quote! {
        /// The `HIP_VERSION` of each [`TABLES`] entry, ascending.
        pub static HIP_VERSIONS: &[i32] = &[#(#hvs),*];
    });
    let vs: Vec<String> = versions
        .iter()
        .map(|v| format!("{} ({})", v.label(), v.source))
        .collect();
    crate::emit::render(
        inputs,
        &format!(
            "CUDA↔HIP conversion tables, per supported HIP version:\n{}.\n\nPairs come from name rules plus `codegen/mapping-exceptions.txt`; HIP-only values map to\nthe hallucinated CUDA constants; see `crate::conv` for the lookups.",
            vs.join(",\n")
        ),
        &items,
    )
}
