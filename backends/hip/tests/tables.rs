//! The generated CUDA↔HIP conversion tables, checked against themselves, against the invented
//! value ranges, and against AMD's own conversion functions in Debian's HIP 5.2.3 headers.

use anycuda_api::hallucinated::{classify, for_unknown, Invented};
use anycuda_api::{driver, nvrtc, runtime, CudaEnum};
use anycuda_hip::conv::{tables_for, ConvTables, EnumMap, HIP_VERSIONS, NVIDIA_PLATFORM, TABLES};
use std::collections::BTreeMap;
use std::path::Path;

const HIP_5_2_3: i32 = 50221153;

/// Each distinct table once.
fn distinct_tables() -> Vec<&'static ConvTables> {
    let mut v: Vec<&'static ConvTables> = Vec::new();
    for t in TABLES {
        if !v.iter().any(|x| std::ptr::eq(*x, *t)) {
            v.push(t);
        }
    }
    v
}

fn newest() -> &'static ConvTables {
    TABLES[TABLES.len() - 1]
}

#[test]
fn versions_are_ascending_and_complete() {
    assert_eq!(TABLES.len(), HIP_VERSIONS.len());
    assert_eq!(
        HIP_VERSIONS.len(),
        12,
        "HIP 5.2.3 plus the 11 cubecl versions"
    );
    assert_eq!(HIP_VERSIONS[0], HIP_5_2_3);
    assert!(HIP_VERSIONS.windows(2).all(|w| w[0] < w[1]));
    for (i, t) in TABLES.iter().enumerate() {
        assert!(t.hip_versions.contains(&HIP_VERSIONS[i]));
    }
}

#[test]
fn maps_are_sorted_and_unique() {
    for t in distinct_tables() {
        for m in t.all {
            assert!(
                m.to_hip.windows(2).all(|w| w[0].0 < w[1].0),
                "{} to_hip",
                m.cuda_type
            );
            assert!(
                m.to_cuda.windows(2).all(|w| w[0].0 < w[1].0),
                "{} to_cuda",
                m.cuda_type
            );
        }
    }
}

#[test]
fn every_map_round_trips_in_every_version() {
    for t in distinct_tables() {
        for m in t.all {
            for &(cname, cv, hname, hv) in m.pairs {
                let to_hip = m.to_hip(cv);
                assert!(
                    to_hip.is_some(),
                    "{}::{cname} has no HIP value ({:?})",
                    m.cuda_type,
                    t.hip_versions
                );
                // CUDA aliases share a value; the first pair of that value wins.
                let back = m.to_cuda(to_hip.unwrap_or_default());
                assert_eq!(
                    back,
                    Some(cv),
                    "{}::{cname} -> HIP -> CUDA ({:?})",
                    m.cuda_type,
                    t.hip_versions
                );
                // HIP -> CUDA -> HIP gives the HIP value back.
                let c = m
                    .lookup_cuda(hv)
                    .unwrap_or_else(|| panic!("{}: {hname} unknown", m.hip_type));
                assert_eq!(classify(c), None, "{hname} maps to a real CUDA value");
                assert_eq!(
                    m.to_hip(c),
                    Some(hv),
                    "{hname} -> CUDA -> HIP ({:?})",
                    t.hip_versions
                );
            }
            for &(cname, cv) in m.cuda_only {
                assert_eq!(m.to_hip(cv), None, "{}::{cname} is CUDA-only", m.cuda_type);
            }
        }
    }
}

