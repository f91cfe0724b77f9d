//! The programmatic choice overrides `ANYCUDA_BACKEND` and is fixed by first use. Its own test
//! binary: selection happens once per process.

mod common;

use anycuda::{select, BackendChoice, BackendKind, SelectError};

#[test]
fn select_before_first_use_overrides_the_environment() {
    // Only HIP's compiler is needed; the env var names the other backend.
    if common::compiler(BackendKind::Hip).is_none() {
        return;
    }
    std::env::set_var("ANYCUDA_BACKEND", "cuda");
    select(BackendChoice::Only(BackendKind::Hip)).unwrap();
    let s = anycuda::backend().unwrap();
    assert_eq!(s.kind(), BackendKind::Hip);
    assert!(s.reason.contains("select()"), "{}", s.reason);
    // Same choice again is fine; a different one after first use is refused.
    select(BackendChoice::Only(BackendKind::Hip)).unwrap();
    assert_eq!(
        select(BackendChoice::Only(BackendKind::Cuda)),
        Err(SelectError::AlreadyChosen {
            active: BackendKind::Hip
        })
    );
    // `auto` after a named backend was fixed would be ignored: refused as well.
    assert_eq!(
        select(BackendChoice::Auto),
        Err(SelectError::AlreadyChosen {
            active: BackendKind::Hip
        })
    );
    assert_eq!(
        "ROCm".parse::<BackendChoice>().unwrap(),
        BackendChoice::Only(BackendKind::Hip)
    );
    assert!(matches!(
        "metal".parse::<BackendChoice>(),
        Err(SelectError::InvalidChoice(_))
    ));
}
