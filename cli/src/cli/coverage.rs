//! `anycuda coverage`: what of the CUDA API is known, served, and refused, per backend.
//!
//! Every number is derived from code: the function catalogue generated from the headers, the
//! trait methods (`*_METHODS`) and each backend's `served!` impl lists.

use anycuda::{served_by, BackendKind, CudaApi};
use serde_json::{json, Value};
use std::process::ExitCode;
use strum::IntoEnumIterator;

/// Runs `anycuda coverage`.
///
/// # Errors
/// None in practice.
pub fn run(as_json: bool, verbose: bool) -> Result<ExitCode, String> {
    let mut out = serde_json::Map::new();
    for api in CudaApi::iter() {
        let a = (
            api.catalogue(),
            api.exposed(),
            served_by(BackendKind::Cuda, api),
            served_by(BackendKind::Hip, api),
        );
        let (known, exposed, cuda, hip) = a;
        let known: Vec<&str> = known.iter().map(|f| f.name).collect();
        let hip_unsupported: Option<Vec<&str>> =
            hip.map(|h| exposed.iter().copied().filter(|m| !h.contains(m)).collect());
        let not_exposed: Vec<&str> = known
            .iter()
            .copied()
            .filter(|f| !exposed.contains(f))
            .collect();
        let mut v = json!({
            "cuda_total": known.len(),
            "exposed": exposed.len(),
            "cuda_backend": cuda.map(<[_]>::len),
            "hip_backend": hip.map(<[_]>::len),
            "hip_unsupported": hip_unsupported.as_ref().map(Vec::len),
            "not_exposed": not_exposed.len(),
        });
        if verbose {
            v["names"] = json!({
                "cuda_backend": cuda,
                "hip_backend": hip,
                "hip_unsupported": hip_unsupported,
                "not_exposed": not_exposed,
            });
        }
        out.insert(api.to_string(), v);
    }
    out.insert("nccl".into(), nccl_entry(verbose));
    out.insert("curand".into(), curand_entry(verbose));
    out.insert("cublas".into(), cublas_entry(verbose));
    out.insert("cublaslt".into(), cublaslt_entry(verbose));
    let out = Value::Object(out);
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let n = |v: &Value| {
        v.as_u64()
            .map_or_else(|| "-".to_string(), |n| n.to_string())
    };
    println!(
        "{:<8} {:>10} {:>8} {:>13} {:>12} {:>16}",
        "API", "CUDA total", "exposed", "CUDA backend", "HIP backend", "HIP unsupported"
    );
    for key in KEYS {
        let v = &out[key];
        println!(
            "{key:<8} {:>10} {:>8} {:>13} {:>12} {:>16}",
            n(&v["cuda_total"]),
            n(&v["exposed"]),
            n(&v["cuda_backend"]),
            n(&v["hip_backend"]),
            n(&v["hip_unsupported"])
        );
    }
    println!("\nexposed: CUDA functions callable through anycuda; the rest of the catalogue is not exposed yet.");
    println!(
        "HIP unsupported: exposed functions that answer the API's not-supported error on HIP."
    );
    println!("cublaslt: the HIP column is AMD's (hipBLASLt); hipBLASLt has no NVIDIA build, so on HIP's NVIDIA platform every cuBLASLt call is not supported.");
    if verbose {
        for key in KEYS {
            for (label, list) in out[key]["names"].as_object().into_iter().flatten() {
                let names: Vec<&str> = list
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                println!("\n{key} {label} ({}):\n  {}", names.len(), names.join(" "));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The rows, in the order they print.
const KEYS: [&str; 7] = [
    "driver", "runtime", "nvrtc", "nccl", "curand", "cublas", "cublaslt",
];

/// `cublas`: every function of the pinned `cublas_api.h` is exposed and forwarded on CUDA; on
/// HIP, hipBLAS (AMD's, or its NVIDIA build) serves those whose twin its pinned header
/// (`hipblas.h` 5.5.1) declares with the same ABI, anycuda answers a few itself (math modes,
/// status names), and the rest answer `CUBLAS_STATUS_NOT_SUPPORTED` with a reason
/// (`anycuda::cublas::not_supported_reason`).
fn cublas_entry(verbose: bool) -> Value {
    use anycuda::cublas::{CUBLAS_FUNCTIONS, HIPBLAS_ANSWERED, HIPBLAS_DECLARED};
    let all: Vec<&str> = CUBLAS_FUNCTIONS.iter().map(|f| f.name).collect();
    let served: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| HIPBLAS_DECLARED.iter().any(|(c, _)| c == f) || HIPBLAS_ANSWERED.contains(f))
        .collect();
    let unsupported: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| !served.contains(f))
        .collect();
    let mut v = json!({
        "cuda_total": all.len(),
        "exposed": all.len(),
        "cuda_backend": all.len(),
        "hip_backend": served.len(),
        "hip_unsupported": unsupported.len(),
        "not_exposed": 0,
    });
    if verbose {
        v["names"] = json!({ "hip_backend": served, "hip_unsupported": unsupported });
    }
    v
}

/// `nccl`: every function of the pinned `nccl.h` is exposed and forwarded on CUDA (and on HIP's
/// NVIDIA platform, which loads NCCL); on AMD, RCCL serves those its header (`rccl.h`, pinned)
/// declares and the rest answer `ncclNotSupported`.
fn nccl_entry(verbose: bool) -> Value {
    use anycuda::nccl::{NCCL_FUNCTIONS, RCCL_DECLARED};
    let all: Vec<&str> = NCCL_FUNCTIONS.iter().map(|f| f.name).collect();
    let unsupported: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| !RCCL_DECLARED.contains(f))
        .collect();
    let mut v = json!({
        "cuda_total": all.len(),
        "exposed": all.len(),
        "cuda_backend": all.len(),
        "hip_backend": RCCL_DECLARED.len(),
        "hip_unsupported": unsupported.len(),
        "not_exposed": 0,
    });
    if verbose {
        v["names"] = json!({ "hip_backend": RCCL_DECLARED, "hip_unsupported": unsupported });
    }
    v
}

/// `curand`: every function of the pinned `curand.h` is exposed and forwarded on CUDA; on HIP,
/// hipRAND (AMD's, or its NVIDIA build) serves those whose twin its header (`hiprand.h`,
/// pinned) declares and the rest answer `CURAND_STATUS_NOT_SUPPORTED` with a reason
/// (`anycuda::curand::not_supported_reason`).
fn curand_entry(verbose: bool) -> Value {
    use anycuda::curand::{CURAND_FUNCTIONS, HIPRAND_DECLARED};
    let all: Vec<&str> = CURAND_FUNCTIONS.iter().map(|f| f.name).collect();
    let served: Vec<&str> = HIPRAND_DECLARED.iter().map(|(c, _)| *c).collect();
    let unsupported: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| !served.contains(f))
        .collect();
    let mut v = json!({
        "cuda_total": all.len(),
        "exposed": all.len(),
        "cuda_backend": all.len(),
        "hip_backend": served.len(),
        "hip_unsupported": unsupported.len(),
        "not_exposed": 0,
    });
    if verbose {
        v["names"] = json!({ "hip_backend": served, "hip_unsupported": unsupported });
    }
    v
}