#[test]
fn hallucinated_values_recover_their_hip_value() {
    let newest = newest();
    for t in distinct_tables() {
        for m in t.all {
            for &(hname, hv, cname, cv) in m.hip_only {
                let Some(Invented::Named(named)) = classify(cv) else {
                    panic!(
                        "{}::{cname} = {cv} is not a named invented value",
                        m.cuda_type
                    );
                };
                // The invented value carries the newest HIP value of that name.
                let newest_map = newest
                    .all
                    .iter()
                    .find(|n| n.cuda_type == m.cuda_type)
                    .expect("same pairs");
                if let Some(nv) = newest_map.hip_value(hname) {
                    assert_eq!(named, nv, "{hname}");
                }
                if std::ptr::eq(t, newest) {
                    assert_eq!(named, hv, "{hname}");
                }
                assert_eq!(m.lookup_cuda(hv), Some(cv), "{hname} -> {cname}");
                assert_eq!(m.to_hip(cv), Some(hv), "{cname} -> {hname}");
                let name = lookup_name(m.cuda_type, cv);
                assert_eq!(
                    name.as_deref(),
                    Some(cname),
                    "{cname} is a constant of {}",
                    m.cuda_type
                );
            }
        }
    }
}

/// The CUDA constant name of a value, for the three result types (where the names are public).
fn lookup_name(ty: &str, v: i64) -> Option<String> {
    let n = match ty {
        "CUresult" => driver::CUresult::from_i64(v).name(),
        "cudaError_t" => runtime::cudaError_t::from_i64(v).name(),
        "nvrtcResult" => nvrtc::nvrtcResult::from_i64(v).name(),
        _ => {
            return consts_of(ty)
                .and_then(|c| c.iter().find(|c| c.value == v).map(|c| c.name.to_string()))
        }
    };
    n.map(str::to_string)
}

fn consts_of(ty: &str) -> Option<&'static [anycuda_api::ConstInfo]> {
    driver::ENUM_CONSTANTS
        .iter()
        .chain(runtime::ENUM_CONSTANTS)
        .chain(nvrtc::ENUM_CONSTANTS)
        .find(|(t, _)| *t == ty)
        .map(|(_, c)| *c)
}

#[test]
fn unknown_hip_codes_are_kept() {
    for t in distinct_tables() {
        for m in t.all {
            let mut raw = 0x00ab_cdef;
            while m.lookup_cuda(raw).is_some() {
                raw += 1;
            }
            assert_eq!(m.lookup_cuda(raw), None);
            let cv = m.to_cuda(raw).expect("representable");
            assert_eq!(Some(cv), for_unknown(raw));
            assert_eq!(classify(cv), Some(Invented::Unknown(raw)));
            assert_eq!(
                m.to_hip(cv),
                Some(raw),
                "the raw code goes back to HIP unchanged"
            );
            assert_eq!(
                m.to_cuda(-5),
                None,
                "negative codes are the caller's fallback"
            );
        }
    }
}

#[test]
fn tables_for_picks_the_right_version() {
    let oldest = TABLES[0];
    assert!(std::ptr::eq(tables_for(HIP_5_2_3), oldest));
    assert!(oldest.hip_versions.contains(&HIP_5_2_3));
    // HIP's NVIDIA platform reports the CUDA version: its own tables.
    assert!(std::ptr::eq(tables_for(13000), NVIDIA_PLATFORM));
    assert!(std::ptr::eq(tables_for(12080), NVIDIA_PLATFORM));
    assert!(std::ptr::eq(tables_for(0), NVIDIA_PLATFORM));
    assert!(!std::ptr::eq(NVIDIA_PLATFORM, oldest));
    // Older than every supported version: the oldest.
    assert!(std::ptr::eq(tables_for(40_000_000), oldest));
    // Newer than all: the newest.
    assert!(std::ptr::eq(tables_for(i32::MAX), newest()));
    for (i, &v) in HIP_VERSIONS.iter().enumerate() {
        assert!(std::ptr::eq(tables_for(v), TABLES[i]), "{v}");
        assert!(std::ptr::eq(tables_for(v + 1), TABLES[i]), "{v} + 1");
    }
}

fn map<'a>(t: &'a ConvTables, ty: &str) -> &'a EnumMap {
    t.all
        .iter()
        .find(|m| m.cuda_type == ty)
        .unwrap_or_else(|| panic!("no map for {ty}"))
}

