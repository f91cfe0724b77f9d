//! The backends' bundle code cache with nothing installed: the persistent program cache, taken
//! by `rtc_bundle::code_cache` itself (no layer above has to install it), and still replaceable
//! by a cache a program installs. Its own test binary, because both caches are process-wide.

use anycuda_rtc::cache::{CACHE_DIR_ENV, CACHE_DISABLE_ENV};
use anycuda_rtc::rtc_bundle::{code_cache, install_code_cache, CodeCache};
use std::sync::Mutex;

/// One stored entry: the key's fields and the code.
type Entry = (Vec<Vec<u8>>, Vec<u8>);

/// A cache a program installs: in memory, one entry.
#[derive(Default)]
struct Mine(Mutex<Option<Entry>>);

impl CodeCache for Mine {
    fn get(&self, fields: &[&[u8]]) -> Option<Vec<u8>> {
        let g = self.0.lock().unwrap();
        let (k, v) = g.as_ref()?;
        (k.iter().map(Vec::as_slice).eq(fields.iter().copied())).then(|| v.clone())
    }
    fn put(&self, fields: &[&[u8]], code: &[u8]) {
        *self.0.lock().unwrap() =
            Some((fields.iter().map(|f| f.to_vec()).collect(), code.to_vec()));
    }
}

#[test]
fn the_default_is_the_program_cache_until_a_program_installs_its_own() {
    let dir = std::env::temp_dir().join(format!("anycuda-rtc-code-cache-{}", std::process::id()));
    // Before anything reads the environment: the default cache is configured once per process.
    std::env::remove_var(CACHE_DISABLE_ENV);
    std::env::set_var(CACHE_DIR_ENV, &dir);

    let key: [&[u8]; 2] = [b"bundle", b"gfx90a"];
    code_cache().put(&key, b"\x7fELF code");
    assert_eq!(
        code_cache().get(&key).as_deref(),
        Some(&b"\x7fELF code"[..])
    );
    // On disk, in the file cache's layout: one `<key hex>.entry` in the named folder.
    let entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".entry"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");

    // Answering the default did not install it: a program's own cache still goes in, once.
    assert!(install_code_cache(Box::new(Mine::default())));
    assert_eq!(code_cache().get(&key), None);
    code_cache().put(&key, b"mine");
    assert_eq!(code_cache().get(&key).as_deref(), Some(&b"mine"[..]));
    assert!(!install_code_cache(Box::new(Mine::default())));

    let _ = std::fs::remove_dir_all(&dir);
}
