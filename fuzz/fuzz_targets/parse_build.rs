//! Any bytes, read as a TOML or JSON scene, parse and build without panicking; a system that
//! builds takes a few steps without panicking (errors are fine, panics are bugs).
//!
//! Run from `fuzz/`, seeding the corpus with the example scenes:
//!
//! ```sh
//! cargo install cargo-fuzz
//! mkdir -p corpus/parse_build && cp ../scenes/*.toml corpus/parse_build/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run parse_build -- -max_total_time=120
//! ```
//!
//! (cargo-fuzz passes nightly-only flags; RUSTC_BOOTSTRAP lets this machine's stable toolchain
//! accept them.)

#![no_main]

use bead_scene::{Format, Scene};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let format = if text.trim_start().starts_with('{') { Format::Json } else { Format::Toml };
    let Ok(scene) = Scene::parse(text, format, "fuzz") else { return };
    let Ok(mut model) = scene.build() else { return };
    // Large models would make each input slow without finding more.
    if model.system.q().len() > 300 {
        return;
    }
    for _ in 0..3 {
        if model.system.step(model.run.dt.min(1e-2)).is_err() {
            break;
        }
    }
});