#[test]
fn design_facts_hold() {
    let old = tables_for(HIP_5_2_3);
    let n = newest();
    // hipErrorInvalidTexture is 912 (HIP 7.x), which CUDA uses for INVALID_CLUSTER_SIZE; it maps
    // to the runtime's invalid-texture code (18). HIP 5.2.3 has no such code: CUDA-only there.
    let tex = runtime::cudaError_t::cudaErrorInvalidTexture.0 as i64;
    assert_eq!(runtime::cudaError_t::cudaErrorInvalidClusterSize.0, 912);
    let e = map(n, "cudaError_t");
    assert_eq!(e.hip_value("hipErrorInvalidTexture"), Some(912));
    assert_eq!(e.lookup_cuda(912), Some(tex));
    assert_eq!(e.to_hip(tex), Some(912));
    assert_ne!(e.to_hip(912), Some(912), "CUDA's 912 is not HIP's 912");
    let e_old = map(old, "cudaError_t");
    assert_eq!(e_old.hip_value("hipErrorInvalidTexture"), None);
    assert_eq!(e_old.to_hip(tex), None);
    // The launch `extra` END marker: CUDA 0, HIP 3 (buffer pointer/size are 1/2 on both).
    for t in distinct_tables() {
        let lp = t.cu_launch_params;
        assert_eq!(
            lp.value_to_hip(driver::CU_LAUNCH_PARAM_END_AS_INT as i64),
            Some(3)
        );
        assert_eq!(lp.value_to_cuda(3), Some(0));
        assert_eq!(lp.value_to_hip(1), Some(1));
        assert_eq!(lp.value_to_hip(2), Some(2));
    }
    // Nearly every mapped device attribute has a different value.
    for t in distinct_tables() {
        let a = map(t, "CUdevice_attribute");
        let differ = a.pairs.iter().filter(|p| p.1 != p.3).count();
        assert!(
            a.pairs.len() >= 70,
            "{} device attributes mapped",
            a.pairs.len()
        );
        assert!(
            differ + 2 >= a.pairs.len(),
            "{differ} of {} differ",
            a.pairs.len()
        );
    }
    // Six mapped error codes differ: the runtime ones around 911/912, cluster size, and (since
    // the CUDA 13.5 headers) stream-detached, in both APIs.
    let differ: Vec<&str> = ["CUresult", "cudaError_t"]
        .iter()
        .flat_map(|ty| map(n, ty).pairs.iter().filter(|p| p.1 != p.3).map(|p| p.0))
        .collect();
    assert_eq!(differ.len(), 6, "{differ:?}");
    assert!(differ.contains(&"CUDA_ERROR_STREAM_DETACHED"), "{differ:?}");
    // A flag whose value HIP 5.2 got wrong (0x16) but newer HIP fixed (0x10).
    assert_eq!(
        old.cu_ctx_flags.hip_of("CU_CTX_LMEM_RESIZE_TO_MAX"),
        Some(0x16)
    );
    assert_eq!(
        n.cu_ctx_flags.hip_of("CU_CTX_LMEM_RESIZE_TO_MAX"),
        Some(0x10)
    );
}

#[test]
fn flag_groups_round_trip() {
    for t in distinct_tables() {
        for f in t.all_flags {
            for &(cname, cv, hname, hv) in f.entries {
                if hname.is_empty() || cv == 0 {
                    continue;
                }
                if f.group.ends_with("launch_params") {
                    assert_eq!(f.value_to_hip(cv), Some(hv), "{cname}");
                    continue;
                }
                assert_eq!(
                    f.bits_to_hip(cv as u64),
                    Ok(hv as u64),
                    "{}: {cname}",
                    f.group
                );
                assert_eq!(
                    f.bits_to_cuda(hv as u64),
                    Ok(cv as u64),
                    "{}: {hname}",
                    f.group
                );
            }
            let all: u64 = f
                .entries
                .iter()
                .filter(|e| !e.2.is_empty())
                .fold(0, |a, e| a | e.1 as u64);
            if !f.group.ends_with("launch_params") {
                let unmapped = 1u64 << 40;
                assert_eq!(f.bits_to_hip(all | unmapped), Err(unmapped), "{}", f.group);
            }
        }
    }
}

