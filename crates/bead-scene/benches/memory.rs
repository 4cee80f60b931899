//! `memory`: what a model of a million particles costs in memory, measured by a counting
//! allocator (heap bytes in use, and the peak of each phase).
//!
//! The model: `CHAINS` chains of `LINKS` particles (1,000 × 1,000 by default), each chain's first
//! particle nailed and the rest joined by rigid rods, released from the horizontal under gravity;
//! one constraint per particle. Two paths are measured:
//!
//! - the engine through the Rust API: bytes per particle, per constraint, and what the first step
//!   adds (the integrator's and solver's workspace) for implicit Euler with the sparse LDLᵀ and
//!   for RK4 with conjugate gradient;
//! - the scene-file path that `bead run` takes: the text, parsing it, building the model, one
//!   step; for TOML and for JSON.
//!
//! ```sh
//! cargo bench -p bead-scene --bench memory              # 10⁶ particles
//! cargo bench -p bead-scene --bench memory -- 100 1000  # CHAINS LINKS
//! cargo bench -p bead-scene --bench memory -- --write chains.toml  # the scene, for `bead run`
//! ```

#![allow(missing_docs, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use bead::constraint::{Distance, Nail};
use bead::force::Gravity;
use bead::integrate::{ImplicitEuler, Rk4};
use bead::solve::{ConjugateGradient, SparseLdlt};
use bead::{Particle, System};
use bead_scene::{Format, Scene};
use cap::Cap;

/// The system allocator, counting the bytes in use and their peak. The peak cannot be reset, so
/// each path runs in a process of its own (this program, started again with `--path`).
#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

/// Starts a phase: the bytes in use now.
fn start() -> usize {
    ALLOCATOR.allocated()
}

fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

/// One line of the table: the phase, what it keeps, the process's peak so far, the kept bytes
/// per item.
fn report(phase: &str, before: usize, items: usize, per: &str, seconds: f64) {
    // Signed: a phase that frees (dropping the parsed file) keeps a negative amount.
    let kept = ALLOCATOR.allocated() as f64 - before as f64;
    let peak = ALLOCATOR.max_allocated();
    println!(
        "  {phase:<38} {:>9.1} {:>9.1} {:>9.0} B/{per:<10} {seconds:>7.2}",
        mib(kept),
        mib(peak as f64),
        kept / items as f64,
    );
}

fn header(title: &str) {
    println!("{title}");
    println!(
        "  {:<38} {:>9} {:>9} {:>22} {:>7}",
        "phase", "kept MiB", "peak MiB", "kept per item", "s"
    );
}

/// The chains through the Rust API: particles first, then constraints.
fn engine(chains: usize, links: usize) -> System {
    let n = chains * links;
    let spacing = 1.0 / links as f64;
    let before = start();
    let clock = Instant::now();
    let mut system = System::new(2).unwrap();
    system.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
    let mut ids = Vec::with_capacity(n);
    for c in 0..chains {
        for k in 0..links {
            let at = [k as f64 * spacing, -2.0 * c as f64];
            ids.push(
                system
                    .add_particle(Particle::new(&at).mass(1.0 / links as f64))
                    .unwrap(),
            );
        }
    }
    report(
        "particles",
        before,
        n,
        "particle",
        clock.elapsed().as_secs_f64(),
    );
    let before = start();
    let clock = Instant::now();
    for c in 0..chains {
        let first = ids[c * links];
        system
            .add_constraint(Nail::new(first, &[0.0, -2.0 * c as f64]))
            .unwrap();
        for k in 1..links {
            let (a, b) = (ids[c * links + k - 1], ids[c * links + k]);
            system.add_constraint(Distance::new(a, b, spacing)).unwrap();
        }
    }
    drop(ids);
    report(
        "constraints",
        before,
        n,
        "constraint",
        clock.elapsed().as_secs_f64(),
    );
    system
}

fn first_step(system: &mut System, phase: &str, rows: usize) {
    let before = start();
    let clock = Instant::now();
    system.step(1e-3).unwrap();
    report(phase, before, rows, "row", clock.elapsed().as_secs_f64());
}

/// The same chains as a scene file, as `bead run` reads it.
fn scene_text(chains: usize, links: usize) -> String {
    let spacing = 1.0 / links as f64;
    let mut text = String::new();
    text.push_str(
        "format = 1\nname = \"chains\"\n\n[simulation]\ndimension = 2\ndt = 0.001\n\
         duration = 0.001\nintegrator = \"implicit-euler\"\nsolver = \"sparse\"\n\n\
         [[forces]]\nkind = \"gravity\"\ng = [0.0, -9.81]\n\n",
    );
    for c in 0..chains {
        for k in 0..links {
            let x = k as f64 * spacing;
            let y = -2.0 * c as f64;
            let m = 1.0 / links as f64;
            write!(
                text,
                "[[particles]]\nname = \"c{c}p{k}\"\nposition = [{x}, {y}]\nmass = {m}\n\n"
            )
            .unwrap();
        }
    }
    for c in 0..chains {
        let y = -2.0 * c as f64;
        write!(
            text,
            "[[constraints]]\nkind = \"nail\"\npoint = \"c{c}p0\"\nat = [0.0, {y}]\n\n"
        )
        .unwrap();
        for k in 1..links {
            write!(
                text,
                "[[constraints]]\nkind = \"distance\"\nbetween = [\"c{c}p{}\", \"c{c}p{k}\"]\n\n",
                k - 1
            )
            .unwrap();
        }
    }
    text
}

