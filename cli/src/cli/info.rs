//! `anycuda info`: backends, libraries, devices.

use super::missing;
use anycuda::driver::{CUdevice, CUdevice_attribute as A};
use anycuda::{Backend, BackendKind, DeviceCountError, Driver, LibraryReport, LoadError};
use anycuda_api::loader;
use serde_json::{json, Value};
use std::process::ExitCode;

/// The attributes shown per device: label and CUDA attribute.
const ATTRS: &[(&str, A)] = &[
    (
        "multiprocessors",
        A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    ),
    (
        "max_threads_per_block",
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    ),
    ("warp_size", A::CU_DEVICE_ATTRIBUTE_WARP_SIZE),
    (
        "shared_memory_per_block",
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
    ),
    ("l2_cache_bytes", A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
    ("clock_khz", A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
    ("memory_clock_khz", A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
    (
        "memory_bus_width_bits",
        A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
    ),
    ("pci_bus_id", A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
];

/// One device as `info` shows it.
struct DeviceInfo {
    ordinal: i32,
    /// The device, or the error of `cuDeviceGet`.
    detail: Result<DeviceDetail, String>,
}

struct DeviceDetail {
    name: String,
    arch: String,
    total_memory: Result<usize, String>,
    /// Label, and the value or the CUDA error code of the query.
    attributes: Vec<(&'static str, Result<i32, String>)>,
}

/// One compiled-in backend as `info` shows it.
struct BackendInfo {
    kind: BackendKind,
    /// `Err` when the backend is not compiled in.
    body: Result<BackendBody, String>,
}

struct BackendBody {
    libraries: Vec<LibraryReport>,
    compiler_loaded: bool,
    devices: Result<Vec<DeviceInfo>, DeviceCountError>,
}

fn device(b: Backend, ordinal: i32) -> DeviceInfo {
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer.
    if let Err(e) = unsafe { b.cuDeviceGet(&mut dev, ordinal) }.result() {
        return DeviceInfo {
            ordinal,
            detail: Err(e.to_string()),
        };
    }
    let mut name = [0 as core::ffi::c_char; 256];
    // SAFETY: the buffer holds `len` bytes.
    let name =
        match unsafe { b.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev) }.result() {
            // SAFETY: the driver NUL-terminates within `len`.
            Ok(()) => unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
                .to_string_lossy()
                .into_owned(),
            Err(e) => format!("<{e}>"),
        };
    let mut mem = 0usize;
    // SAFETY: valid out-pointer.
    let total_memory = unsafe { b.cuDeviceTotalMem(&mut mem, dev) }
        .result()
        .map(|_| mem)
        .map_err(|e| e.to_string());
    let attributes = ATTRS
        .iter()
        .map(|&(label, a)| {
            let mut v = 0;
            // SAFETY: valid out-pointer.
            let r = unsafe { b.cuDeviceGetAttribute(&mut v, a, dev) }.result();
            (
                label,
                r.map(|_| v).map_err(|e| format!("n/a ({})", e.code())),
            )
        })
        .collect();
    DeviceInfo {
        ordinal,
        detail: Ok(DeviceDetail {
            name,
            arch: b.device_arch(dev).unwrap_or_else(|e| format!("<{e}>")),
            total_memory,
            attributes,
        }),
    }
}

fn backend_info(kind: BackendKind) -> BackendInfo {
    let body = Backend::load(kind)
        .map_err(|e| e.to_string())
        .map(|b| BackendBody {
            libraries: b.libraries(),
            compiler_loaded: b.compiler_loaded(),
            devices: anycuda::device_count(b).map(|n| (0..n).map(|i| device(b, i)).collect()),
        });
    BackendInfo { kind, body }
}

impl DeviceInfo {
    fn to_json(&self) -> Value {
        let d = match &self.detail {
            Ok(d) => d,
            Err(e) => return json!({ "ordinal": self.ordinal, "error": e }),
        };
        let attrs: serde_json::Map<String, Value> = d
            .attributes
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    v.as_ref().map_or_else(|e| json!(e), |v| json!(v)),
                )
            })
            .collect();
        json!({
            "ordinal": self.ordinal,
            "name": d.name,
            "arch": d.arch,
            "total_memory_bytes": d.total_memory.as_ref().map_or_else(|e| json!(e), |m| json!(m)),
            "attributes": attrs,
        })
    }
}

impl BackendInfo {
    fn to_json(&self) -> Value {
        let b = match &self.body {
            Ok(b) => b,
            Err(e) => {
                return json!({ "backend": self.kind.to_string(), "compiled_in": false, "error": e })
            }
        };
        let libs: Vec<Value> = b
            .libraries
            .iter()
            .map(|l| match &l.status {
                Ok(ok) => json!({
                    "role": l.role.to_string(), "path": ok.path, "version": ok.version,
                    "entry_points": ok.entry_points.0, "entry_points_declared": ok.entry_points.1,
                }),
                Err(e) => json!({ "role": l.role.to_string(), "error": e.to_string() }),
            })
            .collect();
        let (devices, device_error) = match &b.devices {
            Ok(d) => (d.iter().map(DeviceInfo::to_json).collect(), Value::Null),
            Err(e) => (Vec::new(), json!(e.to_string())),
        };
        json!({
            "backend": self.kind.to_string(),
            "compiled_in": true,
            "libraries": libs,
            "compiler_loaded": b.compiler_loaded,
            "collective": collective_json(self.kind),
            "math": math_json(self.kind),
            "devices": devices,
            "device_error": device_error,
        })
    }

    fn has_device(&self) -> bool {
        self.body
            .as_ref()
            .is_ok_and(|b| b.devices.as_ref().is_ok_and(|d| !d.is_empty()))
    }

    /// The text report; `verbose` keeps each missing library's paths tried in its line (they
    /// are in the search listing too), otherwise the line is short, with how to get it.
    fn print_human(&self, verbose: bool) {
        println!();
        let b = match &self.body {
            Ok(b) => b,
            Err(_) => return println!("[{}] not compiled in", self.kind),
        };
        println!("[{}]", self.kind);
        for (i, l) in b.libraries.iter().enumerate() {
            let role = l.role.to_string();
            match &l.status {
                Ok(ok) => println!(
                    "  {role:<8} {} ({}, {}/{} entry points)",
                    ok.path, ok.version, ok.entry_points.0, ok.entry_points.1
                ),
                Err(e) if verbose => println!("  {role:<8} unavailable: {e}"),
                Err(e) => println!(
                    "  {role:<8} unavailable: {}",
                    missing::library_line(&b.libraries, i, e)
                ),
            }
        }
        print_collective(self.kind, verbose);
        print_math(self.kind, verbose);
        let devs = match &b.devices {
            Ok(d) if d.is_empty() => return println!("  devices: none (0 found)"),
            Ok(d) => d,
            // A missing driver library is on its own line above.
            Err(DeviceCountError::MissingLibrary { role, .. }) if !verbose => {
                return println!("  devices: none (no {role} library)")
            }
            Err(e) => return println!("  devices: none ({e})"),
        };
        for d in devs {
            let detail = match &d.detail {
                Ok(x) => x,
                Err(e) => {
                    println!("  device {}: {e}", d.ordinal);
                    continue;
                }
            };
            println!(
                "  device {}: {} [{}], {} MiB",
                d.ordinal,
                detail.name,
                detail.arch,
                detail
                    .total_memory
                    .as_ref()
                    .map_or_else(|_| "?".into(), |m| (m >> 20).to_string())
            );
            for (k, v) in &detail.attributes {
                match v {
                    Ok(v) => println!("      {k:<24} {v}"),
                    Err(e) => println!("      {k:<24} {e}"),
                }
            }
        }
    }
}

/// Runs `anycuda info`.
///
/// # Errors
/// None in practice: every failure is part of the report.
pub fn run(as_json: bool, verbose: bool) -> Result<ExitCode, String> {
    let backends: Vec<BackendInfo> = [BackendKind::Cuda, BackendKind::Hip]
        .into_iter()
        .map(backend_info)
        .collect();
    let active = anycuda::backend();
    let gpu_found = backends.iter().any(BackendInfo::has_device);
    let compiled: Vec<String> = anycuda::compiled_in()
        .iter()
        .map(|k| k.to_string())
        .collect();
    if as_json {
        let active = match &active {
            Ok(s) => {
                json!({ "backend": s.kind().to_string(), "choice": s.choice.to_string(), "reason": s.reason })
            }
            Err(e) => json!({ "error": e.to_string() }),
        };
        let report = json!({
            "anycuda": env!("CARGO_PKG_VERSION"),
            "compiled_in": compiled,
            "active": active,
            "backends": backends.iter().map(BackendInfo::to_json).collect::<Vec<_>>(),
            "gpu_found": gpu_found,
            "drop_in": anycuda::is_drop_in(),
            "library_search": search_json(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("anycuda {}", env!("CARGO_PKG_VERSION"));
    println!("compiled-in backends: {}", compiled.join(", "));
    if anycuda::is_drop_in() {
        println!("running as a drop-in C library (anycuda's libcuda/libcudart/libnvrtc)");
    }
    match &active {
        Ok(s) if verbose => println!("active backend: {} ({})", s.kind(), s.reason),
        Ok(s) => println!("active backend: {} ({})", s.kind(), missing::selected(s)),
        Err(e) if verbose => println!("active backend: none: {e}"),
        Err(e) => println!("active backend: none: {}", missing::select_error(e)),
    }
    for b in &backends {
        b.print_human(verbose);
    }
    if verbose {
        print_search();
    } else {
        println!();
        println!("library search: `anycuda info --verbose` lists every path tried");
    }
    if !gpu_found {
        println!();
        println!("No GPU found. anycuda still works for compilation: `anycuda compile kernel.cu --backend cuda --arch sm_90`");
        println!("or `--backend hip --arch gfx90a` compiles with NVRTC or hipRTC when their libraries load.");
        println!("To run kernels, install an NVIDIA driver (libcuda) or ROCm (libamdhip64) with a GPU present.");
    }
    Ok(ExitCode::SUCCESS)
}

/// Why an optional library is unavailable: its load error (short or in full), or another reason.
enum Why {
    Load(LoadError),
    Other(String),
}

impl Why {
    fn text(&self, verbose: bool) -> String {
        match self {
            Why::Load(e) if !verbose => missing::short(e),
            Why::Load(e) => e.to_string(),
            Why::Other(s) => s.clone(),
        }
    }
}

impl From<LoadError> for Why {
    fn from(e: LoadError) -> Self {
        Why::Load(e)
    }
}

/// The load error inside a library error (`nccl::LibraryError::Load`, ...), or its text.
macro_rules! why {
    ($m:ident) => {
        |e: anycuda::$m::LibraryError| match e {
            anycuda::$m::LibraryError::Load(e) => Why::Load(e),
            other => Why::Other(other.to_string()),
        }
    };
}

/// The backend's collective library (NCCL, or RCCL on AMD): path and version, or why not.
fn collective(kind: BackendKind) -> Result<anycuda::nccl::LibraryInfo, Why> {
    let b = Backend::load(kind)?;
    anycuda::nccl::library_of(b)
        .map(anycuda::nccl::Library::info)
        .map_err(why!(nccl))
}

fn print_collective(kind: BackendKind, verbose: bool) {
    match collective(kind) {
        Ok(l) => println!(
            "  {:<8} {} ({} {}, {}/{} entry points)",
            "nccl",
            l.path,
            l.name,
            anycuda::nccl::version_string(l.version),
            l.entry_points.0,
            l.entry_points.1
        ),
        Err(e) => println!("  {:<8} unavailable: {}", "nccl", e.text(verbose)),
    }
}

fn collective_json(kind: BackendKind) -> Value {
    match collective(kind) {
        Ok(l) => json!({
            "library": l.name, "path": l.path, "version": anycuda::nccl::version_string(l.version),
            "entry_points": l.entry_points.0, "entry_points_declared": l.entry_points.1,
        }),
        Err(e) => json!({ "error": e.text(true) }),
    }
}

/// One math library's row: which library, where, which version and how many entry points.
struct MathRow {
    name: &'static str,
    path: String,
    version: String,
    entry_points: (usize, usize),
}

/// How `info` finds one math library of a backend.
type FindMath = fn(Backend) -> Result<MathRow, Why>;

/// The math libraries `info` lists, each with its key (`curand`) and how to find the backend's
/// library: one line here per library.
const MATH_LIBS: &[(&str, FindMath)] = &[
    ("curand", |b| {
        let l = anycuda::curand::library_of(b)
            .map(anycuda::curand::Library::info)
            .map_err(why!(curand))?;
        Ok(MathRow {
            name: l.name,
            path: l.path,
            version: l.version_string,
            entry_points: l.entry_points,
        })
    }),
    ("cublas", |b| {
        let l = anycuda::cublas::library_of(b)
            .map(anycuda::cublas::Library::info)
            .map_err(why!(cublas))?;
        Ok(MathRow {
            name: l.name,
            path: l.path,
            version: l.version_string,
            entry_points: l.entry_points,
        })
    }),
    // cuBLASLt, or hipBLASLt on AMD; on HIP's NVIDIA platform there is none (no NVIDIA build of
    // hipBLASLt): the library's info says why in its version string.
    ("cublaslt", |b| {
        let l = anycuda::cublaslt::library_of(b)
            .map(anycuda::cublaslt::Library::info)
            .map_err(why!(cublaslt))?;
        if l.name == "none" {
            return Err(Why::Other(l.version_string));
        }
        Ok(MathRow {
            name: l.name,
            path: l.path,
            version: l.version_string,
            entry_points: l.entry_points,
        })
    }),
];

fn math_row(kind: BackendKind, find: FindMath) -> Result<MathRow, Why> {
    find(Backend::load(kind)?)
}

fn print_math(kind: BackendKind, verbose: bool) {
    for (key, find) in MATH_LIBS {
        match math_row(kind, *find) {
            Ok(l) => println!(
                "  {key:<8} {} ({} {}, {}/{} entry points)",
                l.path, l.name, l.version, l.entry_points.0, l.entry_points.1
            ),
            Err(e) => println!("  {key:<8} unavailable: {}", e.text(verbose)),
        }
    }
}

/// `{"curand": {...}, "cublas": {...}}`: each math library, or why not.
fn math_json(kind: BackendKind) -> Value {
    let mut out = serde_json::Map::new();
    for (key, find) in MATH_LIBS {
        let v = match math_row(kind, *find) {
            Ok(l) => json!({
                "library": l.name, "path": l.path, "version": l.version,
                "entry_points": l.entry_points.0, "entry_points_declared": l.entry_points.1,
            }),
            Err(e) => json!({ "error": e.text(true) }),
        };
        out.insert((*key).to_string(), v);
    }
    Value::Object(out)
}

/// The library searches this process ran (every backend's libraries, NCCL and the math
/// libraries: all loaded above), each try in order, and the site-packages folders looked into.
fn search_json() -> Value {
    let sites: Vec<Value> = loader::site_packages()
        .into_iter()
        .map(|(d, via)| json!({ "path": d.display().to_string(), "via": via }))
        .collect();
    let libraries: Vec<Value> = loader::traces()
        .iter()
        .map(|t| {
            let tries: Vec<Value> = t
                .tries
                .iter()
                .map(|x| {
                    let mut v = json!({
                        "step": x.candidate.step.label(),
                        "candidate": x.candidate.name,
                        "via": x.candidate.via,
                    });
                    match &x.outcome {
                        Ok(p) => v["opened"] = json!(p),
                        Err(e) => v["error"] = json!(e),
                    }
                    v
                })
                .collect();
            json!({ "library": t.library, "tries": tries })
        })
        .collect();
    json!({ "site_packages": sites, "libraries": libraries })
}

/// Prints [`search_json`]'s content for people: per library, each try in order; consecutive
/// tries of one step that failed for one reason share a line.
fn print_search() {
    println!();
    println!("library search (each try in order: explicit file, already loaded, site-packages, conda, install roots, loader's path; docs/choosing-a-backend.md):");
    let sites = loader::site_packages();
    if sites.is_empty() {
        println!("  site-packages: none (no VIRTUAL_ENV, CONDA_PREFIX or ANYCUDA_SITE_PACKAGES, and this is no Python)");
    }
    for (d, via) in &sites {
        println!("  site-packages: {} ({via})", d.display());
    }
    for t in loader::traces() {
        println!("  {}", t.library);
        let mut rest = t.tries.as_slice();
        while let Some(first) = rest.first() {
            let same = rest
                .iter()
                .take_while(|x| {
                    x.candidate.step == first.candidate.step
                        && x.outcome.is_err()
                        && x.outcome == first.outcome
                })
                .count()
                .max(1);
            let (group, tail) = rest.split_at(same);
            rest = tail;
            let step = first.candidate.step.label();
            let mut vias: Vec<&str> = Vec::new();
            for x in group {
                if !vias.contains(&x.candidate.via.as_str()) {
                    vias.push(&x.candidate.via);
                }
            }
            let names: Vec<&str> = group.iter().map(|x| x.candidate.name.as_str()).collect();
            let names = if names.len() > 4 {
                format!("{}, ... ({} in all)", names[..3].join(", "), names.len())
            } else {
                names.join(", ")
            };
            match &first.outcome {
                Ok(p) if *p == first.candidate.name => {
                    println!("    {step:<15} {names} ({}): opened", vias.join(", "))
                }
                Ok(p) => println!("    {step:<15} {names} ({}): opened {p}", vias.join(", ")),
                Err(e) => println!("    {step:<15} {names} ({}): {e}", vias.join(", ")),
            }
        }
    }
}
