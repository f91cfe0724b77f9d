//! Many threads compiling at once on both compilers: selection, the function tables and the
//! program registries are shared, and hipRTC 5.2.3 itself is not thread-safe (anycuda
//! serialises it). A crash here fails the whole test binary.

mod common;

use anycuda::core::CodeType;
use anycuda::BackendKind;

const SRC: &str = "template <typename T> __global__ void scale(T *p, T f) { p[threadIdx.x] *= f; }";

#[test]
fn concurrent_compiles_on_both_compilers() {
    let mut jobs = Vec::new();
    for (kind, arch) in [(BackendKind::Cuda, "sm_90"), (BackendKind::Hip, "gfx90a")] {
        let Some(b) = common::compiler(kind) else {
            continue;
        };
        for t in 0..6 {
            jobs.push(std::thread::spawn(move || {
                for i in 0..3 {
                    let ty = ["float", "double", "int"][(t + i) % 3];
                    let expr = format!("scale<{ty}>");
                    let mut p = common::program(b, SRC, &format!("t{t}_{i}.cu"), &[expr.as_str()]);
                    p.compile_with_args(&[&format!("--gpu-architecture={arch}")])
                        .unwrap();
                    assert!(p.lowered_name(&expr).unwrap().starts_with("_Z5scaleI"));
                    assert!(!common::code(&p, CodeType::Ptx).is_empty());
                }
            }));
        }
    }
    for j in jobs {
        j.join().expect("a compile thread panicked");
    }
}