/// The same scene in JSON.
fn scene_json(chains: usize, links: usize) -> String {
    let spacing = 1.0 / links as f64;
    let m = 1.0 / links as f64;
    let mut text = String::from(
        r#"{"format": 1, "name": "chains", "simulation": {"dimension": 2, "dt": 0.001, "duration": 0.001, "integrator": "implicit-euler", "solver": "sparse"}, "forces": [{"kind": "gravity", "g": [0.0, -9.81]}], "particles": ["#,
    );
    for c in 0..chains {
        for k in 0..links {
            let (x, y) = (k as f64 * spacing, -2.0 * c as f64);
            let comma = if c + k > 0 { "," } else { "" };
            write!(
                text,
                r#"{comma}{{"name": "c{c}p{k}", "position": [{x}, {y}], "mass": {m}}}"#
            )
            .unwrap();
        }
    }
    text.push_str(r#"], "constraints": ["#);
    for c in 0..chains {
        let y = -2.0 * c as f64;
        let comma = if c > 0 { "," } else { "" };
        write!(
            text,
            r#"{comma}{{"kind": "nail", "point": "c{c}p0", "at": [0.0, {y}]}}"#
        )
        .unwrap();
        for k in 1..links {
            write!(
                text,
                r#",{{"kind": "distance", "between": ["c{c}p{}", "c{c}p{k}"]}}"#,
                k - 1
            )
            .unwrap();
        }
    }
    text.push_str("]}");
    text
}

fn engine_path(chains: usize, links: usize, implicit: bool) {
    let rows = 2 * chains + (links - 1) * chains;
    let mut system = engine(chains, links);
    if implicit {
        system.set_integrator(ImplicitEuler::default());
        system.set_solver(SparseLdlt::default());
        first_step(&mut system, "first step, implicit Euler + sparse", rows);
        let before = start();
        let clock = Instant::now();
        system.step(1e-3).unwrap();
        report(
            "second step",
            before,
            rows,
            "row",
            clock.elapsed().as_secs_f64(),
        );
    } else {
        system.set_integrator(Rk4::default());
        system.set_solver(ConjugateGradient::default());
        first_step(&mut system, "first step, RK4 + conjugate gradient", rows);
    }
}

fn scene_path(chains: usize, links: usize, format: Format) {
    let n = chains * links;
    let rows = 2 * chains + (links - 1) * chains;
    let before = start();
    let clock = Instant::now();
    let text = match format {
        Format::Toml => scene_text(chains, links),
        Format::Json => scene_json(chains, links),
    };
    report("text", before, n, "particle", clock.elapsed().as_secs_f64());
    let before = start();
    let clock = Instant::now();
    let scene = Scene::parse(&text, format, "chains").unwrap();
    report(
        "parse",
        before,
        n,
        "particle",
        clock.elapsed().as_secs_f64(),
    );
    let before = start();
    let clock = Instant::now();
    let mut model = scene.build().unwrap();
    report(
        "build (system, names, resolved file)",
        before,
        n,
        "particle",
        clock.elapsed().as_secs_f64(),
    );
    let before = start();
    drop(scene);
    drop(text);
    report(
        "drop the text and the parsed file",
        before,
        n,
        "particle",
        0.0,
    );
    let before = start();
    let clock = Instant::now();
    model.system.step(1e-3).unwrap();
    report(
        "first step, implicit Euler + sparse",
        before,
        rows,
        "row",
        clock.elapsed().as_secs_f64(),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; the numbers are CHAINS and LINKS.
    let numbers: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let chains = numbers.first().copied().unwrap_or(1000);
    let links = numbers.get(1).copied().unwrap_or(1000);
    if let Some(k) = args.iter().position(|a| a == "--write") {
        let file = args.get(k + 1).expect("--write FILE");
        std::fs::write(file, scene_text(chains, links)).unwrap();
        println!("wrote {file}: {} particles", chains * links);
        return;
    }
    if let Some(k) = args.iter().position(|a| a == "--path") {
        match args.get(k + 1).map(String::as_str) {
            Some("implicit") => engine_path(chains, links, true),
            Some("rk4") => engine_path(chains, links, false),
            Some("toml") => scene_path(chains, links, Format::Toml),
            Some("json") => scene_path(chains, links, Format::Json),
            other => panic!("unknown path {other:?}"),
        }
        return;
    }
    let n = chains * links;
    println!("memory: {chains} chains of {links} particles ({n} particles, {n} constraints)");
    let me = std::env::current_exe().unwrap();
    for (path, title) in [
        ("implicit", "engine, Rust API, implicit Euler"),
        ("rk4", "engine, Rust API, RK4"),
        ("toml", "TOML scene file, as `bead run` reads it"),
        ("json", "the same scene as JSON"),
    ] {
        println!();
        header(title);
        let status = Command::new(&me)
            .args(["--path", path, &chains.to_string(), &links.to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "the {path} path failed");
    }
}
