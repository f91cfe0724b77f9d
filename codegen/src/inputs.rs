//! Locating the pinned inputs that `ci/fetch-inputs.sh` fetches, and their versions.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The fix command printed whenever inputs are missing or outputs are stale.
pub const FIX_COMMAND: &str = "bash ci/fetch-inputs.sh && cargo run -p anycuda-codegen";

/// Where every input lives and which version it is.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The workspace root.
    pub root: PathBuf,
    /// `.cache/inputs/cuda/nvidia/cu13/include`.
    pub cuda_include: PathBuf,
    /// Directory holding the HIP 5.2.3 headers (`hip/...` below it), normally `/usr/include`.
    pub hip_include: PathBuf,
    /// `src/bindings` of the vendored cubecl-hip-sys crate.
    pub cubecl_bindings: PathBuf,
    /// PyPI `nvidia-cuda-runtime` version.
    pub cuda_runtime_version: String,
    /// PyPI `nvidia-cuda-runtime-cu12` version (CUDA 12's runtime, for `libcudart.so.12`).
    pub cuda12_runtime_version: String,
    /// PyPI `nvidia-cuda-nvrtc` version.
    pub cuda_nvrtc_version: String,
    /// crates.io `cubecl-hip-sys` version.
    pub cubecl_version: String,
    /// Debian `libamdhip64-dev` HIP version, e.g. `5.2.21153` (from `hip_version.h`).
    pub hip_523_version: String,
}

impl Inputs {
    /// Finds the inputs below `root`, failing with a message that names the fetch script.
    pub fn locate(root: &Path) -> Result<Self> {
        let script = root.join("ci/fetch-inputs.sh");
        let text = std::fs::read_to_string(&script)
            .with_context(|| format!("reading the pins from {}", script.display()))?;
        let pin = |key: &str| -> Result<String> {
            text.lines()
                .find_map(|l| {
                    let rest = l.trim().strip_prefix(key)?.strip_prefix("=\"")?;
                    Some(rest.split('"').next()?.to_string())
                })
                .with_context(|| format!("no `{key}=\"...\"` pin in {}", script.display()))
        };
        let inputs = root.join(".cache/inputs");
        let me = Inputs {
            root: root.to_path_buf(),
            cuda_include: inputs.join("cuda/nvidia/cu13/include"),
            hip_include: PathBuf::from("/usr/include"),
            cubecl_bindings: inputs.join("cubecl/cubecl-hip-sys/src/bindings"),
            cuda_runtime_version: pin("CUDA_RUNTIME_VERSION")?,
            cuda_nvrtc_version: pin("CUDA_NVRTC_VERSION")?,
            cuda12_runtime_version: pin("CUDA12_RUNTIME_VERSION")?,
            cubecl_version: pin("CUBECL_HIP_SYS_VERSION")?,
            hip_523_version: String::new(),
        };
        let required = [
            me.cuda_include.join("cuda.h"),
            me.cuda_include.join("cudaTypedefs.h"),
            me.cuda_include.join("cuda_runtime_api.h"),
            me.cuda_include.join("nvrtc.h"),
            inputs.join("cuda/nvidia/cuda_runtime/include/cuda_runtime_api.h"),
            me.hip_include.join("hip/hip_runtime_api.h"),
            me.hip_include.join("hip/hiprtc.h"),
            me.hip_include.join("hip/hip_version.h"),
            me.cubecl_bindings.join("mod.rs"),
        ];
        let missing: Vec<String> = required
            .iter()
            .filter(|p| !p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if !missing.is_empty() {
            bail!(
                "missing codegen inputs:\n  {}\nrun `bash ci/fetch-inputs.sh` first (fix: `{FIX_COMMAND}`)",
                missing.join("\n  ")
            );
        }
        // The wheels must be the pinned ones, not leftovers of an older pin.
        for (dist, v) in [
            ("nvidia_cuda_runtime", &me.cuda_runtime_version),
            ("nvidia_cuda_nvrtc", &me.cuda_nvrtc_version),
            ("nvidia_cuda_runtime_cu12", &me.cuda12_runtime_version),
        ] {
            let info = inputs.join(format!("cuda/{dist}-{v}.dist-info"));
            if !info.exists() {
                bail!(
                    "{} is missing: the unpacked CUDA wheels do not match the pins; run `bash ci/fetch-inputs.sh`",
                    info.display()
                );
            }
        }
        let hv = std::fs::read_to_string(me.hip_include.join("hip/hip_version.h"))?;
        let def = |k: &str| -> Result<String> {
            hv.lines()
                .find_map(|l| {
                    let mut it = l.split_whitespace();
                    (it.next() == Some("#define") && it.next() == Some(k))
                        .then(|| it.next().map(str::to_string))
                        .flatten()
                })
                .with_context(|| format!("no {k} in hip_version.h"))
        };
        let hip_523_version = format!(
            "{}.{}.{}",
            def("HIP_VERSION_MAJOR")?,
            def("HIP_VERSION_MINOR")?,
            def("HIP_VERSION_PATCH")?
        );
        Ok(Inputs {
            hip_523_version,
            ..me
        })
    }

    /// The cubecl `bindings_*.rs` files, ascending by their patch number.
    pub fn cubecl_files(&self) -> Result<Vec<PathBuf>> {
        let mut v: Vec<(u64, PathBuf)> = Vec::new();
        for e in std::fs::read_dir(&self.cubecl_bindings)
            .with_context(|| format!("listing {}", self.cubecl_bindings.display()))?
        {
            let p = e?.path();
            let Some(n) = p
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix("bindings_"))
                .and_then(|n| n.strip_suffix(".rs"))
                .and_then(|n| n.parse().ok())
            else {
                continue;
            };
            v.push((n, p));
        }
        v.sort();
        if v.is_empty() {
            bail!("no bindings_*.rs in {}", self.cubecl_bindings.display());
        }
        Ok(v.into_iter().map(|(_, p)| p).collect())
    }
}
