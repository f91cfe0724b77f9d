//! Memory resources through the safe layer: device memory (stream-ordered pools where the
//! device has them, and plain cuMemAlloc), pinned host memory and managed memory, each behind
//! the same `Buffer<T>`; sub-views, fills, device-to-device and peer copies. Checks every
//! result; prints "SKIP: no GPU" (exit 0) without a device.
//!
//! `cargo run --release --example core_memory_resources`

use anycuda::core::{
    Buffer, Device, DeviceMemoryResource, ManagedMemoryResource, MemoryResource,
    PinnedMemoryResource, StreamOptions,
};
use std::sync::Arc;

mod core_common;
use core_common::{device_or_skip, main_with, Res};

fn main() {
    main_with("core_memory_resources", run);
}

fn run() -> Res<()> {
    let Some(dev) = device_or_skip()? else {
        return Ok(());
    };
    let ctx = dev.context()?;
    let s = ctx.create_stream(StreamOptions::default())?;
    let n = 1 << 16;
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();

    let resources: Vec<(&str, Arc<dyn MemoryResource>)> = vec![
        (
            "device (pools if supported)",
            Arc::new(DeviceMemoryResource::new(&ctx)),
        ),
        (
            "device (cuMemAlloc)",
            Arc::new(DeviceMemoryResource::without_pools(&ctx)),
        ),
        ("pinned host", Arc::new(PinnedMemoryResource::new(&ctx))),
        ("managed", Arc::new(ManagedMemoryResource::new(&ctx))),
    ];
    for (name, mr) in resources {
        let host_ok = mr.is_host_accessible();
        let mut b = Buffer::<f32>::new_in(mr, &s, host.len())?;
        b.copy_from_host(&host)?;
        // Second half set to -1 with a fill on a sub-view.
        b.view_mut(n / 2..)?.fill(-1.0, &s)?;
        let back = b.to_vec()?;
        let want = |i: usize| if i < n / 2 { i as f32 } else { -1.0 };
        if let Some(i) = (0..n).find(|&i| back[i] != want(i)) {
            return Err(format!("{name}: element {i} is {}, want {}", back[i], want(i)).into());
        }
        if host_ok {
            // Host-accessible memory is readable in place once the GPU work is done.
            let h = b.as_host_slice()?;
            if h[0] != 0.0 || h[n - 1] != -1.0 {
                return Err(format!("{name}: host view disagrees").into());
            }
        } else if b.as_host_slice().is_ok() {
            return Err(format!("{name}: device memory handed out as a host slice").into());
        }
        println!(
            "{name:<28} {} KiB at {:#x}: OK",
            b.size_in_bytes() >> 10,
            b.as_raw()
        );
    }

    // Device-to-device, and out-of-range views refused with an error.
    let src = s.clone_from_host(&host)?;
    let mut dst = s.alloc_zeros::<f32>(n)?;
    dst.view_mut(..100)?.copy_from(&src.view(n - 100..)?, &s)?;
    let d = dst.to_vec()?;
    if d[0] != (n - 100) as f32 || d[99] != (n - 1) as f32 || d[100] != 0.0 {
        return Err("device-to-device view copy wrong".into());
    }
    match src.view(0..n + 1) {
        Err(e) => println!("out-of-range view -> {e}"),
        Ok(_) => return Err("an out-of-range view was accepted".into()),
    }

    // Peer copy: to the second device where there is one, else within device 0.
    let peer = if Device::count()? > 1 {
        Device::new(1)?
    } else {
        dev
    };
    let pctx = peer.context()?;
    let ps = pctx.create_stream(StreamOptions::default())?;
    let mut on_peer = ps.alloc::<f32>(n)?;
    on_peer.copy_from_peer(&src, &ps)?;
    if on_peer.to_vec()? != host {
        return Err("peer copy wrong".into());
    }
    println!("peer copy device 0 -> device {}: OK", peer.ordinal());
    if peer != dev {
        match on_peer.copy_from(&src, &ps) {
            Err(e) => println!("same-context copy across devices -> {e}"),
            Ok(()) => return Err("a buffer of another device was accepted".into()),
        }
    }
    println!("core_memory_resources: OK");
    Ok(())
}
