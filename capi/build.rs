//! Binds the C-ABI library's references to its own functions inside it (`-Bsymbolic-functions`).
//! Its tables hold its own exports' addresses (`cuGetProcAddress`'s, and the one
//! `libcudart.so.12` calls through); without this the loader would resolve them in the
//! program's search order, where `libcudart.so.12` defines CUDA 12 functions of the same names
//! (`cudaGetDeviceCount`), and the CUDA 12 library would call itself (docs/c-abi.md).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    println!("cargo:rerun-if-changed=build.rs");
}
