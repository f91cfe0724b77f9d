//! Invariants of the generated enum newtypes and of the constants anycuda invents.
//!
//! These run against the committed generated files: every enum of `driver`, `runtime` and
//! `nvrtc` (through their `ENUM_CONSTANTS` lists) and, per type, the result enums plus a few
//! more that cross the HIP boundary.

use anycuda_api::hallucinated::{self, Invented};
use anycuda_api::{driver, nvrtc, runtime, ConstInfo, CudaEnum, Origin};
use std::collections::{BTreeSet, HashMap, HashSet};

fn all_tables() -> Vec<(&'static str, &'static [ConstInfo])> {
    let mut v = Vec::new();
    v.extend_from_slice(driver::ENUM_CONSTANTS);
    v.extend_from_slice(runtime::ENUM_CONSTANTS);
    v.extend_from_slice(nvrtc::ENUM_CONSTANTS);
    v
}

#[test]
fn every_enum_is_listed_and_named() {
    let tables = all_tables();
    assert!(tables.len() > 150, "only {} enums listed", tables.len());
    for (ty, consts) in &tables {
        assert!(!consts.is_empty(), "{ty} has no constants");
        let mut names = HashSet::new();
        for c in consts.iter() {
            assert!(!c.name.is_empty(), "{ty}: empty constant name");
            assert!(
                names.insert(c.name),
                "{ty}: duplicate constant name {}",
                c.name
            );
        }
    }
    for ty in [
        "CUresult",
        "CUdevice_attribute",
        "cudaError_t",
        "cudaMemcpyKind",
        "nvrtcResult",
    ] {
        assert!(
            tables.iter().any(|(t, _)| *t == ty),
            "{ty} is not generated"
        );
    }
}

#[test]
fn invented_constants_are_in_their_ranges_and_distinct() {
    for (ty, consts) in all_tables() {
        let real: BTreeSet<i64> = consts
            .iter()
            .filter(|c| c.origin == Origin::Cuda)
            .map(|c| c.value)
            .collect();
        // Where values are invented (or come back from HIP), no real value may sit in a
        // reserved range, or a classified value would be ambiguous. (Flag enums such as
        // CUstreamWaitValue_flags legitimately use high bits; they never carry invented values.)
        let carries_invented = consts.iter().any(|c| c.origin != Origin::Cuda)
            || ["CUresult", "cudaError_t", "nvrtcResult"].contains(&ty);
        for v in real.iter().filter(|_| carries_invented) {
            assert_eq!(
                hallucinated::classify(*v),
                None,
                "{ty}: real CUDA value {v} lies in a reserved range"
            );
        }
        let mut invented = BTreeSet::new();
        // Invented constants come after every header constant.
        let first_invented = consts.iter().position(|c| c.origin != Origin::Cuda);
        if let Some(i) = first_invented {
            assert!(
                consts[i..].iter().all(|c| c.origin != Origin::Cuda),
                "{ty}: invented constants must come last"
            );
        }
        for c in consts.iter().filter(|c| c.origin != Origin::Cuda) {
            assert!(
                !real.contains(&c.value),
                "{ty}::{} collides with a real value",
                c.name
            );
            assert!(
                invented.insert(c.value),
                "{ty}::{} collides with another invented value",
                c.name
            );
            assert!(
                !c.description.is_empty(),
                "{ty}::{} has no description",
                c.name
            );
            match c.origin {
                Origin::Hallucinated { hip_name } => {
                    assert!(
                        hip_name.starts_with("hip") || hip_name.starts_with("HIP"),
                        "{hip_name}"
                    );
                    let Some(Invented::Named(hip_value)) = hallucinated::classify(c.value) else {
                        panic!("{ty}::{} = {} is not in the named range", c.name, c.value);
                    };
                    assert!(hip_value >= 0);
                    let want = format!("HIP-only: {hip_name} (HIP value {hip_value})");
                    assert!(
                        c.description.starts_with(&want),
                        "{ty}::{}: description {:?} should start with {want:?}",
                        c.name,
                        c.description
                    );
                    assert!(
                        c.name.contains("HIP") || c.name.contains("Hip"),
                        "{ty}::{}",
                        c.name
                    );
                }
                Origin::Anycuda => {
                    let base = hallucinated::ANYCUDA_BASE;
                    assert!(
                        (base..base + hallucinated::RANGE).contains(&c.value),
                        "{ty}::{} = {} is outside the anycuda range",
                        c.name,
                        c.value
                    );
                }
                Origin::Cuda => unreachable!(),
            }
        }
    }
}

/// Per-type behaviour: Eq/Hash, names, Debug/Display, unknown values.
fn check_type<E: CudaEnum + std::fmt::Display>() {
    let consts = E::CONSTANTS;
    let distinct: BTreeSet<i64> = consts.iter().map(|c| c.value).collect();
    let set: HashSet<E> = consts.iter().map(|c| E::from_i64(c.value)).collect();
    assert_eq!(
        set.len(),
        distinct.len(),
        "{}: Eq/Hash disagree with the values",
        E::TYPE_NAME
    );
    let mut first_name: HashMap<i64, &str> = HashMap::new();
    for c in consts {
        first_name.entry(c.value).or_insert(c.name);
    }
    for c in consts {
        let v = E::from_i64(c.value);
        assert_eq!(
            v.to_i64(),
            c.value,
            "{}::{} does not round-trip its value",
            E::TYPE_NAME,
            c.name
        );
        assert_eq!(
            E::from_name(c.name),
            Some(v),
            "{}::{} from_name",
            E::TYPE_NAME,
            c.name
        );
        let canonical = first_name[&c.value];
        assert_eq!(v.name(), Some(canonical));
        assert_eq!(format!("{v:?}"), canonical);
        assert_eq!(format!("{v}"), canonical);
        assert!(v.description().is_some());
        if c.origin != Origin::Cuda {
            // Invented values are unique, so their own name is the canonical one.
            assert_eq!(v.name(), Some(c.name));
            assert_eq!(v.info().map(|i| i.origin), Some(c.origin));
        }
    }
    assert_eq!(E::from_name("certainly not a constant"), None);
    let raw = hallucinated::for_unknown(0x0123_4567).expect("in range");
    assert!(!distinct.contains(&raw));
    let unknown = E::from_i64(raw);
    assert_eq!(unknown.name(), None);
    assert_eq!(format!("{unknown:?}"), format!("{}({raw})", E::TYPE_NAME));
    assert_eq!(
        hallucinated::classify(unknown.to_i64()),
        Some(Invented::Unknown(0x0123_4567))
    );
}

