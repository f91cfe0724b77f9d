//! What the examples share: finding a device to run on, or explaining why there is none.

use std::error::Error;

/// The examples' result type.
pub type Res<T> = Result<T, Box<dyn Error>>;

/// The active backend, or `None` (after printing why) when there is no device to run on.
pub fn device_or_skip() -> Res<Option<anycuda::Backend>> {
    let require = std::env::var("ANYCUDA_REQUIRE_GPU").is_ok_and(|v| v == "1");
    let sel = match anycuda::backend() {
        Ok(s) => s,
        Err(e @ anycuda::SelectError::NothingUsable(_)) if !require => {
            println!("skipped: no GPU: {e}");
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    println!("backend: {} ({})", sel.kind(), sel.reason);
    match anycuda::device_count(sel.backend) {
        Ok(n) if n > 0 => Ok(Some(sel.backend)),
        Ok(_) if !require => {
            println!(
                "skipped: no GPU: the {} backend reports 0 devices",
                sel.kind()
            );
            Ok(None)
        }
        Err(e) if !require => {
            println!("skipped: no GPU: {e}");
            Ok(None)
        }
        other => Err(format!("ANYCUDA_REQUIRE_GPU=1 but no device: {other:?}").into()),
    }
}
