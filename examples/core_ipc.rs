//! Interprocess communication through the safe layer (cuda.core's `Buffer`/`Event` IPC): this
//! process shares a device buffer and an interprocess event with a child process (itself, run
//! again with `--child`), which waits on the event, reads the buffer, and writes back. Checks
//! every result; prints "SKIP: no GPU" (exit 0) without a device.
//!
//! `cargo run --release --example core_ipc`

use anycuda::core::{
    Buffer, Context, DeviceMemoryResource, Event, EventOptions, IpcEventHandle, IpcMemHandle,
    IpcMemory, StreamOptions,
};
use std::process::Command;
use std::sync::Arc;

mod core_common;
use core_common::{device_or_skip, main_with, Res};

const N: usize = 1 << 20;

fn main() {
    main_with("core_ipc", run);
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Res<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| Ok(u8::from_str_radix(s.get(i..i + 2).ok_or("odd hex")?, 16)?))
        .collect()
}

fn run() -> Res<()> {
    let Some(dev) = device_or_skip()? else {
        return Ok(());
    };
    let ctx = dev.context()?;
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        return child(&ctx, &args[2], &args[3]);
    }

    // Shareable memory comes from cuMemAlloc: CUDA refuses IPC of stream-ordered pool memory.
    let stream = ctx.create_stream(StreamOptions::default().non_blocking(true))?;
    let mr = Arc::new(DeviceMemoryResource::without_pools(&ctx));
    let mut buf = Buffer::<f32>::new_in(mr, &stream, N)?;
    buf.fill(1.5, &stream)?;
    // The child orders its reads after this event; no host synchronization needed here.
    let ready = stream.record(EventOptions::ipc())?;
    let mem = IpcMemHandle::new(&buf)?;
    let ev = ready.ipc_handle()?;
    println!(
        "parent: sharing {} bytes ({mem:?}) and {ev:?}",
        mem.size_in_bytes()
    );

    // The child's opens are sound because `buf` and `ready` live until it has exited.
    let status = Command::new(std::env::current_exe()?)
        .args(["--child", &hex(&mem.to_bytes()), &hex(&ev.to_bytes())])
        .status()?;
    if !status.success() {
        return Err(format!("the child process failed: {status}").into());
    }
    let back = buf.to_vec()?;
    if back.iter().any(|&x| x != 3.0) {
        return Err(format!("parent: expected the child's 3.0, read {}", back[0]).into());
    }
    println!("parent: the child's writes arrived ({N} values of 3.0)");
    Ok(())
}

fn child(ctx: &Context, mem: &str, ev: &str) -> Res<()> {
    let (ev, mem) = (
        IpcEventHandle::from_bytes(&unhex(ev)?)?,
        IpcMemHandle::from_bytes(&unhex(mem)?)?,
    );
    // SAFETY: the parent keeps its event and buffer alive until this process has exited (it
    // waits for us before it reads the buffer and drops them).
    let ready = unsafe { Event::from_ipc_handle(ctx, &ev)? };
    // SAFETY: as above.
    let mut mem = unsafe { IpcMemory::<f32>::open(ctx, &mem)? };
    ready.synchronize()?; // the parent's fill has completed
    let mut v = mem.to_vec()?;
    if v.iter().any(|&x| x != 1.5) {
        return Err(format!("child: expected the parent's 1.5, read {}", v[0]).into());
    }
    v.iter_mut().for_each(|x| *x *= 2.0);
    mem.copy_from_host(&v)?;
    println!(
        "child: read {} values of 1.5, wrote them doubled",
        mem.len()
    );
    Ok(())
}
