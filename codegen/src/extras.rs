//! `codegen/extra-constants.txt` (anycuda-defined constants) and the reserved value ranges of
//! `api/src/hallucinated.rs`.

use crate::emit_cuda::{ExtraConst, ExtraOrigin, Extras};
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::path::Path;

/// The reserved ranges, read from `api/src/hallucinated.rs` so there is one source of truth.
#[derive(Debug, Clone, Copy)]
pub struct Ranges {
    /// `ANYCUDA_BASE`.
    pub anycuda_base: i64,
    /// `NAMED_BASE`.
    pub named_base: i64,
    /// `UNKNOWN_BASE`.
    pub unknown_base: i64,
    /// `RANGE`.
    pub range: i64,
}

/// Reads the `pub const X: i64 = ...;` values of `api/src/hallucinated.rs`.
pub fn ranges(root: &Path) -> Result<Ranges> {
    let p = root.join("api/src/hallucinated.rs");
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let get = |name: &str| -> Result<i64> {
        let line = text
            .lines()
            .find(|l| l.trim().starts_with(&format!("pub const {name}: i64 =")))
            .with_context(|| format!("no `pub const {name}: i64` in {}", p.display()))?;
        let v = line
            .split('=')
            .nth(1)
            .unwrap_or("")
            .trim()
            .trim_end_matches(';')
            .replace('_', "");
        let v = v.trim();
        let n = match v.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16),
            None => v.parse(),
        };
        n.with_context(|| format!("{name} in {} is not an integer literal", p.display()))
    };
    Ok(Ranges {
        anycuda_base: get("ANYCUDA_BASE")?,
        named_base: get("NAMED_BASE")?,
        unknown_base: get("UNKNOWN_BASE")?,
        range: get("RANGE")?,
    })
}

/// Reads `codegen/extra-constants.txt` into `extras`.
pub fn load(root: &Path, r: &Ranges, extras: &mut Extras) -> Result<()> {
    let p = root.join("codegen/extra-constants.txt");
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut seen = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", p.display(), i + 1);
        let (head, desc) = line
            .split_once('|')
            .with_context(|| format!("{}: expected `TYPE NAME OFFSET | description`", at()))?;
        let f: Vec<&str> = head.split_whitespace().collect();
        let [ty, name, off] = f.as_slice() else {
            bail!("{}: expected `TYPE NAME OFFSET | description`", at());
        };
        let off: i64 = off
            .parse()
            .with_context(|| format!("{}: bad offset", at()))?;
        if !(0..r.range).contains(&off) || !seen.insert((ty.to_string(), off)) {
            bail!("{}: offset out of range or reused for {ty}", at());
        }
        let desc = desc.trim();
        if desc.is_empty() {
            bail!("{}: a description (the reason) is required", at());
        }
        extras.entry(ty.to_string()).or_default().push(ExtraConst {
            name: name.to_string(),
            value: r.anycuda_base + off,
            description: desc.to_string(),
            origin: ExtraOrigin::Anycuda,
        });
    }
    Ok(())
}
