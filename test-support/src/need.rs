//! What a GPU test needs, as `#[gpu_test(...)]` states it: one definition, compiled into both
//! crates (the attribute's crate reads it with `#[path]`), so the reason the attribute writes
//! into `#[ignore = "..."]` and the one a run prints come from the same code.

use std::fmt;

/// The backend a test needs, when it matters (`backend = "cuda"` or `backend = "hip"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CUDA backend (NVIDIA's libraries).
    Cuda,
    /// The HIP backend (AMD's libraries, or HIP's NVIDIA platform).
    Hip,
}

impl Backend {
    /// The backend `ANYCUDA_BACKEND`'s value names (case-insensitive, with anycuda's aliases:
    /// `nvidia` for `cuda`, `rocm` and `amd` for `hip`); `None` for `auto`, empty or unknown.
    pub fn from_env_value(v: &str) -> Option<Backend> {
        match v.trim().to_ascii_lowercase().as_str() {
            "cuda" | "nvidia" => Some(Backend::Cuda),
            "hip" | "rocm" | "amd" => Some(Backend::Hip),
            _ => None,
        }
    }

    /// The name `ANYCUDA_BACKEND` takes for it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cuda => "cuda",
            Backend::Hip => "hip",
        }
    }
}

/// The platform under the HIP backend, when a test needs one (`platform = "nvidia"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// HIP's NVIDIA platform (HIP over CUDA on an NVIDIA GPU; ci/hip-nvidia builds it).
    Nvidia,
    /// HIP on an AMD GPU.
    Amd,
}

/// What a `#[gpu_test]` needs of the machine it runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// How many GPUs (at least 1).
    pub gpus: u32,
    /// The backend, when the test is for one only.
    pub backend: Option<Backend>,
    /// The HIP backend's platform, when the test is for one only (implies `backend = "hip"`).
    pub platform: Option<Platform>,
}

impl Default for Need {
    fn default() -> Self {
        Need {
            gpus: 1,
            backend: None,
            platform: None,
        }
    }
}

/// The script that runs a GPU test unless `run_by = "..."` names another.
pub const DEFAULT_RUNNER: &str = "ci/gpu-test.sh";

impl Need {
    /// Sets one `key = "value"` of the attribute (`gpus`, `backend`, `platform`); the error says
    /// what is wrong, for the compiler to show at that key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "gpus" => match value.parse::<u32>() {
                Ok(n) if n >= 1 => self.gpus = n,
                _ => return Err(format!("gpus = {value}: a whole number of at least 1")),
            },
            "backend" => {
                self.backend = Some(match value {
                    "cuda" => Backend::Cuda,
                    "hip" => Backend::Hip,
                    _ => return Err(format!("backend = \"{value}\": \"cuda\" or \"hip\"")),
                })
            }
            "platform" => {
                self.platform = Some(match value {
                    "nvidia" => Platform::Nvidia,
                    "amd" => Platform::Amd,
                    _ => return Err(format!("platform = \"{value}\": \"nvidia\" or \"amd\"")),
                })
            }
            _ => {
                return Err(format!(
                    "unknown key `{key}`: gpus, backend, platform or run_by"
                ))
            }
        }
        if self.platform.is_some() && self.backend == Some(Backend::Cuda) {
            return Err("platform is the HIP backend's: backend = \"hip\" or none".into());
        }
        Ok(())
    }

    /// The backend the test needs: the one stated, or HIP when a platform is.
    pub fn backend(&self) -> Option<Backend> {
        self.backend.or(self.platform.map(|_| Backend::Hip))
    }

    /// The `#[ignore = "..."]` reason: the need and the command that runs the test.
    pub fn ignore_reason(&self, run_by: &str) -> String {
        format!("needs {self}: {run_by} runs it (by hand: --ignored on such a machine)")
    }
}

/// `a GPU`, `2 GPUs`, `a GPU, HIP backend on HIP's NVIDIA platform`, ...
impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.gpus {
            1 => f.write_str("a GPU")?,
            n => write!(f, "{n} GPUs")?,
        }
        match (self.backend(), self.platform) {
            (_, Some(Platform::Nvidia)) => f.write_str(", HIP backend on HIP's NVIDIA platform"),
            (_, Some(Platform::Amd)) => f.write_str(", HIP backend on an AMD GPU"),
            (Some(Backend::Cuda), None) => f.write_str(", CUDA backend"),
            (Some(Backend::Hip), None) => f.write_str(", HIP backend"),
            (None, None) => Ok(()),
        }
    }
}
