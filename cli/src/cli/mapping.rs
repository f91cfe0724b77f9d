//! `anycuda mapping`: how CUDA's constants map to HIP's, per enum and flag group, for one HIP
//! version's tables.

use std::process::ExitCode;

/// Runs `anycuda mapping`.
///
/// # Errors
/// An enum name no table knows, or a build without the HIP backend.
#[cfg(not(feature = "backend-hip"))]
pub fn run(
    _filter: Option<&str>,
    _json: bool,
    _hip_version: Option<i32>,
) -> Result<ExitCode, String> {
    Err("the mapping tables are part of the HIP backend; build with the backend-hip feature".into())
}

/// Runs `anycuda mapping`.
///
/// # Errors
/// An enum name no table knows.
#[cfg(feature = "backend-hip")]
pub fn run(
    filter: Option<&str>,
    as_json: bool,
    hip_version: Option<i32>,
) -> Result<ExitCode, String> {
    use anycuda::native::hip::conv::{tables_for, EnumMap, TABLES};
    use serde_json::{json, Value};

    let t = match hip_version {
        // tables_for takes a small value as HIP's NVIDIA platform, which has no HIP version.
        Some(v) if v < 10_000_000 => {
            return Err(format!(
                "--hip-version {v}: not a HIP version; give hipRuntimeGetVersion's value, \
                 e.g. 50221153 for ROCm 5.2.3 or 60443483 for 6.4.3"
            ))
        }
        Some(v) => tables_for(v),
        None => *TABLES
            .last()
            .ok_or("no translation tables were generated")?,
    };
    let matches = |m: &EnumMap| {
        filter.is_none_or(|f| {
            f.eq_ignore_ascii_case(m.cuda_type) || f.eq_ignore_ascii_case(m.hip_type)
        })
    };
    let maps: Vec<&EnumMap> = t.all.iter().copied().filter(|m| matches(m)).collect();
    let flags: Vec<_> = t
        .all_flags
        .iter()
        .filter(|g| filter.is_none_or(|f| f.eq_ignore_ascii_case(g.group)))
        .collect();
    if maps.is_empty() && flags.is_empty() {
        let mut names: Vec<&str> = t
            .all
            .iter()
            .flat_map(|m| [m.cuda_type, m.hip_type])
            .collect();
        names.extend(t.all_flags.iter().map(|g| g.group));
        names.sort_unstable();
        names.dedup();
        return Err(format!(
            "no mapping for {:?}; known: {}",
            filter.unwrap_or(""),
            names.join(", ")
        ));
    }
    let versions: Vec<String> = t
        .hip_versions
        .iter()
        .map(|v| anycuda::native::hip::version_string(*v))
        .collect();
    if as_json {
        let enums: Vec<Value> = maps
            .iter()
            .map(|m| {
                json!({
                    "cuda_type": m.cuda_type,
                    "hip_type": m.hip_type,
                    "pairs": m.pairs.iter().map(|(cn, cv, hn, hv)| json!({"cuda_name": cn, "cuda_value": cv, "hip_name": hn, "hip_value": hv})).collect::<Vec<_>>(),
                    "cuda_only": m.cuda_only.iter().map(|(n, v)| json!({"cuda_name": n, "cuda_value": v})).collect::<Vec<_>>(),
                    "hip_only": m.hip_only.iter().map(|(hn, hv, cn, cv)| json!({"hip_name": hn, "hip_value": hv, "hallucinated_name": cn, "hallucinated_value": cv})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let groups: Vec<Value> = flags
            .iter()
            .map(|g| {
                json!({
                    "group": g.group,
                    "entries": g.entries.iter().map(|(cn, cv, hn, hv)| json!({"cuda_name": cn, "cuda_value": cv, "hip_name": if hn.is_empty() { Value::Null } else { json!(hn) }, "hip_value": if hn.is_empty() { Value::Null } else { json!(hv) }})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let out = json!({ "hip_versions": versions, "enums": enums, "flags": groups });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "CUDA <-> HIP mapping, tables for HIP {}",
        versions.join(", ")
    );
    println!("('*' marks a pair whose numeric values differ; HIP-only constants get hallucinated CUDA names)");
    for m in maps {
        let differ = m.pairs.iter().filter(|p| p.1 != p.3).count();
        println!(
            "\n{} <-> {}: {} mapped ({differ} with different values), {} CUDA-only, {} HIP-only",
            m.cuda_type,
            m.hip_type,
            m.pairs.len(),
            m.cuda_only.len(),
            m.hip_only.len()
        );
        for (cn, cv, hn, hv) in m.pairs {
            println!(
                "  {} {cn} = {cv}  <->  {hn} = {hv}",
                if cv == hv { ' ' } else { '*' }
            );
        }
        for (cn, cv) in m.cuda_only {
            println!("    {cn} = {cv}  (CUDA-only: not supported on HIP)");
        }
        for (hn, hv, cn, cv) in m.hip_only {
            println!("    {hn} = {hv}  (HIP-only)  ->  {cn} = {cv:#x}");
        }
    }
    for g in flags {
        println!("\nflags {}:", g.group);
        for (cn, cv, hn, hv) in g.entries {
            if hn.is_empty() {
                println!("    {cn} = {cv:#x}  (CUDA-only)");
            } else {
                println!(
                    "  {} {cn} = {cv:#x}  <->  {hn} = {hv:#x}",
                    if cv == hv { ' ' } else { '*' }
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
