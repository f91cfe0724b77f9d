//! Compiling the source bundle of a PTX module ([`anycuda_rtc::rtc_bundle`], written by
//! `anycuda nvcc`) with hipRTC, which is how such PTX loads on an AMD GPU: `cuModuleLoadData`,
//! `cuModuleLoadDataEx` and `cuModuleLoad` on HIP call [`compile_bundle`] for PTX that carries
//! a bundle, then load the code object (`adapt/image.rs`); PTX without one keeps the
//! not-supported error.
//!
//! The compile goes through this backend's NVRTC API over hipRTC (`rtc.rs`), so the bundle's
//! CUDA options are translated as for any run-time compile, the built-in headers apply, and
//! the AMD target is the current device's unless one is named.
//!
//! Loads go through [`compile_bundle_cached`]: the code is looked up in the process's
//! [`anycuda_rtc::rtc_bundle::code_cache`] (the persistent program cache unless a program
//! installed another) under the bundle, the AMD target, the hipRTC library's identity (path,
//! version, size, modification time), this crate's version (its built-in headers) and whether
//! the built-in headers are on; with the cache turned off (`ANYCUDA_CACHE_DISABLE=1`) every
//! load compiles.

use crate::HipBackend;
use anycuda_rtc::rtc_bundle::Bundle;
pub use anycuda_rtc::rtc_bundle::BundleCompileError;

/// Compiles `bundle` with hipRTC and returns the AMD code object (PTX on HIP's NVIDIA
/// platform), through [`anycuda_rtc::rtc_bundle::compile`].
///
/// `target` names the AMD target (`gfx90a`, ...); `None` takes the current device's, as
/// every run-time compile on this backend does. The bundle's options are passed as NVRTC
/// options, translated by the backend.
///
/// # Errors
/// A [`BundleCompileError`]: hipRTC is not loaded (`NVRTC_ERROR_NOT_SUPPORTED`), a NUL inside
/// the bundle, an option the translation refuses, no AMD target (no device and none named), or
/// the compile failed (`NVRTC_ERROR_COMPILATION`, with the log).
pub fn compile_bundle(
    b: &HipBackend,
    bundle: &Bundle,
    target: Option<&str>,
) -> Result<Vec<u8>, BundleCompileError> {
    // On HIP's NVIDIA platform hipRTC is NVRTC, which takes CUDA's option (the target there is
    // the device's `sm_XY`); anycuda's own option is for AMD targets.
    let opt = target.map(|t| {
        if crate::conv::nvidia(b) {
            format!("--gpu-architecture={t}")
        } else {
            format!("--anycuda-hip-arch={t}")
        }
    });
    anycuda_rtc::rtc_bundle::compile(b, bundle, opt.as_deref())
}

/// What produced the code and for what: the cache key's fields besides the bundle, or `None`
/// when hipRTC cannot be identified (then nothing is cached).
fn key_fields(b: &HipBackend, target: &str) -> Option<Vec<Vec<u8>>> {
    let lib = b.rtc.as_ref().ok()?;
    anycuda_rtc::rtc_bundle::key_fields("anycuda-hip bundle code 3", target, &lib.path, lib.version)
}

/// [`compile_bundle`] through the process's code cache (see the module docs): the code, and
/// whether it came from the cache. `target` `None` is the current device's target; with no
/// device and no target nothing is cached and the compile reports the missing target.
///
/// # Errors
/// As [`compile_bundle`].
pub fn compile_bundle_cached(
    b: &HipBackend,
    bundle: &Bundle,
    target: Option<&str>,
) -> Result<(Vec<u8>, bool), BundleCompileError> {
    let arch = target.map(str::to_owned).or_else(|| b.current_arch());
    let key = arch.as_deref().and_then(|a| key_fields(b, a));
    // The target found for the key is the one compiled for, even if the device changes.
    anycuda_rtc::rtc_bundle::cached(key, bundle, plausible_code, || {
        compile_bundle(b, bundle, arch.as_deref())
    })
}