#[test]
fn result_types_behave() {
    check_type::<driver::CUresult>();
    check_type::<runtime::cudaError_t>();
    check_type::<nvrtc::nvrtcResult>();
}

#[test]
fn other_boundary_enums_behave() {
    check_type::<driver::CUdevice_attribute>();
    check_type::<runtime::cudaDeviceAttr>();
    check_type::<runtime::cudaMemcpyKind>();
    check_type::<driver::CUjit_option>();
    check_type::<driver::CUfunction_attribute>();
    check_type::<driver::CUpointer_attribute>();
    check_type::<driver::CUlimit>();
    check_type::<driver::CUmemorytype>();
    check_type::<driver::CUstreamCaptureStatus>();
    check_type::<runtime::cudaLimit>();
    check_type::<runtime::cudaFuncAttribute>();
}

#[test]
fn result_types_have_their_invented_constants() {
    let c = driver::CUresult::CUDA_ERROR_HIP_RUNTIME_MEMORY;
    assert_eq!(
        c.info().map(|i| i.origin),
        Some(Origin::Hallucinated {
            hip_name: "hipErrorRuntimeMemory"
        })
    );
    assert_eq!(format!("{c}"), "CUDA_ERROR_HIP_RUNTIME_MEMORY");
    assert_eq!(
        hallucinated::classify(c.to_i64()),
        Some(Invented::Named(1052))
    );

    let r = runtime::cudaError_t::cudaErrorHipRuntimeMemory;
    assert_eq!(
        r.to_i64(),
        c.to_i64(),
        "same HIP code, same invented value in both APIs"
    );
    assert_eq!(format!("{r:?}"), "cudaErrorHipRuntimeMemory");

    let n = nvrtc::nvrtcResult::NVRTC_ERROR_HIP_LINKING;
    assert_eq!(
        n.info().map(|i| i.origin),
        Some(Origin::Hallucinated {
            hip_name: "HIPRTC_ERROR_LINKING"
        })
    );

    let ns = nvrtc::nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;
    assert_eq!(ns.to_i64(), hallucinated::ANYCUDA_BASE);
    assert_eq!(ns.info().map(|i| i.origin), Some(Origin::Anycuda));
    assert!(ns.description().is_some_and(|d| d.contains("NVRTC")));
}

#[test]
fn header_facts() {
    assert_eq!(driver::CUresult::CUDA_SUCCESS.0, 0);
    assert_eq!(driver::CUresult::CUDA_ERROR_INVALID_VALUE.0, 1);
    assert_eq!(runtime::cudaError_t::cudaErrorInvalidClusterSize.0, 912);
    assert_eq!(driver::CU_LAUNCH_PARAM_END_AS_INT, 0);
    assert!(driver::CU_LAUNCH_PARAM_END.is_null());
    assert_eq!(driver::CU_LAUNCH_PARAM_BUFFER_POINTER as usize, 1);
    assert_eq!(driver::CU_LAUNCH_PARAM_BUFFER_SIZE as usize, 2);
    assert_eq!(
        driver::CUDA_VERSION,
        anycuda_api::functions::CUDA_HEADERS_VERSION
    );
    // Aliases of the C typedef/tag names resolve to the same newtype.
    let _: driver::cudaError_enum = driver::CUresult::CUDA_SUCCESS;
    let _: runtime::cudaError = runtime::cudaError_t::cudaSuccess;
}

#[test]
fn function_catalogue_is_sorted_and_versioned() {
    use anycuda_api::functions::{DRIVER_FUNCTIONS, NVRTC_FUNCTIONS, RUNTIME_FUNCTIONS};
    for list in [DRIVER_FUNCTIONS, RUNTIME_FUNCTIONS, NVRTC_FUNCTIONS] {
        assert!(
            list.windows(2).all(|w| w[0].name < w[1].name),
            "catalogue not sorted/unique"
        );
    }
    let find = |n: &str| DRIVER_FUNCTIONS.iter().find(|f| f.name == n).copied();
    let alloc = find("cuMemAlloc").expect("cuMemAlloc");
    assert_eq!((alloc.symbol, alloc.version), ("cuMemAlloc_v2", 3020));
    let init = find("cuInit").expect("cuInit");
    assert_eq!((init.symbol, init.version), ("cuInit", 2000));
    assert!(
        DRIVER_FUNCTIONS.iter().all(|f| f.version > 0),
        "every driver entry has a version"
    );
    assert!(RUNTIME_FUNCTIONS.iter().all(|f| f.version == 0));
    assert!(NVRTC_FUNCTIONS
        .iter()
        .any(|f| f.name == "nvrtcCompileProgram"));
}