// ---- AMD's own conversion functions (Debian libamdhip64-dev 5.2.3, hip/nvidia_detail) ----

/// `(from, to)` pairs of a `switch` converter: consecutive `case X:` labels followed by
/// `return Y;` give (X, Y) each; `default:` is skipped.
fn switch_pairs(text: &str, function: &str) -> Vec<(String, String)> {
    let start = text
        .find(&format!("{function}("))
        .unwrap_or_else(|| panic!("no {function}"));
    let body = &text[start..];
    let end = body.find("\n}\n").unwrap_or(body.len());
    let body = &body[..end];
    let mut out = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let toks: Vec<&str> = body
        .split(|c: char| c.is_whitespace() || c == ':' || c == ';' || c == '(' || c == ')')
        .filter(|s| !s.is_empty())
        .collect();
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            "case" if i + 1 < toks.len() => {
                labels.push(toks[i + 1].to_string());
                i += 2;
            }
            "default" => {
                labels.clear();
                i += 1;
            }
            "return" if i + 1 < toks.len() => {
                for l in labels.drain(..) {
                    out.push((l, toks[i + 1].to_string()));
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    out
}

fn deviations() -> BTreeMap<(String, String, String), String> {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../codegen/amd-conversion-deviations.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, reason) = line
            .split_once('|')
            .unwrap_or_else(|| panic!("line {}: no reason", i + 1));
        let f: Vec<&str> = head.split_whitespace().collect();
        assert_eq!(
            f.len(),
            3,
            "line {}: `<function> <from> <to> | reason`",
            i + 1
        );
        assert!(!reason.trim().is_empty(), "line {}: empty reason", i + 1);
        m.insert(
            (f[0].to_string(), f[1].to_string(), f[2].to_string()),
            reason.trim().to_string(),
        );
    }
    m
}

fn header(path: &str) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{path}: {e} (install libamdhip64-dev: bash ci/fetch-inputs.sh)");
            }
            eprintln!("SKIP: {path} is missing ({e}); run `bash ci/fetch-inputs.sh` to check AMD's converters");
            None
        }
    }
}

fn cuda_value(ty: &str, name: &str) -> Option<i64> {
    consts_of(ty)?
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.value)
}

