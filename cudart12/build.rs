//! Links `libanycuda_cudart12.so` as NVIDIA's `libcudart.so.12` is: soname `libcudart.so.12` and
//! every export under the version `libcudart.so.12` (`--default-symver` names the version after
//! the soname). A program linked against NVIDIA's library references `cudaMalloc@libcudart.so.12`;
//! the versioned definitions here match it exactly, and glibc never binds it to the C-ABI
//! library's unversioned CUDA 13 `cudaMalloc` loaded beside it (docs/c-abi.md).
fn main() {
    // GNU ld: rust-lld (rustc's default linker) has no `--default-symver`.
    println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.12");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
    println!("cargo:rerun-if-changed=build.rs");
}
