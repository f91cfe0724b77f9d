//! The raw NCCL layer without a GPU: the real NCCL (PyPI wheel) loads and answers
//! `ncclGetVersion` and `ncclGetErrorString`; calls that need a device return errors; library
//! search errors name every path tried; the NCCL<->RCCL tables round-trip and agree with both
//! pinned headers (read here as text, independently of codegen).
//!
//! Under `CI=true` a missing NCCL fails the tests instead of skipping them.

use anycuda::nccl::*;
use anycuda::CudaEnum;
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::path::PathBuf;
use std::sync::Once;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Points `ANYCUDA_NCCL_LIBRARY` at the wheel's NCCL unless the caller chose one. Returns
/// false (after printing why) when there is no NCCL and CI does not require one.
fn setup() -> bool {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
        let wheel = root().join(".cache/inputs/nccl/nvidia/nccl/lib/libnccl.so.2");
        anycuda_test::env::default_library("ANYCUDA_NCCL_LIBRARY", &wheel);
    });
    match load(&NCCL_SEARCH) {
        Ok(_) => true,
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true and NCCL does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: NCCL does not load: {e}");
            false
        }
    }
}

fn header(rel: &str) -> String {
    let p = root().join(".cache/inputs").join(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (run bash ci/fetch-inputs.sh)", p.display()))
}

/// `typedef enum { a = 1, b = 2 } NAME;` blocks of a header: NAME -> (enumerator -> value),
/// literal values only.
fn header_enums(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(i) = rest.find("typedef enum") {
        rest = &rest[i + "typedef enum".len()..];
        let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else {
            break;
        };
        let body = &rest[open + 1..close];
        let name: String = rest[close + 1..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut m = BTreeMap::new();
        for line in body.lines() {
            let line = line.split("//").next().unwrap_or("");
            let line = line.split("/*").next().unwrap_or("");
            for part in line.split(',') {
                let Some((k, v)) = part.split_once('=') else {
                    continue;
                };
                let (k, v) = (k.trim(), v.trim());
                if let Ok(v) = v.parse::<i64>() {
                    m.insert(k.to_string(), v);
                }
            }
        }
        out.insert(name, m);
        rest = &rest[close..];
    }
    out
}

#[cfg(feature = "backend-hip")]
const SENTINELS: &[&str] = &[
    "ncclNumResults",
    "ncclNumTypes",
    "ncclNumOps",
    "ncclMaxRedOp",
];

#[test]
fn version_of_the_loaded_nccl_is_the_pinned_one() {
    if !setup() {
        return;
    }
    let l = load(&NCCL_SEARCH).unwrap();
    // The wheel is the pinned header's release, so the library reports the header's code.
    assert_eq!(l.version, NCCL_VERSION_CODE as i32, "{}", l.path);
    assert!(l.path.ends_with("libnccl.so.2"), "{}", l.path);
    assert_eq!(
        version_string(l.version),
        format!("{NCCL_MAJOR}.{NCCL_MINOR}.{NCCL_PATCH}")
    );
    // Every collective and the init/abort path resolved.
    for f in [
        l.table.ncclAllReduce.is_some(),
        l.table.ncclCommInitRankConfig.is_some(),
        l.table.ncclCommAbort.is_some(),
        l.table.ncclCommGetAsyncError.is_some(),
        l.table.ncclGroupStart.is_some(),
    ] {
        assert!(f);
    }
    assert!(l.table.loaded_count() * 10 >= NCCL_FUNCTIONS.len() * 9);
}

#[test]
fn facade_get_version_and_error_strings() {
    if !setup() {
        return;
    }
    if library().is_err() {
        // No backend with a compiler here (no CUDA_PATH): the facade answers ncclNotSupported.
        let mut v = 0;
        assert_eq!(
            // SAFETY: `v` is a local `c_int` the call writes.
            unsafe { ncclGetVersion(&mut v) },
            ncclResult_t::ncclNotSupported
        );
        eprintln!("SKIP: no active backend: {:?}", library().err());
        return;
    }
    let info = library().unwrap().info();
    eprintln!("collective library: {info:?}");
    let mut v = 0;
    // SAFETY: `v` is a local `c_int` the call writes.
    unsafe { ncclGetVersion(&mut v) }.result().unwrap();
    assert_eq!(v, info.version);
    assert!(v >= MIN_VERSION);
    let s = |r: ncclResult_t| {
        // SAFETY: `ncclGetErrorString` returns a static NUL-terminated string for any code.
        unsafe { CStr::from_ptr(ncclGetErrorString(r)) }
            .to_string_lossy()
            .into_owned()
    };
    assert!(
        s(ncclResult_t::ncclInvalidArgument).contains("invalid argument"),
        "{}",
        s(ncclResult_t::ncclInvalidArgument)
    );
    assert!(
        s(ncclResult_t::ncclSuccess).contains("no error"),
        "{}",
        s(ncclResult_t::ncclSuccess)
    );
    // anycuda's own code is answered by anycuda, not passed to the library.
    assert!(
        s(ncclResult_t::ncclNotSupported).starts_with("ncclNotSupported: anycuda"),
        "{}",
        s(ncclResult_t::ncclNotSupported)
    );
    // Error values print their name and description.
    let e = ncclResult_t::ncclRemoteError.result().unwrap_err();
    assert!(e.to_string().starts_with("ncclRemoteError (6)"), "{e}");
    assert_eq!(e.rccl_code(), None);
}

#[test]
fn calls_that_need_a_device_return_errors() {
    if !setup() || library().is_err() {
        return;
    }
    let mut comm: ncclComm_t = std::ptr::null_mut();
    // No GPU here: NCCL reports the CUDA failure instead of creating a communicator.
    // SAFETY: `comm` is a local, writable for one communicator; a NULL device list means devices
    // 0..n-1.
    let r = unsafe { ncclCommInitAll(&mut comm, 1, std::ptr::null()) };
    assert_ne!(r, ncclResult_t::ncclSuccess);
    assert!(comm.is_null());
    // SAFETY: `comm` is a local; zero devices are refused before anything is written.
    let r = unsafe { ncclCommInitAll(&mut comm, 0, std::ptr::null()) };
    assert_ne!(r, ncclResult_t::ncclSuccess);
    assert!(comm.is_null());
    // SAFETY: a NULL `comm` is refused by NCCL's argument check before anything is written.
    let r = unsafe { ncclCommInitAll(std::ptr::null_mut(), 1, std::ptr::null()) };
    assert_ne!(r, ncclResult_t::ncclSuccess);
    // Calls on a null communicator are refused with NCCL's own argument check.
    let mut n = 0;
    // SAFETY: a NULL communicator is refused by NCCL's argument check; `n` is a local.
    let r = unsafe { ncclCommCount(std::ptr::null_mut(), &mut n) };
    assert_eq!(r, ncclResult_t::ncclInvalidArgument);
    let mut async_err = ncclResult_t::ncclSuccess;
    // SAFETY: a NULL communicator is refused by NCCL's argument check; `async_err` is a local.
    let r = unsafe { ncclCommGetAsyncError(std::ptr::null_mut(), &mut async_err) };
    assert_eq!(r, ncclResult_t::ncclInvalidArgument);
}

#[test]
fn missing_library_names_every_path_tried() {
    let s = anycuda_api::loader::Search {
        explicit_env: "ANYCUDA_TEST_NCCL_UNSET_VARIABLE",
        sonames: &["libnccl-anycuda-test-missing.so.2"],
        root_envs: &[],
        default_roots: &["/nonexistent-nccl-root"],
        ..NCCL_SEARCH
    };
    let e = load(&s).unwrap_err().to_string();
    assert!(e.starts_with("NCCL (libnccl) not found; tried: "), "{e}");
    assert!(e.contains("libnccl-anycuda-test-missing.so.2 ("), "{e}");
    assert!(
        e.contains("/nonexistent-nccl-root/lib/libnccl-anycuda-test-missing.so.2"),
        "{e}"
    );
    assert!(
        e.contains("/nonexistent-nccl-root/lib64/libnccl-anycuda-test-missing.so.2"),
        "{e}"
    );
}

#[cfg(feature = "backend-hip")]
#[test]
fn rccl_search_is_reported_with_its_paths() {
    // RCCL is not installed on this machine (Debian trixie's needs glibc >= 2.38); when
    // ANYCUDA_RCCL_LIBRARY points at it, the loader's own reason is reported.
    match anycuda::native::hip::nccl::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => eprintln!("RCCL loaded: {} {}", l.path(), version_string(l.version())),
        Err(e) => {
            let e = e.to_string();
            assert!(e.starts_with("RCCL (librccl) not found; tried: "), "{e}");
            if std::env::var_os("ANYCUDA_RCCL_LIBRARY").is_none() {
                assert!(e.contains("librccl.so.1 ("), "{e}");
                assert!(e.contains("/opt/rocm/lib/librccl.so.1 ("), "{e}");
            }
        }
    }
}

#[test]
fn generated_types_agree_with_nccl_h() {
    let h = header_enums(&header("nccl/nvidia/nccl/include/nccl.h"));
    let check = |name: &str, consts: &[anycuda::ConstInfo]| {
        let want = &h[name];
        assert!(!want.is_empty(), "{name}");
        for (n, v) in want {
            let c = consts
                .iter()
                .find(|c| c.name == n)
                .unwrap_or_else(|| panic!("{name}::{n} missing"));
            assert_eq!(c.value, *v, "{name}::{n}");
        }
    };
    check("ncclResult_t", ncclResult_t::CONSTANTS);
    check("ncclDataType_t", ncclDataType_t::CONSTANTS);
    check("ncclScalarResidence_t", ncclScalarResidence_t::CONSTANTS);
    assert_eq!(
        std::mem::size_of::<ncclUniqueId>(),
        NCCL_UNIQUE_ID_BYTES as usize
    );
}

#[cfg(feature = "backend-hip")]
#[test]
fn rccl_tables_agree_with_both_headers_and_round_trip() {
    use anycuda::native::hip::nccl as t;
    let n = header_enums(&header("nccl/nvidia/nccl/include/nccl.h"));
    let r = header_enums(&header("rccl/usr/include/rccl/rccl.h"));
    for (ty, pairs, nccl_only, rccl_only) in [
        (
            "ncclResult_t",
            t::RESULT_PAIRS,
            t::RESULT_NCCL_ONLY,
            t::RESULT_RCCL_ONLY,
        ),
        (
            "ncclDataType_t",
            t::DATATYPE_PAIRS,
            t::DATATYPE_NCCL_ONLY,
            t::DATATYPE_RCCL_ONLY,
        ),
    ] {
        for (nn, nv, rn, rv) in pairs {
            assert_eq!(n[ty][*nn], *nv, "{ty} {nn} in nccl.h");
            assert_eq!(r[ty][*rn], *rv, "{ty} {rn} in rccl.h");
        }
        // Every value of either header is paired or listed as one-sided.
        for (name, v) in &n[ty] {
            if SENTINELS.contains(&name.as_str()) {
                continue;
            }
            assert!(
                pairs.iter().any(|p| p.1 == *v) || nccl_only.iter().any(|p| p.1 == *v),
                "{ty} {name}"
            );
        }
        for (name, v) in &r[ty] {
            if SENTINELS.contains(&name.as_str()) {
                continue;
            }
            assert!(
                pairs.iter().any(|p| p.3 == *v) || rccl_only.iter().any(|p| p.1 == *v),
                "{ty} {name}"
            );
        }
    }
    // The sentinel collision: RCCL 2.13's ncclNumResults is NCCL's ncclInProgress.
    assert_eq!(
        r["ncclResult_t"]["ncclNumResults"],
        n["ncclResult_t"]["ncclInProgress"]
    );
    assert!(t::RESULT_NCCL_ONLY.iter().any(|p| p.0 == "ncclInProgress"));
    // Round trips.
    for (_, nv, _, rv) in t::RESULT_PAIRS {
        let nr = ncclResult_t(*nv as _);
        assert_eq!(t::result_to_rccl(nr), Some(*rv as i32));
        assert_eq!(t::result_from_rccl(ncclResult_t(*rv as _)), nr);
    }
    for (_, nv) in t::RESULT_NCCL_ONLY {
        assert_eq!(t::result_to_rccl(ncclResult_t(*nv as _)), None);
    }
    for (_, nv, _, rv) in t::DATATYPE_PAIRS {
        assert_eq!(
            t::datatype_to_rccl(ncclDataType_t(*nv as _)),
            Some(*rv as i32)
        );
    }
    for (_, nv) in t::DATATYPE_NCCL_ONLY {
        assert_eq!(t::datatype_to_rccl(ncclDataType_t(*nv as _)), None);
    }
    assert_eq!(t::datatype_to_rccl(ncclDataType_t::ncclFloat8e4m3), None);
    for (_, nv, _, rv) in t::REDOP_PAIRS {
        assert_eq!(t::redop_to_rccl(ncclRedOp_t(*nv as _)), Some(*rv as i32));
    }
    // A custom op handle (from ncclRedOpCreatePreMulSum) passes unchanged.
    assert_eq!(t::redop_to_rccl(ncclRedOp_t(17)), Some(17));
    // A code no table knows stays recoverable; anycuda's own passes unchanged.
    let u = t::result_from_rccl(ncclResult_t(1234));
    assert_eq!(u.0 as i64, anycuda::hallucinated::UNKNOWN_BASE + 1234);
    assert_eq!(u.result().unwrap_err().rccl_code(), Some(1234));
    assert!(u
        .result()
        .unwrap_err()
        .to_string()
        .contains("RCCL code 1234"));
    assert_eq!(
        t::result_from_rccl(ncclResult_t::ncclNotSupported),
        ncclResult_t::ncclNotSupported
    );
    // Every constant of ncclResult_t has a distinct value (hallucinated ones included).
    let mut vals: Vec<i64> = ncclResult_t::CONSTANTS.iter().map(|c| c.value).collect();
    vals.sort();
    vals.dedup();
    assert_eq!(vals.len(), ncclResult_t::CONSTANTS.len());
}

#[test]
fn unique_id_serialises_as_bytes_and_hex() {
    let mut id = ncclUniqueId { internal: [0; 128] };
    for (i, c) in id.internal.iter_mut().enumerate() {
        *c = (i as u8).wrapping_mul(37) as std::ffi::c_char;
    }
    let hex = id.to_hex();
    assert_eq!(hex.len(), 256);
    assert_eq!(ncclUniqueId::from_hex(&hex).unwrap().internal, id.internal);
    assert_eq!(
        ncclUniqueId::from_bytes(&id.to_bytes()).internal,
        id.internal
    );
    assert!(ncclUniqueId::from_hex(&hex[..254]).is_none());
    assert!(ncclUniqueId::from_hex(&format!("zz{}", &hex[2..])).is_none());
    assert_eq!(
        ncclUniqueId::from_hex(&hex.to_uppercase())
            .unwrap()
            .internal,
        id.internal
    );
}

/// `from_hex` takes exactly 256 hex digits: `u8::from_str_radix` would take a `+` sign, and
/// trimming would take whitespace; neither (nor `-`, `0x`, non-ASCII, other lengths) may pass.
#[test]
fn unique_id_from_hex_takes_only_hex_digits() {
    let hex = "0f".repeat(128);
    assert!(ncclUniqueId::from_hex(&hex).is_some());
    let bad = |s: String| assert!(ncclUniqueId::from_hex(&s).is_none(), "accepted {s:?}");
    for at in [0, 1, 2, 101, 254, 255] {
        for c in ['+', '-', ' ', '\t', '\n', 'g', 'x', '\0'] {
            let mut b = hex.clone().into_bytes();
            b[at] = c as u8;
            bad(String::from_utf8(b).unwrap());
        }
    }
    // Sign in front of a pair ("+f" parses with from_str_radix).
    bad(format!("+f{}", &hex[2..]));
    bad(format!("-0{}", &hex[2..]));
    bad(format!("0x{}", &hex[2..]));
    // Whitespace around an otherwise valid id.
    bad(format!(" {hex}"));
    bad(format!("{hex}\n"));
    bad(format!("{} ", &hex[..255]));
    // Non-ASCII: a two-byte character in place of two digits, and the full-width digit.
    bad(format!("\u{e9}{}", &hex[2..]));
    bad(format!("\u{ff10}{}", &hex[3..]));
    bad(format!("{}\u{663}", &hex[..254]));
    // Wrong lengths.
    for n in [0, 1, 2, 128, 254, 255, 257, 258, 512] {
        bad("a".repeat(n));
    }
}

/// RCCL itself, live, with no GPU: ci/nccl-rccl-test.sh runs this test binary through the
/// private glibc loader of Debian trixie's ROCm (ci/rocm.sh 5.7) with `ANYCUDA_EXPECT_RCCL=1`
/// and `ANYCUDA_RCCL_LIBRARY` set (a step of `.ci/run`). Elsewhere it is ignored.
#[cfg(feature = "backend-hip")]
#[test]
#[ignore = "RCCL needs glibc >= 2.38: bash ci/nccl-rccl-test.sh runs it"]
fn rccl_live_version_errors_and_translation() {
    assert_eq!(
        std::env::var("ANYCUDA_EXPECT_RCCL").as_deref(),
        Ok("1"),
        "run through bash ci/nccl-rccl-test.sh"
    );
    use anycuda::native::hip::nccl::{library, CollectiveLibrary};
    use anycuda::native::hip::Platform;
    let l: &CollectiveLibrary = library(Platform::Amd).expect("RCCL loads");
    assert!(l.translates());
    assert_eq!(l.name(), "RCCL");
    // The pinned rccl.h says 2.13.4; the library reports the same.
    let h = header("rccl/usr/include/rccl/rccl.h");
    let def = |k: &str| -> i32 {
        h.lines()
            .find_map(|x| {
                x.trim()
                    .strip_prefix(&format!("#define {k} "))
                    .map(|v| v.trim().parse().unwrap())
            })
            .unwrap()
    };
    assert_eq!(
        l.version(),
        nccl_version(def("NCCL_MAJOR"), def("NCCL_MINOR"), def("NCCL_PATCH"))
    );
    let s = |r: ncclResult_t| {
        // SAFETY: RCCL's `ncclGetErrorString` returns a static NUL-terminated string for any code.
        unsafe { CStr::from_ptr(l.ncclGetErrorString(r)) }
            .to_string_lossy()
            .into_owned()
    };
    // Paired codes: RCCL's own text.
    assert!(
        s(ncclResult_t::ncclInvalidUsage).contains("invalid usage"),
        "{}",
        s(ncclResult_t::ncclInvalidUsage)
    );
    // NCCL-only codes never reach RCCL (its 7 is ncclNumResults): anycuda answers.
    assert!(
        s(ncclResult_t::ncclInProgress).starts_with("ncclInProgress"),
        "{}",
        s(ncclResult_t::ncclInProgress)
    );
    // An entry point RCCL 2.13 lacks answers ncclNotSupported.
    let mut comm: ncclComm_t = std::ptr::null_mut();
    let mut cfg = ncclConfig_t::initializer_v2_14();
    let id = ncclUniqueId { internal: [0; 128] };
    assert_eq!(
        // SAFETY: `comm` and `cfg` are locals, writable for what the call stores; the config comes
        // from the v2.14 initializer.
        unsafe { l.ncclCommInitRankConfig(&mut comm, 1, id, 0, &mut cfg) },
        ncclResult_t::ncclNotSupported
    );
    // A data type RCCL cannot express is refused before the call.
    // SAFETY: the data type RCCL cannot express is refused by the translation before the library is
    // called, so the NULL buffers are never touched.
    let r = unsafe {
        l.ncclAllReduce(
            std::ptr::null(),
            std::ptr::null_mut(),
            1,
            ncclDataType_t::ncclFloat8e5m2,
            ncclRedOp_t::ncclSum,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, ncclResult_t::ncclNotSupported);
    let mut v = 0;
    // SAFETY: `v` is a local `c_int` the call writes.
    unsafe { l.ncclGetVersion(&mut v) }.result().unwrap();
    assert_eq!(v, l.version());
    eprintln!(
        "RCCL {} at {} ({} of {} entry points)",
        version_string(v),
        l.path(),
        l.table().loaded_count(),
        NCCL_FUNCTIONS.len()
    );
}