/// Whether `code` is what a bundle compile writes: an ELF code object, or PTX text (hipRTC's
/// output on HIP's NVIDIA platform: a `//` comment header, then `.version` and `.target`).
fn plausible_code(code: &[u8]) -> bool {
    code.starts_with(b"\x7fELF")
        || (code.starts_with(b"//")
            && code.windows(9).any(|w| w == b".version ")
            && code.windows(8).any(|w| w == b".target "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::image::{self, code_from_bundle};
    use anycuda_api::driver::CUresult;
    use anycuda_api::nvrtc::nvrtcResult;

    /// The backend with hipRTC loaded; `None` (skip) off CI when it is missing.
    fn hiprtc() -> Option<HipBackend> {
        let b = HipBackend::load();
        if b.native_hiprtc().is_some() && b.platform() == crate::Platform::Amd {
            return Some(b);
        }
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "hipRTC (AMD platform) must load under CI=true"
        );
        eprintln!("SKIP: hipRTC is not loaded");
        None
    }

    fn bundle() -> Bundle {
        Bundle {
            name: "scale.cu".into(),
            source: "#include \"scale.cuh\"\n\
                     extern \"C\" __global__ void scale(float* x, float a) {\n\
                     x[threadIdx.x] = mul(x[threadIdx.x], a * FACTOR);\n}\n"
                .into(),
            headers: vec![(
                "scale.cuh".into(),
                "__device__ inline float mul(float x, float a) { return x * a; }\n".into(),
            )],
            options: vec!["-DFACTOR=2.0f".into(), "-std=c++17".into()],
            producer: "test".into(),
            ..Bundle::default()
        }
    }

    #[test]
    fn a_bundle_compiles_to_an_amd_code_object() {
        let Some(b) = hiprtc() else { return };
        let code = compile_bundle(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(code.starts_with(b"\x7fELF"), "not an ELF");
        assert_eq!(u16::from_le_bytes([code[18], code[19]]), image::EM_AMDGPU);
        let has = |s: &[u8]| code.windows(s.len()).any(|w| w == s);
        assert!(
            has(b"scale\0") && has(b"scale.kd\0"),
            "kernel symbols missing"
        );
        // Without the header or the define the source does not compile: both were used.
        let mut no_header = bundle();
        no_header.headers.clear();
        let e = compile_bundle(&b, &no_header, Some("gfx90a")).unwrap_err();
        assert_eq!(e.code, nvrtcResult::NVRTC_ERROR_COMPILATION);
        assert!(e.log.contains("scale.cuh"), "{}", e.log);
        let mut no_define = bundle();
        no_define.options.clear();
        let e = compile_bundle(&b, &no_define, Some("gfx90a")).unwrap_err();
        assert!(e.log.contains("FACTOR"), "{}", e.log);
    }

    /// A code cache in memory that counts its hits, for the one test that installs it.
    #[derive(Default)]
    struct Counting {
        map: std::sync::Mutex<std::collections::HashMap<Vec<Vec<u8>>, Vec<u8>>>,
        hits: std::sync::atomic::AtomicUsize,
    }

    impl anycuda_rtc::rtc_bundle::CodeCache for &'static Counting {
        fn get(&self, fields: &[&[u8]]) -> Option<Vec<u8>> {
            let key: Vec<Vec<u8>> = fields.iter().map(|f| f.to_vec()).collect();
            let got = self.map.lock().unwrap().get(&key).cloned();
            if got.is_some() {
                self.hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            got
        }
        fn put(&self, fields: &[&[u8]], code: &[u8]) {
            let key = fields.iter().map(|f| f.to_vec()).collect();
            self.map.lock().unwrap().insert(key, code.to_vec());
        }
    }

    #[test]
    fn loads_go_through_the_installed_code_cache() {
        let Some(b) = hiprtc() else { return };
        let counting: &'static Counting = Box::leak(Box::default());
        assert!(anycuda_rtc::rtc_bundle::install_code_cache(Box::new(
            counting
        )));
        let (first, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(!hit && first.starts_with(b"\x7fELF"));
        let (second, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(hit && second == first);
        assert_eq!(counting.hits.load(std::sync::atomic::Ordering::SeqCst), 1);
        // Another bundle or another target is another key.
        let mut other = bundle();
        other.options.push("-DEXTRA=1".into());
        assert!(!compile_bundle_cached(&b, &other, Some("gfx90a")).unwrap().1);
        assert!(
            !compile_bundle_cached(&b, &bundle(), Some("gfx908"))
                .unwrap()
                .1
        );
        // An entry that is not a code object is a miss, and is replaced.
        for v in counting.map.lock().unwrap().values_mut() {
            *v = b"junk".to_vec();
        }
        let (again, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(!hit && again.starts_with(b"\x7fELF"));
    }

    #[test]
    fn the_load_path_takes_the_bundle() {
        let Some(b) = hiprtc() else { return };
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
        // No bundle: the load goes on to the PTX refusal, as before.
        assert!(code_from_bundle(&b, ptx.as_bytes()).is_none());
        // A damaged bundle: not supported, with the damage as the reason.
        let text = bundle().to_text().unwrap();
        let damaged = format!("{ptx}{}", &text[..text.len() / 2]);
        let r = code_from_bundle(&b, damaged.as_bytes()).unwrap();
        assert_eq!(r, Err(CUresult::CUDA_ERROR_NOT_SUPPORTED));
        assert_eq!(
            image::not_supported_reason(CUresult::CUDA_ERROR_NOT_SUPPORTED),
            Some(image::DAMAGED_BUNDLE_ON_AMD)
        );
        // A whole bundle is compiled for the current device; this machine has none, so the
        // compile (not the PTX refusal) fails, as the load's CUDA_ERROR_INVALID_PTX. With a
        // device it is a_bundle_compiles_to_an_amd_code_object's compile.
        let whole = format!("{ptx}{text}");
        let r = code_from_bundle(&b, whole.as_bytes()).unwrap();
        let mut n = 0;
        // SAFETY: valid out-pointer.
        let has_device = unsafe {
            anycuda_api::traits::Driver::cuDeviceGetCount(&b, &mut n) == CUresult::CUDA_SUCCESS
                && n > 0
        };
        if has_device {
            assert!(r.is_ok_and(|c| c.starts_with(b"\x7fELF")));
        } else {
            assert_eq!(r, Err(CUresult::CUDA_ERROR_INVALID_PTX));
        }
    }

    #[test]
    fn only_compiler_output_counts_as_a_cache_hit() {
        assert!(plausible_code(b"\x7fELF\x02\x01"));
        assert!(plausible_code(
            b"//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_90\n"
        ));
        assert!(!plausible_code(b""));
        assert!(!plausible_code(b"garbage"));
        assert!(!plausible_code(b"// a comment, no PTX"));
        assert!(!plausible_code(b".version 8.8\n.target sm_90\n"));
    }
}
