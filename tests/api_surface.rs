//! The whole Driver and Runtime API is exposed: every function of the pinned headers is a trait
//! method, the CUDA backend serves each one, and the C-named free functions answer sensibly with
//! no driver (this machine class has no GPU) and with no backend at all.
//!
//! Backend selection is fixed once per process, so the free-function checks run in child
//! processes of this test binary (`CHILD` names the scenario).

use anycuda::driver::{CUdeviceptr, CUresult};
use anycuda::functions::{DRIVER_FUNCTIONS, RUNTIME_FUNCTIONS};
use anycuda::runtime::{cudaChannelFormatDesc, cudaChannelFormatKind, cudaError_t};
use anycuda_api::traits::{DRIVER_METHODS, RUNTIME_METHODS};
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr};
use std::process::Command;

/// Environment variable naming the scenario a child process runs.
const CHILD: &str = "ANYCUDA_API_SURFACE_CHILD";

fn set(names: &[&'static str]) -> BTreeSet<&'static str> {
    names.iter().copied().collect()
}

fn missing(catalogue: &[anycuda_api::FnInfo], have: &[&'static str]) -> Vec<&'static str> {
    let have = set(have);
    catalogue
        .iter()
        .map(|f| f.name)
        .filter(|n| !have.contains(n))
        .collect()
}

/// Known CUDA functions and what anycuda must do with each on HIP, decided by a person from
/// the CUDA and HIP documentation, one reason per line. Every other check in this file compares
/// generated tables with generated tables (or with the headers the generator read); this list
/// is the independent anchor: a regeneration that drops a function everyone uses, or starts
/// "serving" on HIP a feature AMD hardware does not have, fails here.
const DECIDED: &[(&str, OnHip, &str)] = &[
    // The core of every CUDA program: HIP has a direct counterpart.
    ("cuInit", Served, "hipInit"),
    ("cuDeviceGet", Served, "hipDeviceGet"),
    (
        "cuDeviceGetAttribute",
        Served,
        "hipDeviceGetAttribute, attributes translated",
    ),
    (
        "cuCtxCreate",
        Served,
        "hipCtxCreate (deprecated in HIP, still there)",
    ),
    (
        "cuDevicePrimaryCtxRetain",
        Served,
        "hipDevicePrimaryCtxRetain",
    ),
    ("cuMemAlloc", Served, "hipMalloc"),
    ("cuMemFree", Served, "hipFree"),
    ("cuMemcpyHtoD", Served, "hipMemcpyHtoD"),
    ("cuMemcpyDtoH", Served, "hipMemcpyDtoH"),
    (
        "cuMemAllocAsync",
        Served,
        "hipMallocAsync (stream-ordered allocator)",
    ),
    (
        "cuModuleLoadData",
        Served,
        "hipModuleLoadData, loads AMD code objects",
    ),
    ("cuModuleGetFunction", Served, "hipModuleGetFunction"),
    ("cuLaunchKernel", Served, "hipModuleLaunchKernel"),
    (
        "cuLaunchCooperativeKernel",
        Served,
        "hipModuleLaunchCooperativeKernel",
    ),
    (
        "cuFuncSetBlockShape",
        Served,
        "legacy launch, kept by anycuda over hipModuleLaunchKernel",
    ),
    ("cuStreamCreate", Served, "hipStreamCreateWithFlags"),
    ("cuStreamSynchronize", Served, "hipStreamSynchronize"),
    ("cuEventRecord", Served, "hipEventRecord"),
    ("cuEventElapsedTime", Served, "hipEventElapsedTime"),
    ("cuGraphCreate", Served, "hipGraphCreate"),
    ("cuGraphLaunch", Served, "hipGraphLaunch"),
    ("cuIpcGetMemHandle", Served, "hipIpcGetMemHandle"),
    ("cudaMalloc", Served, "hipMalloc"),
    ("cudaFree", Served, "hipFree"),
    ("cudaMemcpy", Served, "hipMemcpy"),
    ("cudaMemcpyAsync", Served, "hipMemcpyAsync"),
    ("cudaMallocManaged", Served, "hipMallocManaged"),
    ("cudaLaunchKernel", Served, "hipLaunchKernel"),
    ("cudaStreamCreate", Served, "hipStreamCreate"),
    ("cudaDeviceSynchronize", Served, "hipDeviceSynchronize"),
    (
        "cudaGetDeviceProperties",
        Served,
        "hipGetDeviceProperties, struct translated",
    ),
    ("cudaGetLastError", Served, "hipGetLastError"),
    ("cudaGraphInstantiate", Served, "hipGraphInstantiate"),
    // NVIDIA-only hardware or driver features: no AMD counterpart, so not supported on HIP.
    (
        "cuGreenCtxCreate",
        NotSupported,
        "green contexts partition NVIDIA SMs; HIP has none",
    ),
    (
        "cuMulticastCreate",
        NotSupported,
        "NVLink multicast objects (NVSwitch); HIP has none",
    ),
    (
        "cuTensorMapEncodeTiled",
        NotSupported,
        "TMA descriptors (Hopper's tensor memory accelerator)",
    ),
    (
        "cuOccupancyMaxActiveClusters",
        Served,
        "derived where there are no clusters: a cluster is one block (adapt/module.rs)",
    ),
    (
        "cudaOccupancyMaxPotentialClusterSize",
        NotSupported,
        "thread block clusters",
    ),
    (
        "cuCoredumpSetAttribute",
        NotSupported,
        "CUDA's GPU core dump settings",
    ),
    (
        "cuCheckpointProcessLock",
        NotSupported,
        "CUDA's process checkpointing (cuda-checkpoint)",
    ),
    (
        "cudaLogsRegisterCallback",
        NotSupported,
        "CUDA driver error-log callbacks",
    ),
    (
        "cudaGraphConditionalHandleCreate",
        NotSupported,
        "conditional graph nodes; HIP has none",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnHip {
    Served,
    NotSupported,
}
use OnHip::{NotSupported, Served};

#[test]
fn known_functions_are_exposed_and_served_as_decided() {
    use anycuda::{served_by, BackendKind, CudaApi};
    for &(name, on_hip, why) in DECIDED {
        let api = if name.starts_with("cuda") {
            CudaApi::Runtime
        } else {
            CudaApi::Driver
        };
        assert!(
            api.catalogue().iter().any(|f| f.name == name),
            "{name} is not in the {api} catalogue"
        );
        assert!(api.exposed().contains(&name), "{name} is not exposed");
        if let Some(cuda) = served_by(BackendKind::Cuda, api) {
            assert!(
                cuda.contains(&name),
                "the CUDA backend does not serve {name}"
            );
        }
        if let Some(hip) = served_by(BackendKind::Hip, api) {
            let served = hip.contains(&name);
            assert_eq!(
                if served { Served } else { NotSupported },
                on_hip,
                "{name} on HIP ({why})"
            );
        }
    }
}

/// A few values copied by hand from the pinned CUDA 13.5 headers (`cuda.h`,
/// `driver_types.h`): the public API speaks CUDA's numbers, whatever the generator reads.
#[test]
fn known_values_from_the_cuda_headers() {
    use anycuda::driver::CUdevice_attribute as A;
    use anycuda::runtime::cudaError_t as E;
    let cu = |r: CUresult| r.0;
    assert_eq!(cu(CUresult::CUDA_SUCCESS), 0);
    assert_eq!(cu(CUresult::CUDA_ERROR_INVALID_VALUE), 1);
    assert_eq!(cu(CUresult::CUDA_ERROR_OUT_OF_MEMORY), 2);
    assert_eq!(cu(CUresult::CUDA_ERROR_NOT_INITIALIZED), 3);
    assert_eq!(cu(CUresult::CUDA_ERROR_NO_DEVICE), 100);
    assert_eq!(cu(CUresult::CUDA_ERROR_INVALID_DEVICE), 101);
    assert_eq!(cu(CUresult::CUDA_ERROR_NOT_FOUND), 500);
    assert_eq!(cu(CUresult::CUDA_ERROR_NOT_SUPPORTED), 801);
    // 912 is hipErrorInvalidTexture in HIP: the reason codes are translated, never passed on.
    assert_eq!(cu(CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE), 912);
    assert_eq!(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK.0, 1);
    assert_eq!(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE.0, 10);
    assert_eq!(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.0, 16);
    assert_eq!(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR.0, 75);
    assert_eq!(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR.0, 76);
    assert_eq!(E::cudaSuccess.0, 0);
    assert_eq!(E::cudaErrorInvalidValue.0, 1);
    assert_eq!(E::cudaErrorMemoryAllocation.0, 2);
    assert_eq!(E::cudaErrorNoDevice.0, 100);
    assert_eq!(E::cudaErrorNotSupported.0, 801);
}

/// One link of the chain "every function of the headers is callable": the headers are the
/// catalogue (`the_catalogue_is_the_headers`, read as text) and the catalogue is the traits
/// (here). Both tables are generated, so this only catches the generator dropping or
/// duplicating a method; what a person decided is checked by
/// `known_functions_are_exposed_and_served_as_decided`.
#[test]
fn every_catalogue_function_is_a_trait_method() {
    assert_eq!(
        missing(DRIVER_FUNCTIONS, DRIVER_METHODS),
        Vec::<&str>::new()
    );
    assert_eq!(
        missing(RUNTIME_FUNCTIONS, RUNTIME_METHODS),
        Vec::<&str>::new()
    );
    // And nothing else: the traits are exactly the catalogue, each name once.
    assert_eq!(DRIVER_METHODS.len(), DRIVER_FUNCTIONS.len());
    assert_eq!(RUNTIME_METHODS.len(), RUNTIME_FUNCTIONS.len());
    assert_eq!(set(DRIVER_METHODS).len(), DRIVER_METHODS.len());
    assert_eq!(set(RUNTIME_METHODS).len(), RUNTIME_METHODS.len());
}

/// The pinned headers' include folder: `$CUDA_PATH/include`, else the one `ci/fetch-inputs.sh`
/// unpacks. `None` (skip) off CI when neither exists.
fn header(name: &str) -> Option<String> {
    let dirs = [
        std::env::var_os("CUDA_PATH").map(|p| std::path::PathBuf::from(p).join("include")),
        Some(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(".cache/inputs/cuda/nvidia/cu13/include"),
        ),
    ];
    for d in dirs.into_iter().flatten() {
        if let Ok(text) = std::fs::read_to_string(d.join(name)) {
            return Some(text);
        }
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "{name} not found (CI=true: run `bash ci/fetch-inputs.sh`)"
    );
    eprintln!("SKIP: {name} not found; run `bash ci/fetch-inputs.sh`");
    None
}

/// Every name declared as `<ret> <marker> name(` in a header, read without codegen's parser,
/// plus the names a `#define` maps a declared name onto (`cuGraphInstantiate` is declared and
/// `#define`d to `cuGraphInstantiateWithFlags`, the symbol the library exports).
fn declared(text: &str, marker: &str) -> BTreeSet<String> {
    let mut names = declared_only(text, marker);
    let renamed: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.trim().strip_prefix("#define")?.split_whitespace();
            let (from, to) = (w.next()?, w.next()?);
            let ident = to.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (ident && w.next().is_none() && names.contains(from)).then(|| to.to_string())
        })
        .collect();
    names.extend(renamed);
    names
}

fn declared_only(text: &str, marker: &str) -> BTreeSet<String> {
    text.split(marker)
        .skip(1)
        .filter_map(|rest| {
            let rest = rest.trim_start();
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
            rest[end..]
                .trim_start()
                .starts_with('(')
                .then(|| rest[..end].to_string())
        })
        .collect()
}

/// The catalogue (what codegen read with libclang) is the header (read here as text): every
/// public function declared in the pinned headers is exposed, and nothing else is.
#[test]
fn the_catalogue_is_the_headers() {
    let (Some(cuda_h), Some(runtime_h)) = (header("cuda.h"), header("cuda_runtime_api.h")) else {
        return;
    };
    let known = |c: &[anycuda_api::FnInfo]| -> BTreeSet<String> {
        c.iter()
            .flat_map(|f| [f.name.to_string(), f.symbol.to_string()])
            .collect()
    };
    // Declared but not exposed, by design: per-thread-default-stream twins (`_ptsz`/`_ptds`,
    // reached through CUDA's own per-thread macros) and the older ABIs of functions whose
    // current ABI the catalogue holds.
    let older_abi = [
        "cuCtxCreate_v2",
        "cuCtxCreate_v3",
        "cuGraphInstantiate_v2",
        "cuStreamGetCaptureInfo_v2",
        "cuTexRefSetAddress2D_v2",
    ];
    let public = |n: &String| {
        !n.ends_with("_ptsz") && !n.ends_with("_ptds") && !older_abi.contains(&n.as_str())
    };
    let driver: BTreeSet<String> = declared(&cuda_h, "CUDAAPI")
        .into_iter()
        .filter(public)
        .collect();
    let mut runtime: BTreeSet<String> = declared(&runtime_h, "CUDARTAPI")
        .into_iter()
        .filter(public)
        .collect();
    // nvcc's hidden entry points: declared for codegen by the repository's stand-in for
    // crt/host_runtime.h and crt/device_functions.h (which ship with nvcc, not with the runtime
    // wheel), `_ptsz` twin included (nvcc's launch code names it directly).
    let hidden_h = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("codegen/shim/crt/nvcc_entry_points.h"),
    )
    .unwrap();
    let hidden = declared_only(&hidden_h, "CUDARTAPI");
    assert_eq!(hidden.len(), 12, "{hidden:?}");
    runtime.extend(hidden);
    assert!(
        driver.len() > 400 && runtime.len() > 250,
        "{} {}",
        driver.len(),
        runtime.len()
    );
    let (kd, kr) = (known(DRIVER_FUNCTIONS), known(RUNTIME_FUNCTIONS));
    let not_exposed = |decl: &BTreeSet<String>, k: &BTreeSet<String>| -> Vec<String> {
        decl.iter().filter(|n| !k.contains(*n)).cloned().collect()
    };
    assert_eq!(not_exposed(&driver, &kd), Vec::<String>::new(), "cuda.h");
    assert_eq!(
        not_exposed(&runtime, &kr),
        Vec::<String>::new(),
        "cuda_runtime_api.h"
    );
    // Each catalogue function is declared under its name or its versioned symbol (cuda.h
    // `#define`s some names onto newer symbols, e.g. cuGraphInstantiate).
    let undeclared = |c: &[anycuda_api::FnInfo], decl: &BTreeSet<String>| -> Vec<&str> {
        c.iter()
            .filter(|f| !decl.contains(f.name) && !decl.contains(f.symbol))
            .map(|f| f.name)
            .collect()
    };
    assert_eq!(undeclared(DRIVER_FUNCTIONS, &driver), Vec::<&str>::new());
    assert_eq!(undeclared(RUNTIME_FUNCTIONS, &runtime), Vec::<&str>::new());
}

#[cfg(feature = "backend-cuda")]
#[test]
fn the_cuda_backend_serves_every_function() {
    use anycuda::{served_by, BackendKind, CudaApi};
    let driver = served_by(BackendKind::Cuda, CudaApi::Driver).unwrap();
    let runtime = served_by(BackendKind::Cuda, CudaApi::Runtime).unwrap();
    assert_eq!(missing(DRIVER_FUNCTIONS, driver), Vec::<&str>::new());
    assert_eq!(missing(RUNTIME_FUNCTIONS, runtime), Vec::<&str>::new());
    assert_eq!(driver.len(), DRIVER_FUNCTIONS.len());
    assert_eq!(runtime.len(), RUNTIME_FUNCTIONS.len());
}

/// Versioned symbol names are aliases of the functions they implement (a compile-time check:
/// the types must be exactly the C signatures).
#[test]
fn versioned_aliases_exist() {
    type MemAlloc = unsafe fn(*mut CUdeviceptr, usize) -> CUresult;
    let _: MemAlloc = anycuda::driver::cuMemAlloc_v2;
    let _: MemAlloc = anycuda::driver::cuMemAlloc;
    let _: unsafe fn(*mut usize, anycuda::driver::CUdevice) -> CUresult =
        anycuda::driver::cuDeviceTotalMem_v2;
    let _: unsafe fn(*mut *mut c_void, usize) -> cudaError_t = anycuda::runtime::cudaMalloc;
    // Safe: takes values, returns a static string / a value.
    let _: fn(cudaError_t) -> *const c_char = anycuda::runtime::cudaGetErrorName;
    // Every `_vN` alias the catalogue implies is a name users can call: spot-check a few.
    let aliases: BTreeSet<&str> = DRIVER_FUNCTIONS
        .iter()
        .filter(|f| f.symbol != f.name)
        .map(|f| f.symbol)
        .collect();
    for a in ["cuMemAlloc_v2", "cuCtxCreate_v4", "cuMemcpyHtoD_v2"] {
        assert!(aliases.contains(a), "{a} is no versioned symbol any more");
    }
    let _ = anycuda::driver::cuMemcpyHtoD_v2;
}

/// Runs scenario `name` of [`child_scenarios`] in a child process with `backend` as
/// `ANYCUDA_BACKEND`.
fn run_child(name: &str, backend: &str) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "child_scenarios",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, name)
        .env("ANYCUDA_BACKEND", backend)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {name} failed:\n{text}");
    assert!(text.contains(&format!("scenario {name} ran")), "{text}");
}

#[test]
fn free_functions_with_no_driver() {
    run_child("no-driver", "cuda");
}

#[test]
fn free_functions_with_no_backend() {
    // An invalid choice leaves no active backend.
    run_child("no-backend", "no-such-backend");
}

fn c(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: non-null static NUL-terminated strings from the error tables.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Answered without any library, whatever is active.
fn library_free_answers() {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: valid out-pointer.
    let r = unsafe { anycuda::driver::cuGetErrorName(CUresult::CUDA_ERROR_OUT_OF_MEMORY, &mut p) };
    assert_eq!(r, CUresult::CUDA_SUCCESS);
    assert_eq!(c(p), "CUDA_ERROR_OUT_OF_MEMORY");
    assert_eq!(
        c(anycuda::runtime::cudaGetErrorName(
            cudaError_t::cudaErrorMemoryAllocation
        )),
        "cudaErrorMemoryAllocation"
    );
    let k = cudaChannelFormatKind::cudaChannelFormatKindFloat;
    let d: cudaChannelFormatDesc = anycuda::runtime::cudaCreateChannelDesc(32, 0, 0, 0, k);
    assert_eq!((d.x, d.y, d.z, d.w, d.f), (32, 0, 0, 0, k));
}

/// The child side of the free-function tests; does nothing in a normal run.
#[test]
fn child_scenarios() {
    let Ok(name) = std::env::var(CHILD) else {
        return;
    };
    let mut dptr: CUdeviceptr = 0;
    match name.as_str() {
        "no-driver" => {
            // The CUDA backend, requested; libcuda may or may not be installed.
            let have_driver = anycuda::Backend::load(anycuda::BackendKind::Cuda)
                .map(|b| {
                    b.libraries()
                        .iter()
                        .any(|l| l.role == anycuda::LibraryRole::Driver && l.status.is_ok())
                })
                .unwrap_or(false);
            // SAFETY: valid out-pointer.
            let r = unsafe { anycuda::driver::cuMemAlloc(&mut dptr, 16) };
            // SAFETY: as above.
            let r2 = unsafe { anycuda::driver::cuMemAlloc_v2(&mut dptr, 16) };
            assert_eq!(r, r2);
            if have_driver {
                // A real driver, no context made current: not a success, never NOT_SUPPORTED.
                eprintln!("libcuda present: cuMemAlloc without a context -> {r}");
                assert_ne!(r, CUresult::CUDA_SUCCESS);
                assert_ne!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED);
            } else {
                // The CUDA backend's NO_LIB code (or no backend at all): not initialised.
                assert_eq!(r, CUresult::CUDA_ERROR_NOT_INITIALIZED);
                // SAFETY: valid out-pointer.
                let r = unsafe { anycuda::driver::cuInit(0) };
                assert_eq!(r, CUresult::CUDA_ERROR_NOT_INITIALIZED);
            }
        }
        "no-backend" => {
            assert!(anycuda::backend().is_err());
            // SAFETY: valid out-pointer.
            let r = unsafe { anycuda::driver::cuMemAlloc(&mut dptr, 16) };
            assert_eq!(r, CUresult::CUDA_ERROR_NOT_INITIALIZED);
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer.
            let r = unsafe { anycuda::runtime::cudaMalloc(&mut p, 16) };
            assert_eq!(r, cudaError_t::cudaErrorInitializationError);
        }
        other => panic!("unknown scenario {other}"),
    }
    library_free_answers();
    println!("scenario {name} ran");
}
