//! Compile-time checks that cudarc's names and trait bounds exist where cudarc has them.

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaModule, CudaSlice, CudaStream, CudaView,
    CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, DriverError, HostSlice,
    LaunchArgs, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice, ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx, compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use std::sync::Arc;

fn repr<T: DeviceRepr + ValidAsZeroBits>() {}
fn send_sync<T: Send + Sync>() {}

#[test]
fn names_and_bounds() {
    repr::<f32>();
    repr::<[u64; 4]>();
    send_sync::<CudaContext>();
    send_sync::<CudaStream>();
    send_sync::<CudaEvent>();
    send_sync::<CudaSlice<f32>>();
    send_sync::<CudaModule>();
    send_sync::<CudaFunction>();
    send_sync::<CudaGraph>();
    send_sync::<UnifiedSlice<f32>>();
    send_sync::<PinnedHostSlice<f32>>();
    let _: fn(usize) -> Result<Arc<CudaContext>, DriverError> = CudaContext::new;
    let _: fn(&'static str) -> Result<Ptx, CompileError> = compile_ptx::<&'static str>;
    let _: fn(&'static str, CompileOptions) -> Result<Ptx, CompileError> =
        compile_ptx_with_opts::<&'static str>;
    let cfg = LaunchConfig::for_num_elems(2049);
    assert_eq!(
        (cfg.grid_dim, cfg.block_dim, cfg.shared_mem_bytes),
        ((3, 1, 1), (1024, 1, 1), 0)
    );
    fn views<'a>(_: CudaView<'a, f32>, _: CudaViewMut<'a, f32>) {}
    fn traits<T, S: DevicePtr<T> + DeviceSlice<T>, M: DevicePtrMut<T>, H: HostSlice<T> + ?Sized>() {
    }
    traits::<f32, CudaSlice<f32>, CudaSlice<f32>, [f32]>();
    fn push<'a>(b: &mut LaunchArgs<'a>, x: &'a CudaSlice<f32>, n: &'a i32)
    where
        LaunchArgs<'a>: PushKernelArg<&'a CudaSlice<f32>> + PushKernelArg<&'a i32>,
    {
        b.arg(x).arg(n);
    }
    let _ = push;
    let _ = views;
}

#[cfg(feature = "f16")]
#[test]
fn half_types_are_device_repr() {
    repr::<half::f16>();
    repr::<half::bf16>();
    assert_eq!(<half::f16 as cudarc::types::CudaTypeName>::NAME, "__half");
}

#[cfg(feature = "f8")]
#[test]
fn float8_types_are_device_repr() {
    repr::<float8::F8E4M3>();
    repr::<float8::F8E5M2>();
}

/// `?` into `DriverError` from a closure's `Ok(())` must infer, as it does with cudarc (its
/// examples write `thread::spawn(move || { ...?; Ok(()) })`): `DriverError` may have no `From`
/// impl but the identity one. This test fails to compile if one is added.
#[test]
fn question_mark_into_driver_error_infers() {
    fn run() -> Result<u32, DriverError> {
        let f = || {
            let n: u32 = 7;
            Ok(n)
        };
        let n = f()?;
        Ok(n + 1)
    }
    assert_eq!(run(), Ok(8));
}