/// `cublaslt`: every function of the pinned `cublasLt.h` is exposed and forwarded on CUDA; on
/// HIP, hipBLASLt (AMD only: it has no build for HIP's NVIDIA platform, where every call answers
/// `CUBLAS_STATUS_NOT_SUPPORTED`) serves those whose twin its header (`hipblaslt.h`, pinned)
/// declares with the same signature, and the rest answer `CUBLAS_STATUS_NOT_SUPPORTED` with a
/// reason (`anycuda::cublaslt::not_supported_reason`).
fn cublaslt_entry(verbose: bool) -> Value {
    use anycuda::cublaslt::{CUBLASLT_FUNCTIONS, HIPBLASLT_DECLARED};
    let all: Vec<&str> = CUBLASLT_FUNCTIONS.iter().map(|f| f.name).collect();
    let served: Vec<&str> = HIPBLASLT_DECLARED.iter().map(|(c, _)| *c).collect();
    let unsupported: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| !served.contains(f))
        .collect();
    let mut v = json!({
        "cuda_total": all.len(),
        "exposed": all.len(),
        "cuda_backend": all.len(),
        "hip_backend": served.len(),
        "hip_unsupported": unsupported.len(),
        "not_exposed": 0,
        "hip_note": "hipBLASLt has no NVIDIA build: on HIP's NVIDIA platform every cuBLASLt call answers CUBLAS_STATUS_NOT_SUPPORTED; the HIP column is AMD's",
    });
    if verbose {
        v["names"] = json!({ "hip_backend": served, "hip_unsupported": unsupported });
    }
    v
}
