//! Every device with its name, target, compute units, memory, clocks and limits, and the peer
//! access matrix, like CUDA's deviceQuery sample, on whichever backend anycuda picks. The Driver
//! API (`cuDeviceGetAttribute`, `cuDeviceTotalMem`, `cuDeviceCanAccessPeer`) and the Runtime API
//! (`cudaGetDeviceProperties`) are both asked, and must agree on name, memory, SM count, compute
//! capability and limits; exits 1 where they do not. "skipped: no GPU" (exit 0) only when no
//! device exists.
//!
//! `cargo run --release --example device_query`

use anycuda::driver::*;
use anycuda::runtime::*;
use std::ffi::c_char;

mod common;
use common::{device_or_skip, Res};

fn main() {
    if let Err(e) = run() {
        eprintln!("device_query: FAILED: {e}");
        std::process::exit(1);
    }
}

fn cstr(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One attribute, or the error as text (an attribute a backend cannot answer is reported, not
/// fatal).
fn attr(dev: CUdevice, a: CUdevice_attribute) -> Result<i32, String> {
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe { cuDeviceGetAttribute(&mut v, a, dev) }
        .result()
        .map(|()| v)
        .map_err(|e| format!("n/a ({})", e.code()))
}

fn show(v: &Result<i32, String>) -> String {
    match v {
        Ok(v) => v.to_string(),
        Err(e) => e.clone(),
    }
}

fn run() -> Res<()> {
    let Some(backend) = device_or_skip()? else {
        return Ok(());
    };
    use CUdevice_attribute as A;
    let mut problems = Vec::new();
    // SAFETY: queries only: every out-parameter is a local of the type the call writes (`name` is
    // 256 chars and that length is passed), and device handles come from cuDeviceGet.
    unsafe {
        cuInit(0).result()?;
        let (mut drv, mut rt) = (0, 0);
        cuDriverGetVersion(&mut drv).result()?;
        let rt_ok = cudaRuntimeGetVersion(&mut rt).result();
        println!("driver API version {drv}; runtime version {rt} ({rt_ok:?})");
        let mut count = 0;
        cuDeviceGetCount(&mut count).result()?;
        let mut rt_count = 0;
        cudaGetDeviceCount(&mut rt_count).result()?;
        println!("{count} device(s) (runtime sees {rt_count})");
        if rt_count != count {
            problems.push(format!("driver sees {count} devices, runtime {rt_count}"));
        }
        for ordinal in 0..count {
            let mut dev: CUdevice = 0;
            cuDeviceGet(&mut dev, ordinal).result()?;
            let mut name = [0 as c_char; 256];
            cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev).result()?;
            let name = cstr(&name);
            let mut total = 0usize;
            cuDeviceTotalMem(&mut total, dev).result()?;
            let arch = backend.device_arch(dev).map_err(|e| e.to_string());
            let a = |x| attr(dev, x);
            let (major, minor) = (
                a(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                a(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            );
            let sms = a(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
            println!("\nDevice {ordinal}: \"{name}\"");
            println!(
                "  target (compiler arch)                  {}",
                arch.clone().unwrap_or_else(|e| e)
            );
            println!("  compute capability                      {major}.{minor}");
            println!("  multiprocessors (SMs / CUs)             {sms}");
            println!(
                "  global memory                           {} MiB ({total} bytes)",
                total >> 20
            );
            let rows: &[(&str, CUdevice_attribute)] = &[
                ("GPU clock rate (kHz)", A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
                (
                    "memory clock rate (kHz)",
                    A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
                ),
                (
                    "memory bus width (bits)",
                    A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                ),
                ("L2 cache (bytes)", A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
                (
                    "constant memory (bytes)",
                    A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
                ),
                (
                    "shared memory per block (bytes)",
                    A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                ),
                (
                    "shared memory per block, opt-in",
                    A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                ),
                (
                    "shared memory per SM (bytes)",
                    A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                ),
                (
                    "registers per block",
                    A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
                ),
                ("warp size", A::CU_DEVICE_ATTRIBUTE_WARP_SIZE),
                (
                    "max threads per SM",
                    A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                ),
                (
                    "max threads per block",
                    A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                ),
                ("max block dim x", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                ("max block dim y", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                ("max block dim z", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
                ("max grid dim x", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                ("max grid dim y", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                ("max grid dim z", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
                (
                    "concurrent kernels",
                    A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS,
                ),
                (
                    "async copy engines",
                    A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT,
                ),
                ("ECC enabled", A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
                ("integrated", A::CU_DEVICE_ATTRIBUTE_INTEGRATED),
                (
                    "can map host memory",
                    A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
                ),
                (
                    "unified addressing",
                    A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
                ),
                ("managed memory", A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY),
                (
                    "concurrent managed access",
                    A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
                ),
                (
                    "cooperative launch",
                    A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                ),
                ("compute mode", A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE),
                ("PCI domain", A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                ("PCI bus", A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                ("PCI device", A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
            ];
            let mut values = std::collections::HashMap::new();
            for (label, at) in rows {
                let v = a(*at);
                println!("  {label:<40}{}", show(&v));
                values.insert(*label, v);
            }

            // The runtime's view must agree with the driver's.
            let mut prop: cudaDeviceProp = std::mem::zeroed();
            cudaGetDeviceProperties(&mut prop, ordinal).result()?;
            let rt_name = cstr(&prop.name);
            let mut agree = |what: &str, drv: String, rt: String| {
                if drv != rt {
                    problems.push(format!(
                        "device {ordinal} {what}: driver {drv}, runtime {rt}"
                    ));
                }
            };
            agree("name", name.clone(), rt_name);
            agree(
                "total memory",
                total.to_string(),
                prop.totalGlobalMem.to_string(),
            );
            agree(
                "SM count",
                sms.to_string(),
                prop.multiProcessorCount.to_string(),
            );
            agree(
                "compute capability",
                format!("{major}.{minor}"),
                format!("{}.{}", prop.major, prop.minor),
            );
            let get = |l: &str| values.get(l).cloned().unwrap_or(Err(String::new()));
            agree(
                "warp size",
                show(&get("warp size")),
                prop.warpSize.to_string(),
            );
            agree(
                "max threads per block",
                show(&get("max threads per block")),
                prop.maxThreadsPerBlock.to_string(),
            );
            agree(
                "max block dims",
                format!(
                    "{}x{}x{}",
                    show(&get("max block dim x")),
                    show(&get("max block dim y")),
                    show(&get("max block dim z"))
                ),
                format!(
                    "{}x{}x{}",
                    prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2]
                ),
            );
            println!("  cudaGetDeviceProperties                 \"{}\", {} SMs, L2 {} bytes, {} threads/SM",
                cstr(&prop.name), prop.multiProcessorCount, prop.l2CacheSize, prop.maxThreadsPerMultiProcessor);
            if sms <= 0 || total == 0 || name.is_empty() {
                problems.push(format!("device {ordinal}: implausible name/SMs/memory"));
            }
            if let Err(e) = arch {
                problems.push(format!("device {ordinal}: no target: {e}"));
            }
        }

        println!("\nPeer access (cuDeviceCanAccessPeer, row -> column):");
        if count < 2 {
            println!("  one device: no peers");
        }
        for i in 0..count {
            let mut row = format!("  {i}:");
            for j in 0..count {
                if i == j {
                    row.push_str("  -");
                    continue;
                }
                let (mut di, mut dj) = (0, 0);
                cuDeviceGet(&mut di, i).result()?;
                cuDeviceGet(&mut dj, j).result()?;
                let mut can = 0;
                cuDeviceCanAccessPeer(&mut can, di, dj).result()?;
                let mut rt_can = 0;
                cudaDeviceCanAccessPeer(&mut rt_can, i, j).result()?;
                if can != rt_can {
                    problems.push(format!("peer {i}->{j}: driver {can}, runtime {rt_can}"));
                }
                row.push_str(if can != 0 { "  Y" } else { "  N" });
            }
            if count >= 2 {
                println!("{row}");
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("; ").into());
    }
    println!("\ndevice_query: OK");
    Ok(())
}
