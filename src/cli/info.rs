//! `anycuda info`: backends, libraries, devices.

use anycuda::driver::{CUdevice, CUdevice_attribute as A};
use anycuda::{Backend, BackendKind, Driver};
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

fn device(b: Backend, ordinal: i32) -> Value {
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer.
    if let Err(e) = unsafe { b.cuDeviceGet(&mut dev, ordinal) }.result() {
        return json!({ "ordinal": ordinal, "error": e.to_string() });
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
    let mem = unsafe { b.cuDeviceTotalMem(&mut mem, dev) }
        .result()
        .map(|_| mem);
    let mut attrs = serde_json::Map::new();
    for (label, a) in ATTRS {
        let mut v = 0;
        // SAFETY: valid out-pointer.
        let r = unsafe { b.cuDeviceGetAttribute(&mut v, *a, dev) }.result();
        attrs.insert(
            label.to_string(),
            r.map_or_else(|e| json!(format!("n/a ({})", e.code())), |_| json!(v)),
        );
    }
    json!({
        "ordinal": ordinal,
        "name": name,
        "arch": b.device_arch(dev).unwrap_or_else(|e| format!("<{e}>")),
        "total_memory_bytes": mem.map_or_else(|e| json!(e.to_string()), |m| json!(m)),
        "attributes": attrs,
    })
}

fn backend_report(kind: BackendKind) -> Value {
    let b = match Backend::load(kind) {
        Ok(b) => b,
        Err(e) => {
            return json!({ "backend": kind.to_string(), "compiled_in": false, "error": e.to_string() })
        }
    };
    let libs: Vec<Value> = b
        .libraries()
        .into_iter()
        .map(|l| match l.status {
            Ok(ok) => json!({
                "role": l.role, "path": ok.path, "version": ok.version,
                "entry_points": ok.entry_points.0, "entry_points_declared": ok.entry_points.1,
            }),
            Err(e) => json!({ "role": l.role, "error": e.to_string() }),
        })
        .collect();
    let (devices, device_error) = match devices(b) {
        Ok(d) => (d, Value::Null),
        Err(e) => (Vec::new(), json!(e)),
    };
    json!({
        "backend": kind.to_string(),
        "compiled_in": true,
        "libraries": libs,
        "compiler_loaded": b.compiler_loaded(),
        "devices": devices,
        "device_error": device_error,
    })
}

fn devices(b: Backend) -> Result<Vec<Value>, String> {
    let n = anycuda::device_count(b)?;
    Ok((0..n).map(|i| device(b, i)).collect())
}

/// Runs `anycuda info`.
///
/// # Errors
/// None in practice: every failure is part of the report.
pub fn run(as_json: bool) -> Result<ExitCode, String> {
    let backends: Vec<Value> = [BackendKind::Cuda, BackendKind::Hip]
        .into_iter()
        .map(backend_report)
        .collect();
    let active = match anycuda::backend() {
        Ok(s) => {
            json!({ "backend": s.kind().to_string(), "choice": s.choice.to_string(), "reason": s.reason })
        }
        Err(e) => json!({ "error": e.to_string() }),
    };
    let any_device = backends
        .iter()
        .any(|b| b["devices"].as_array().is_some_and(|d| !d.is_empty()));
    let report = json!({
        "anycuda": env!("CARGO_PKG_VERSION"),
        "compiled_in": anycuda::compiled_in().iter().map(|k| k.to_string()).collect::<Vec<_>>(),
        "active": active,
        "backends": backends,
        "gpu_found": any_device,
    });
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        print_human(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_human(r: &Value) {
    println!("anycuda {}", r["anycuda"].as_str().unwrap_or("?"));
    let compiled: Vec<&str> = r["compiled_in"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    println!("compiled-in backends: {}", compiled.join(", "));
    match r["active"]["backend"].as_str() {
        Some(k) => println!(
            "active backend: {k} ({})",
            r["active"]["reason"].as_str().unwrap_or("")
        ),
        None => println!(
            "active backend: none: {}",
            r["active"]["error"].as_str().unwrap_or("")
        ),
    }
    for b in r["backends"].as_array().into_iter().flatten() {
        println!();
        let name = b["backend"].as_str().unwrap_or("?");
        if b["compiled_in"] == json!(false) {
            println!("[{name}] not compiled in");
            continue;
        }
        println!("[{name}]");
        for l in b["libraries"].as_array().into_iter().flatten() {
            let role = l["role"].as_str().unwrap_or("?");
            match l["path"].as_str() {
                Some(p) => println!(
                    "  {role:<8} {} ({}, {}/{} entry points)",
                    p,
                    l["version"].as_str().unwrap_or("?"),
                    l["entry_points"],
                    l["entry_points_declared"]
                ),
                None => println!(
                    "  {role:<8} unavailable: {}",
                    l["error"].as_str().unwrap_or("?")
                ),
            }
        }
        let devs = b["devices"].as_array().cloned().unwrap_or_default();
        if devs.is_empty() {
            println!(
                "  devices: none ({})",
                b["device_error"].as_str().unwrap_or("0 found")
            );
        }
        for d in devs {
            println!(
                "  device {}: {} [{}], {} MiB",
                d["ordinal"],
                d["name"].as_str().unwrap_or("?"),
                d["arch"].as_str().unwrap_or("?"),
                d["total_memory_bytes"]
                    .as_u64()
                    .map_or_else(|| "?".into(), |m| (m >> 20).to_string())
            );
            for (k, v) in d["attributes"].as_object().into_iter().flatten() {
                println!("      {k:<24} {v}");
            }
        }
    }
    if r["gpu_found"] != json!(true) {
        println!();
        println!("No GPU found. anycuda still works for compilation: `anycuda compile kernel.cu --backend cuda --arch sm_90`");
        println!("or `--backend hip --arch gfx90a` compiles with NVRTC or hipRTC when their libraries load.");
        println!("To run kernels, install an NVIDIA driver (libcuda) or ROCm (libamdhip64) with a GPU present.");
    }
}
