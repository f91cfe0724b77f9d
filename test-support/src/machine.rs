//! What the machine has, found without the anycuda crates (a dev-dependency of theirs must not
//! depend on them): the GPUs the kernel drivers list and the backend `ANYCUDA_BACKEND` chooses.

use crate::need::{Backend, Need, Platform};
use std::path::Path;

/// Overrides the GPU count found on the machine (for tests of this crate, and for a machine
/// whose driver files are hidden from the process).
pub const GPUS_ENV: &str = "ANYCUDA_TEST_GPUS";

/// The GPUs and the backend choice a test runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// NVIDIA GPUs visible to the process.
    pub nvidia: u32,
    /// AMD GPUs visible to the process.
    pub amd: u32,
    /// The backend `ANYCUDA_BACKEND` names; `None` for unset or `auto`.
    pub backend: Option<Backend>,
    /// Where the counts came from (the `not run:` line ends with it).
    pub source: String,
}

impl Machine {
    /// This machine: `ANYCUDA_TEST_GPUS` if set (counted as NVIDIA GPUs), else the NVIDIA
    /// driver's `/proc/driver/nvidia/gpus` (or `nvidia-smi -L` where that is hidden), and AMD's
    /// KFD topology (`/sys/class/kfd/kfd/topology/nodes`, nodes with SIMDs), each cut to
    /// `CUDA_VISIBLE_DEVICES` / `HIP_VISIBLE_DEVICES` (or `ROCR_VISIBLE_DEVICES`) when set.
    pub fn detect() -> Machine {
        let backend = std::env::var("ANYCUDA_BACKEND")
            .ok()
            .and_then(|v| Backend::from_env_value(&v));
        if let Some(n) = std::env::var(GPUS_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
        {
            return Machine {
                nvidia: n,
                amd: 0,
                backend,
                source: format!("{GPUS_ENV}={n}"),
            };
        }
        let (nvidia, nv_src) = nvidia_gpus();
        let (amd, amd_src) = amd_gpus();
        Machine {
            nvidia: visible(nvidia, &["CUDA_VISIBLE_DEVICES"]),
            amd: visible(amd, &["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]),
            backend,
            source: format!("{nv_src}; {amd_src}"),
        }
    }

    /// The GPUs a test with this need can use: NVIDIA's for CUDA and for HIP's NVIDIA platform,
    /// AMD's for HIP on AMD, both where the backend is open (HIP runs on either vendor's GPUs).
    pub fn gpus_for(&self, need: &Need) -> u32 {
        match (need.backend(), need.platform) {
            (_, Some(Platform::Nvidia)) | (Some(Backend::Cuda), None) => self.nvidia,
            (_, Some(Platform::Amd)) => self.amd,
            (Some(Backend::Hip), None) | (None, None) => self.nvidia + self.amd,
        }
    }

    /// Why `need` is not met here, or `Ok` when the test can run.
    pub fn check(&self, need: &Need) -> Result<(), String> {
        if let (Some(want), Some(chosen)) = (need.backend(), self.backend) {
            if want != chosen {
                return Err(format!("needs {need}; ANYCUDA_BACKEND={}", chosen.name()));
            }
        }
        let have = self.gpus_for(need);
        if have < need.gpus {
            return Err(format!("needs {need}, found {have}"));
        }
        Ok(())
    }
}

/// NVIDIA GPUs the driver lists, and where the count came from.
fn nvidia_gpus() -> (u32, &'static str) {
    if let Some(n) = count_dir("/proc/driver/nvidia/gpus", |_| true) {
        return (n, "/proc/driver/nvidia/gpus");
    }
    match std::process::Command::new("nvidia-smi").arg("-L").output() {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let n = text.lines().filter(|l| l.starts_with("GPU ")).count();
            (n as u32, "nvidia-smi -L")
        }
        _ => (0, "no NVIDIA driver"),
    }
}

/// AMD GPUs in the KFD topology: the nodes with SIMDs (CPU nodes have none).
fn amd_gpus() -> (u32, &'static str) {
    let n = count_dir("/sys/class/kfd/kfd/topology/nodes", |node| {
        std::fs::read_to_string(node.join("properties")).is_ok_and(|p| {
            p.lines().any(|l| {
                l.strip_prefix("simd_count ")
                    .is_some_and(|v| v.trim().parse::<u64>().is_ok_and(|n| n > 0))
            })
        })
    });
    match n {
        Some(n) => (n, "KFD topology"),
        None => (0, "no AMD KFD"),
    }
}

/// How many entries of `dir` pass `keep`; `None` when `dir` cannot be read.
fn count_dir(dir: &str, keep: impl Fn(&Path) -> bool) -> Option<u32> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(entries.flatten().filter(|e| keep(&e.path())).count() as u32)
}

/// `found`, cut to the devices the first set `*_VISIBLE_DEVICES` variable lists.
fn visible(found: u32, vars: &[&str]) -> u32 {
    for v in vars {
        if let Ok(list) = std::env::var(v) {
            let listed = list.split(',').take_while(|s| !s.trim().is_empty()).count() as u32;
            return found.min(listed);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(nvidia: u32, amd: u32, backend: Option<Backend>) -> Machine {
        Machine {
            nvidia,
            amd,
            backend,
            source: "test".into(),
        }
    }

    fn need(pairs: &[(&str, &str)]) -> Need {
        let mut n = Need::default();
        for (k, v) in pairs {
            n.set(k, v).unwrap();
        }
        n
    }

    #[test]
    fn one_gpu_runs_where_there_is_one() {
        assert_eq!(machine(1, 0, None).check(&Need::default()), Ok(()));
        assert_eq!(
            machine(0, 1, Some(Backend::Hip)).check(&Need::default()),
            Ok(())
        );
        assert_eq!(
            machine(0, 0, None).check(&Need::default()),
            Err("needs a GPU, found 0".into())
        );
    }

    #[test]
    fn two_gpus_need_two() {
        let two = need(&[("gpus", "2")]);
        assert_eq!(
            machine(1, 0, None).check(&two),
            Err("needs 2 GPUs, found 1".into())
        );
        assert_eq!(machine(2, 0, Some(Backend::Cuda)).check(&two), Ok(()));
    }

    #[test]
    fn a_backend_need_follows_anycuda_backend() {
        let hip = need(&[("backend", "hip")]);
        assert_eq!(machine(1, 0, Some(Backend::Hip)).check(&hip), Ok(()));
        // Unset or auto: the test loads what it needs itself.
        assert_eq!(machine(1, 0, None).check(&hip), Ok(()));
        assert_eq!(
            machine(1, 0, Some(Backend::Cuda)).check(&hip),
            Err("needs a GPU, HIP backend; ANYCUDA_BACKEND=cuda".into())
        );
        // CUDA counts NVIDIA's GPUs only.
        let cuda = need(&[("backend", "cuda")]);
        assert!(machine(0, 2, None).check(&cuda).is_err());
    }

    #[test]
    fn hips_nvidia_platform_needs_an_nvidia_gpu() {
        let nv = need(&[("platform", "nvidia")]);
        assert_eq!(nv.backend(), Some(Backend::Hip));
        assert_eq!(machine(1, 0, Some(Backend::Hip)).check(&nv), Ok(()));
        assert_eq!(
            machine(0, 1, Some(Backend::Hip)).check(&nv),
            Err("needs a GPU, HIP backend on HIP's NVIDIA platform, found 0".into())
        );
    }

    #[test]
    fn visible_devices_cut_the_count() {
        // The variables are read here, so only the pure part is checked: no variable set
        // under these names in the test process.
        assert_eq!(visible(3, &["ANYCUDA_TEST_UNSET_VISIBLE"]), 3);
    }
}
