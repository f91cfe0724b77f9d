//! What the `core_*` examples share: the first device, or a clean SKIP when there is none.

use anycuda::core::Device;

/// The examples' result type.
pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Device 0, or `None` after printing `SKIP: <why>` when this machine has no GPU. Under
/// `ANYCUDA_REQUIRE_GPU=1` (the GPU machine's runs) a missing device is an error instead.
pub fn device_or_skip() -> Res<Option<Device>> {
    let require = std::env::var("ANYCUDA_REQUIRE_GPU").is_ok_and(|v| v == "1");
    let why = match Device::count() {
        Ok(n) if n > 0 => return Ok(Some(Device::new(0)?)),
        Ok(_) => "the backend reports 0 devices".to_string(),
        Err(e) => e.to_string().replace('\n', " "),
    };
    if require {
        return Err(format!("ANYCUDA_REQUIRE_GPU=1 but no device: {why}").into());
    }
    println!("SKIP: no GPU: {why}");
    Ok(None)
}

/// Runs an example's body: exit 1 with the error, else 0.
pub fn main_with(name: &str, body: fn() -> Res<()>) {
    if let Err(e) = body() {
        eprintln!("{name}: FAILED: {e}");
        std::process::exit(1);
    }
}