#[test]
fn amd_conversion_functions_are_honoured_or_listed() {
    let Some(api) = header("/usr/include/hip/nvidia_detail/nvidia_hip_runtime_api.h") else {
        return;
    };
    let Some(rtc) = header("/usr/include/hip/nvidia_detail/nvidia_hiprtc.h") else {
        return;
    };
    let t = tables_for(HIP_5_2_3);
    let dev = deviations();
    // (function, header text, CUDA type, direction is CUDA -> HIP)
    let converters = [
        ("hipCUDAErrorTohipError", &api, "cudaError_t", true),
        ("hipCUResultTohipError", &api, "CUresult", true),
        ("hipErrorToCudaError", &api, "cudaError_t", false),
        ("nvrtcResultTohiprtcResult", &rtc, "nvrtcResult", true),
        ("hiprtcResultTonvrtcResult", &rtc, "nvrtcResult", false),
    ];
    let mut failures = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    let mut checked = 0;
    for (func, text, ty, to_hip) in converters {
        let m = map(t, ty);
        let pairs = switch_pairs(text, func);
        assert!(
            pairs.len() >= 10,
            "{func}: parsed only {} cases",
            pairs.len()
        );
        for (from, to) in pairs {
            checked += 1;
            let (cname, hname) = if to_hip { (&from, &to) } else { (&to, &from) };
            let cv = cuda_value(ty, cname);
            let hv = m.hip_value(hname);
            let honoured = match (cv, hv) {
                (Some(cv), Some(hv)) if to_hip => m.to_hip(cv) == Some(hv),
                (Some(cv), Some(hv)) => m.lookup_cuda(hv) == Some(cv),
                _ => false,
            };
            let key = (func.to_string(), from.clone(), to.clone());
            match (honoured, dev.contains_key(&key)) {
                (true, true) => failures.push(format!("{func}: {from} -> {to} is honoured now; drop it from amd-conversion-deviations.txt")),
                (true, false) => {}
                (false, true) => {
                    used.insert(key);
                }
                (false, false) => failures.push(format!(
                    "{func}: {from} -> {to} not honoured by the HIP 5.2.3 {ty} table (CUDA value {cv:?}, HIP value {hv:?}, table gives {:?}); fix the mapping or list it with a reason in codegen/amd-conversion-deviations.txt",
                    if to_hip { cv.and_then(|c| m.to_hip(c)) } else { hv.and_then(|h| m.lookup_cuda(h)) }
                )),
            }
        }
    }
    for k in dev.keys() {
        if !used.contains(k) && !failures.iter().any(|f| f.contains(&k.1)) {
            failures.push(format!(
                "amd-conversion-deviations.txt lists {k:?}, which AMD's headers no longer contain"
            ));
        }
    }
    assert!(checked > 150, "parsed only {checked} AMD pairs");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn deviation_file_parses_even_without_headers() {
    for ((func, from, to), reason) in deviations() {
        assert!(func.contains("To"), "{func} is not a converter name");
        assert!(!from.is_empty() && !to.is_empty() && reason.len() > 10);
    }
}

// ---- HIP's NVIDIA platform (hip/nvidia_detail over CUDA; hipRuntimeGetVersion = 13000) ----

/// The CUDA value of an enumerator of any CUDA enum (first type that has the name).
fn any_cuda_value(name: &str) -> Option<i64> {
    driver::ENUM_CONSTANTS
        .iter()
        .chain(runtime::ENUM_CONSTANTS)
        .chain(nvrtc::ENUM_CONSTANTS)
        .flat_map(|(_, c)| c.iter())
        .find(|c| c.name == name)
        .map(|c| c.value)
}

#[test]
fn nvidia_platform_launch_end_is_cudas() {
    let t = tables_for(13000);
    assert!(t.hip_versions.is_empty(), "selected by no HIP_VERSION");
    let lp = t.cu_launch_params;
    let end = driver::CU_LAUNCH_PARAM_END_AS_INT as i64;
    assert_eq!(end, 0);
    assert_eq!(lp.hip_of("CU_LAUNCH_PARAM_END"), Some(0), "not AMD's 3");
    assert_eq!(lp.value_to_hip(end), Some(0));
    assert_eq!(lp.value_to_cuda(0), Some(end));
    assert_eq!(lp.value_to_cuda(3), None, "3 means nothing there");
    assert_eq!(lp.value_to_hip(1), Some(1));
    assert_eq!(lp.value_to_hip(2), Some(2));
    // AMD's tables keep 3.
    assert_eq!(
        tables_for(HIP_5_2_3).cu_launch_params.value_to_hip(end),
        Some(3)
    );
    // CU_CTX_LMEM_RESIZE_TO_MAX: AMD 5.2.3 says 0x16, NVIDIA's header is CUDA's 0x10.
    assert_eq!(
        t.cu_ctx_flags.hip_of("CU_CTX_LMEM_RESIZE_TO_MAX"),
        Some(0x10)
    );
}

#[test]
fn nvidia_platform_aliased_enums_are_cudas() {
    let t = NVIDIA_PLATFORM;
    let amd = tables_for(HIP_5_2_3);
    for ty in [
        "cudaDeviceP2PAttr",
        "cudaGraphNodeType",
        "cudaSurfaceBoundaryMode",
    ] {
        let m = map(t, ty);
        assert!(!m.pairs.is_empty(), "{ty}");
        for &(cname, cv, hname, hv) in m.pairs {
            assert_eq!(cv, hv, "{ty}: {cname} <-> {hname}");
            assert_eq!(m.to_hip(cv), Some(cv), "{ty}: {cname}");
        }
        let a = map(amd, ty);
        assert!(
            a.pairs.iter().any(|p| p.1 != p.3),
            "{ty}: AMD's values differ somewhere (else this test proves nothing)"
        );
    }
    let p2p = map(t, "cudaDeviceP2PAttr");
    let v = runtime::cudaDeviceP2PAttr::cudaDevP2PAttrAccessSupported.0 as i64;
    assert_eq!(p2p.hip_value("hipDevP2PAttrAccessSupported"), Some(v));
    let g = map(t, "CUgraphNodeType");
    let host = driver::CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST.0 as i64;
    assert_eq!(g.hip_value("hipGraphNodeTypeHost"), Some(host));
    assert_eq!(g.to_hip(host), Some(host));
    // hipMemoryAdvise is redeclared there counting from 0 (AMD and CUDA start at 1).
    let adv = map(t, "cudaMemoryAdvise");
    assert_eq!(adv.hip_value("hipMemAdviseSetReadMostly"), Some(0));
    assert_eq!(
        adv.to_hip(runtime::cudaMemoryAdvise::cudaMemAdviseSetReadMostly.0 as i64),
        Some(0)
    );
}

#[test]
fn nvidia_platform_keeps_hips_own_enums() {
    let t = NVIDIA_PLATFORM;
    let amd = tables_for(HIP_5_2_3);
    for ty in [
        "CUresult",
        "cudaError_t",
        "CUdevice_attribute",
        "cudaDeviceAttr",
        "nvrtcResult",
    ] {
        let (n, a) = (map(t, ty), map(amd, ty));
        assert_eq!(n.to_hip, a.to_hip, "{ty}");
        assert_eq!(n.to_cuda, a.to_cuda, "{ty}");
        assert_eq!(n.pairs, a.pairs, "{ty}");
        assert_eq!(n.hip_only, a.hip_only, "{ty}");
    }
    assert_eq!(t.all.len(), amd.all.len());
    assert_eq!(t.all_flags.len(), amd.all_flags.len());
}

#[test]
fn nvidia_platform_maps_round_trip() {
    let t = NVIDIA_PLATFORM;
    for m in t.all {
        assert!(
            m.to_hip.windows(2).all(|w| w[0].0 < w[1].0),
            "{}",
            m.cuda_type
        );
        assert!(
            m.to_cuda.windows(2).all(|w| w[0].0 < w[1].0),
            "{}",
            m.cuda_type
        );
        for &(cname, cv, hname, hv) in m.pairs {
            let h = m.to_hip(cv);
            assert!(h.is_some(), "{}::{cname}", m.cuda_type);
            assert_eq!(
                m.to_cuda(h.unwrap_or_default()),
                Some(cv),
                "{}::{cname}",
                m.cuda_type
            );
            assert_eq!(
                m.lookup_cuda(hv).and_then(|c| m.to_hip(c)),
                Some(hv),
                "{hname}"
            );
        }
        for &(hname, hv, cname, cv) in m.hip_only {
            assert!(matches!(classify(cv), Some(Invented::Named(_))), "{cname}");
            assert_eq!(m.lookup_cuda(hv), Some(cv), "{hname} -> {cname}");
            assert_eq!(m.to_hip(cv), Some(hv), "{cname} -> {hname}");
        }
        for &(cname, cv) in m.cuda_only {
            assert_eq!(m.to_hip(cv), None, "{}::{cname}", m.cuda_type);
        }
    }
    for f in t.all_flags {
        for &(cname, cv, hname, hv) in f.entries {
            if hname.is_empty() || cv == 0 {
                continue;
            }
            if f.group.ends_with("launch_params") {
                assert_eq!(f.value_to_hip(cv), Some(hv), "{cname}");
                assert_eq!(f.value_to_cuda(hv), Some(cv), "{hname}");
                continue;
            }
            assert_eq!(
                f.bits_to_hip(cv as u64),
                Ok(hv as u64),
                "{}: {cname}",
                f.group
            );
            assert_eq!(
                f.bits_to_cuda(hv as u64),
                Ok(cv as u64),
                "{}: {hname}",
                f.group
            );
        }
    }
}

/// `#define hipX Y` of a header (comments removed, `\`-continued lines joined).
fn hip_defines(text: &str) -> Vec<(String, String)> {
    let joined = text.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut it = line.split_whitespace();
        if it.next() != Some("#define") {
            continue;
        }
        let (Some(name), Some(rhs), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if name.to_ascii_lowercase().starts_with("hip") && !name.contains('(') {
            out.push((name.to_string(), rhs.to_string()));
        }
    }
    out
}

#[test]
fn nvidia_platform_honours_the_installed_header() {
    let Some(api) = header("/usr/include/hip/nvidia_detail/nvidia_hip_runtime_api.h") else {
        return;
    };
    let t = tables_for(13000);
    let mut checked = 0;
    let mut failures = Vec::new();
    for (hip, cuda) in hip_defines(&api) {
        // The CUDA side: an enumerator of a CUDA enum, or a launch marker / flag by name.
        let cv = any_cuda_value(&cuda).or_else(|| {
            t.all_flags
                .iter()
                .flat_map(|f| f.entries.iter())
                .find(|e| e.0 == cuda)
                .map(|e| e.1)
        });
        let Some(cv) = cv else { continue };
        for m in t.all {
            let Some(hv) = m.hip_value(&hip) else {
                continue;
            };
            checked += 1;
            if hv != cv {
                failures.push(format!(
                    "{}: {hip} is {hv}, but {cuda} is {cv}",
                    m.cuda_type
                ));
            }
            let own = consts_of(m.cuda_type).is_some_and(|c| c.iter().any(|c| c.name == cuda));
            if own && (m.to_hip(cv) != Some(hv) || m.lookup_cuda(hv) != Some(cv)) {
                failures.push(format!(
                    "{}: {cuda} <-> {hip} does not round trip",
                    m.cuda_type
                ));
            }
        }
        for f in t.all_flags {
            for &(cname, fcv, hname, hv) in f.entries {
                if hname != hip {
                    continue;
                }
                checked += 1;
                if hv != cv {
                    failures.push(format!("{}: {hip} is {hv}, but {cuda} is {cv}", f.group));
                }
                if cname == cuda && fcv != hv {
                    failures.push(format!("{}: {cname} -> {hv}", f.group));
                }
            }
        }
    }
    assert!(checked >= 80, "checked only {checked} defines");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `HipBackend::cu`/`rt` answer HIP's 0 with CUDA's success without a table lookup (the hot
/// path of every call): that is only right while success is 0 on both sides in every table.
#[test]
fn success_is_zero_on_both_sides_in_every_table() {
    use anycuda_hip::conv::{NVIDIA_PLATFORM, TABLES};
    for t in TABLES.iter().copied().chain([NVIDIA_PLATFORM]) {
        for m in [t.CUresult, t.cudaError_t, t.nvrtcResult] {
            assert_eq!(
                m.to_cuda(0),
                Some(0),
                "{} in {:?}",
                m.cuda_type,
                t.hip_versions
            );
            assert_eq!(
                m.to_hip(0),
                Some(0),
                "{} in {:?}",
                m.cuda_type,
                t.hip_versions
            );
        }
    }
}
