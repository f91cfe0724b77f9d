//! Names each out-of-scope cudarc module whose feature is on: the feature resolves, the module
//! does not exist, and this warning says why before any `use cudarc::cudnn` fails to resolve.

const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("CUDNN", "cudnn (cuDNN)"),
    ("CUFFT", "cufft (cuFFT)"),
    ("CUSPARSE", "cusparse (cuSPARSE)"),
    ("CUSOLVER", "cusolver (cuSOLVER)"),
    ("CUSOLVERMG", "cusolvermg (cuSOLVERMg)"),
    ("CUTENSOR", "cutensor (cuTENSOR)"),
    ("CUPTI", "cupti (CUPTI)"),
    ("CUFILE", "cufile (cuFile)"),
    ("NVTX", "nvtx (NVTX)"),
    ("NCCL", "nccl (NCCL)"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ANYCUDA_CUDARC_QUIET");
    // Opt out of the reminder with this.
    if std::env::var_os("ANYCUDA_CUDARC_QUIET").is_some() {
        return;
    }
    for (feature, module) in OUT_OF_SCOPE {
        if std::env::var_os(format!("CARGO_FEATURE_{feature}")).is_some() {
            println!(
                "cargo:warning=anycuda-cudarc: feature accepted, but cudarc::{module} is not \
                 provided yet (driver, nvrtc, cublas, cublaslt and curand are); code using it \
                 will not compile"
            );
        }
    }
}
