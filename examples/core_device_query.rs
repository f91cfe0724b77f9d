//! Every device through the safe layer (`anycuda::core`): name, architecture, UUID, PCI bus id,
//! memory, compute capability and common attributes, the driver and runtime versions, and the
//! peer-access matrix. Checks that the typed properties agree with the raw attributes and with
//! each other; exits 1 where they do not. Prints "SKIP: no GPU" (exit 0) without a device.
//!
//! `cargo run --release --example core_device_query`

use anycuda::core::{system, Device};
use anycuda::driver::CUdevice_attribute as A;

mod core_common;
use core_common::{device_or_skip, main_with, Res};

fn main() {
    main_with("core_device_query", run);
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    print!("{}", system::backend_info()?);
    println!("driver {}", system::driver_version()?);
    match system::runtime_version() {
        Ok(v) => println!("runtime {v}"),
        Err(e) => println!("runtime: n/a ({e})"),
    }
    let devices = system::devices()?;
    let mut problems = Vec::new();
    for d in &devices {
        let p = d.properties()?;
        let arch = d.arch()?;
        let uuid = d.uuid()?;
        println!("\ndevice {}: {} ({arch})", d.ordinal(), p.name);
        println!("  uuid {uuid}, pci {}", d.pci_bus_id()?);
        println!(
            "  {} MiB, compute capability {}.{}, {} SMs/CUs, warp {}",
            p.total_memory >> 20,
            p.compute_capability.0,
            p.compute_capability.1,
            p.multiprocessor_count,
            p.warp_size
        );
        println!(
            "  block <= {} threads {:?}, grid <= {:?}, shared/block {} KiB, regs/block {}",
            p.max_threads_per_block,
            p.max_block_dim,
            p.max_grid_dim,
            p.max_shared_memory_per_block / 1024,
            p.max_registers_per_block
        );
        println!(
            "  clock {:?} kHz, bus {:?} bits, L2 {:?} B, unified addressing {}, managed {}, pools {}",
            p.clock_rate_khz,
            p.memory_bus_width,
            p.l2_cache_size,
            p.unified_addressing,
            p.managed_memory,
            p.memory_pools_supported
        );
        // The typed view must agree with the raw attributes.
        let checks = [
            (
                A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                p.multiprocessor_count,
            ),
            (A::CU_DEVICE_ATTRIBUTE_WARP_SIZE, p.warp_size),
            (
                A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                p.max_threads_per_block,
            ),
            (
                A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                p.compute_capability.0 as i32,
            ),
        ];
        for (a, v) in checks {
            let raw = d.attribute(a)?;
            if raw != v {
                problems.push(format!("device {}: {a:?} = {raw}, typed {v}", d.ordinal()));
            }
        }
        if p.name.is_empty() || p.total_memory == 0 || p.max_threads_per_block <= 0 {
            problems.push(format!(
                "device {}: implausible properties {p:?}",
                d.ordinal()
            ));
        }
        if arch.starts_with("sm_") {
            let (ma, mi) = p.compute_capability;
            if arch != format!("sm_{ma}{mi}") {
                problems.push(format!(
                    "device {}: arch {arch} vs cc {ma}.{mi}",
                    d.ordinal()
                ));
            }
        }
        let (free, total) = d.context()?.memory_info()?;
        println!(
            "  memory in use: {} of {} MiB free",
            free >> 20,
            total >> 20
        );
        if free > total {
            problems.push(format!(
                "device {}: free {free} > total {total}",
                d.ordinal()
            ));
        }
    }
    if devices.len() > 1 {
        println!("\npeer access (row can access column):");
        for a in &devices {
            let row: Vec<String> = devices
                .iter()
                .map(|b| match a.can_access_peer(b) {
                    Ok(v) => u8::from(v).to_string(),
                    Err(_) => "-".to_string(),
                })
                .collect();
            println!("  {}: {}", a.ordinal(), row.join(" "));
        }
    }
    match Device::new(devices.len()) {
        Err(e) => println!("\nDevice::new({}) -> {e}", devices.len()),
        Ok(_) => problems.push("a device past the end opened".to_string()),
    }
    if !problems.is_empty() {
        return Err(problems.join("\n").into());
    }
    println!("\ncore_device_query: OK");
    Ok(())
}
