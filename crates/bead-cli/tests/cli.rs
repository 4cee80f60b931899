//! The `bead` binary, driven as a user drives it: every example scene runs, broken scenes fail
//! with exit code 2 and a located message, output files have exactly the documented headers,
//! and a failing simulation exits 1 naming where it failed.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn bead() -> Command {
    let mut cmd = Command::cargo_bin("bead").unwrap();
    // Errors must stay one clean message even when the user's shell asks for backtraces.
    cmd.env("RUST_BACKTRACE", "1");
    cmd
}

fn scenes() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "toml" || e == "json"));
    files.sort();
    files
}

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(name)
}

/// The `summary.json` a run wrote into `dir`.
fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn header(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn every_example_scene_checks_and_runs() {
    let files = scenes();
    assert!(files.len() >= 8, "{files:?}");
    for file in files {
        // Every example starts on its constraints: neither command warns.
        let check = bead().arg("check").arg(&file).output().unwrap();
        assert!(check.status.success(), "{}", file.display());
        let printed =
            String::from_utf8_lossy(&check.stdout) + String::from_utf8_lossy(&check.stderr);
        assert!(
            !printed.contains("warning"),
            "{}: {printed}",
            file.display()
        );
        let out = tempfile::tempdir().unwrap();
        let run = bead()
            .args(["run", "--quiet", "--duration", "0.02", "--out"])
            .arg(out.path())
            .arg(&file)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", file.display());
        assert!(
            run.stderr.is_empty(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let summary = summary(out.path());
        assert_eq!(summary["t_end"], 0.02, "{}", file.display());
        assert!(
            summary["max_abs_C"].as_f64().unwrap() < 1e-6,
            "{}: {summary}",
            file.display()
        );
    }
}

/// A parametric object's columns: `NAME.u0 … NAME.u0_dot … NAME.POINT.x …`, the
/// point's position consistent with its coordinate; `bead check` lists the coordinates.
#[test]
fn parametric_objects_have_their_columns_and_are_listed() {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "0.1", "--out"])
        .arg(out.path())
        .arg(scene("hybrid.toml"))
        .assert()
        .success();
    let path = out.path().join("trajectory.csv");
    assert_eq!(
        header(&path),
        "t,bob.x,bob.y,bob.vx,bob.vy,cart.u0,cart.u0_dot,cart.p.x,cart.p.y"
    );
    // The cart's point is at (u0, u0²/2) on every row.
    for line in std::fs::read_to_string(&path).unwrap().lines().skip(1) {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        assert!((v[7] - v[5]).abs() < 1e-15 && (v[8] - 0.5 * v[5] * v[5]).abs() < 1e-15);
    }
    let check = bead()
        .arg("check")
        .arg(scene("tautochrone.toml"))
        .assert()
        .success();
    let text = String::from_utf8(check.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("object high: 1 coordinate (u0 = 2.5; u0_dot = 0), points bead"),
        "{text}"
    );
}

#[test]
fn output_files_have_the_contract_headers() {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "0.1", "--out"])
        .arg(out.path())
        .arg(scene("pendulum.toml"))
        .assert()
        .success();
    assert_eq!(
        header(&out.path().join("trajectory.csv")),
        "t,pivot.x,pivot.y,pivot.vx,pivot.vy,bob.x,bob.y,bob.vx,bob.vy"
    );
    assert_eq!(
        header(&out.path().join("constraints.csv")),
        "t,rod.C,rod.lambda"
    );
    let summary = summary(out.path());
    for key in [
        "steps",
        "t_end",
        "wall_seconds",
        "energy_start",
        "energy_end",
        "max_abs_C",
        "max_abs_Cdot",
        "initial_abs_C",
        "initial_abs_Cdot",
        "solver_iterations_max",
        "assemble",
    ] {
        assert!(
            summary.get(key).is_some(),
            "summary.json lacks {key}: {summary}"
        );
    }
    assert_eq!(summary["steps"], 100);

    // Several rows: NAME.C0.., NAME.lambda0..; 3D: z columns.
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "0.01", "--out"])
        .arg(out.path())
        .arg(scene("moving_nail.toml"))
        .assert()
        .success();
    assert_eq!(
        header(&out.path().join("constraints.csv")),
        "t,driver.C0,driver.C1,driver.lambda0,driver.lambda1,rod.C,rod.lambda"
    );
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "0.01", "--out"])
        .arg(out.path())
        .arg(scene("spherical_pendulum.toml"))
        .assert()
        .success();
    assert_eq!(
        header(&out.path().join("trajectory.csv")),
        "t,bob.x,bob.y,bob.z,bob.vx,bob.vy,bob.vz"
    );
}

/// Rows at t = 0, every output_every steps, and the final state; the run ends exactly at the
/// duration even when it is not a whole number of steps.
#[test]
fn output_rows_follow_the_time_stepping_contract() {
    let out = tempfile::tempdir().unwrap();
    // pendulum.toml writes every 10th step of 1 ms; 0.0255 s is 25 steps and a half step.
    bead()
        .args(["run", "-q", "--duration", "0.0255", "--out"])
        .arg(out.path())
        .arg(scene("pendulum.toml"))
        .assert()
        .success();
    let text = std::fs::read_to_string(out.path().join("trajectory.csv")).unwrap();
    let times: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(times, [0.0, 0.01, 0.02, 0.0255]);
}

/// Each class of broken scene: exit 2, and a message naming the field and the line.
#[test]
fn broken_scenes_fail_with_located_messages() {
    let good = std::fs::read_to_string(scene("pendulum.toml")).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        // (replace this, with this, message must contain)
        ("dt = 0.001", "dt = 0.001\ndt = 0.002", "duplicate key"),
        ("dt = 0.001", "dt = -0.001", "simulation.dt"),
        (
            "dt = 0.001",
            "dt = 0.001\ntimestep = 1",
            "unknown field `timestep`",
        ),
        (
            "between = [\"pivot\", \"bob\"]",
            "between = [\"pivot\", \"bobb\"]",
            "constraints[0].between[1]: unknown particle 'bobb'",
        ),
        (
            "name = \"bob\"",
            "name = \"pivot\"",
            "particles[1].name: duplicate particle name 'pivot'",
        ),
        (
            "position = [0.8660254037844386, -0.5]",
            "position = [0.8660254037844386, -0.5, 0.0]",
            "particles[1].position: has 3 components",
        ),
        ("mass = 1.0", "mass = 0.0", "particles[1].mass"),
        ("mass = 1.0", "mass = nan", "particles[1].mass"),
        ("length = 1.0", "length = 0.0", "constraints[0].length"),
        ("g = [0.0, -9.81]", "g = [0.0]", "forces[0].g"),
        (
            "integrator = \"rk4\"",
            "integrator = \"rk5\"",
            "unknown integrator 'rk5'",
        ),
        (
            "integrator = \"rk4\"",
            "integrator = \"rk4\"\nnewton_tolerance = 1e-9",
            "simulation.newton_tolerance: integrator 'rk4' is explicit",
        ),
        (
            "integrator = \"rk4\"",
            "integrator = \"implicit-euler\"\nnewton_iterations = 0",
            "simulation.newton_iterations: must be at least 1",
        ),
        // A chevron (its centroid at the origin) is not convex.
        (
            "[[forces]]",
            "[[bodies]]\nname = \"arrow\"\nposition = [3.0, 0.0]\ndensity = 1.0\n\
             shape = { kind = \"polygon\", vertices = [[0.0, -0.0833333333333], \
             [1.0, -0.3333333333333], [0.0, 0.6666666666667], [-1.0, -0.3333333333333]] }\n\n\
             [[forces]]",
            "bodies[0].shape: a polygon must be convex: it turns clockwise at vertex 0",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (from, to, expected) in cases {
        assert!(good.contains(from), "{from}");
        let path = dir.path().join("pendulum-broken.toml");
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let output = bead().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{to}: {stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(
            stderr.contains(expected),
            "{to}: expected '{expected}' in: {stderr}"
        );
        assert!(!stderr.contains("stack backtrace"), "{stderr}");
        // Semantic errors also point at a line.
        assert!(stderr.contains("pendulum-broken.toml:"), "{stderr}");
    }
    // A zero-length direction and a missing file.
    let line = "[[constraints]]\nkind = \"on-line\"\npoint = \"bob\"\nthrough = [0.0, 0.0]\ndirection = [0.0, 0.0]\n";
    let path = dir.path().join("line.toml");
    std::fs::write(&path, format!("{good}\n{line}")).unwrap();
    let output = bead().arg("check").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("constraints[1].direction: has zero length")
    );
    let output = bead()
        .arg("run")
        .arg(dir.path().join("missing.toml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read the file"));
}

/// Issue 28: a constraint of 100,000 terms, which overflowed the parser's stack (exit 134), runs
/// and writes the same trajectory as the short expression it equals; nesting one level past the
/// limit exits 2 with a message naming the limit, at the line and column of the parenthesis.
#[test]
fn long_expressions_run_and_too_deep_ones_are_located() {
    let good = std::fs::read_to_string(scene("pendulum.toml")).unwrap();
    let rod = "kind = \"distance\"\nbetween = [\"pivot\", \"bob\"]\nlength = 1.0";
    assert!(good.contains(rod));
    let with = |c: &str| {
        let expression = format!("kind = \"expression\"\npoints = {{ a = \"bob\" }}\nc = \"{c}\"");
        good.replacen(rod, &expression, 1)
    };
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str| {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join(name);
        bead()
            .args(["run", "--quiet", "--duration", "0.05", "--out"])
            .arg(&out)
            .arg(&path)
            .assert()
            .success();
        std::fs::read_to_string(out.join("trajectory.csv")).unwrap()
    };
    let short = "sqrt(a.x^2 + a.y^2) - 1";
    let long = format!("{short}{}", " + 0*a.x".repeat(100_000));
    let (long, short_run) = (run("long", &with(&long)), run("short", &with(short)));
    assert!(long.lines().count() > 5, "{long}");
    assert_eq!(long, short_run);

    let deep = with(&format!("{}{short}{}", "(".repeat(257), ")".repeat(257)));
    let path = dir.path().join("deep.toml");
    std::fs::write(&path, &deep).unwrap();
    let output = bead().arg("check").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let line = deep[..deep.find("c = \"(").unwrap()].matches('\n').count() + 1;
    // `c = "` is 5 columns, then 256 parentheses the limit allows.
    let expected = format!(
        "deep.toml:{line}:262: constraints[0].c: the expression is nested more than 256 deep"
    );
    assert!(
        stderr.contains(&expected),
        "expected '{expected}' in: {stderr}"
    );
}

/// The same scene in JSON runs like the TOML one; a JSON syntax error names the line.
#[test]
fn json_scenes_work() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"format": 1, "name": "json pendulum",
      "simulation": {"dimension": 2, "dt": 0.001, "duration": 0.05},
      "particles": [{"name": "pivot", "position": [0, 0], "mass": "infinity"},
                    {"name": "bob", "position": [1, 0]}],
      "forces": [{"kind": "gravity", "g": [0, -9.81]}],
      "constraints": [{"kind": "distance", "between": ["pivot", "bob"]}]}"#;
    let path = dir.path().join("p.json");
    std::fs::write(&path, json).unwrap();
    bead().arg("run").arg("-q").arg(&path).assert().success();
    std::fs::write(&path, json.replace("\"dt\": 0.001,", "\"dt\": 0.001")).unwrap();
    let output = bead().arg("check").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("p.json:2:"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A pendulum whose bob starts 1.5 m from its nail, on a 1 m rod (a rod length changed without
/// moving the bob), with `extra` added to `[simulation]`.
fn pendulum_off_its_rod(dir: &Path, extra: &str) -> PathBuf {
    let text = format!(
        "format = 1\n[simulation]\ndimension = 2\ndt = 0.001\nduration = 0.2\n{extra}\n\
         [[particles]]\nname = \"nail\"\nposition = [0.0, 0.0]\nmass = \"infinity\"\n\
         [[particles]]\nname = \"bob\"\nposition = [0.9, -1.2]\n\
         [[forces]]\nkind = \"gravity\"\ng = [0.0, -9.81]\n\
         [[constraints]]\nkind = \"distance\"\nbetween = [\"nail\", \"bob\"]\nlength = 1.0\n\
         name = \"rod\"\n"
    );
    let path = dir.join("off.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A start 0.5 m off its rod is said by `check` (on its output, naming the rod and by how much)
/// and by `run` (on stderr, and in summary.json's initial_abs_C), which still run it.
#[test]
fn a_start_off_its_constraints_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = pendulum_off_its_rod(dir.path(), "");
    let check = bead().arg("check").arg(&path).output().unwrap();
    assert!(check.status.success());
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        stdout.contains("warning: the run starts off its constraints")
            && stdout.contains("'rod' |C| = 5.000e-1")
            && stdout.contains("assemble = true"),
        "{stdout}"
    );
    let out = dir.path().join("out");
    let run = bead()
        .args(["run", "-q", "--out"])
        .arg(&out)
        .arg(&path)
        .output()
        .unwrap();
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("'rod' |C| = 5.000e-1"),
        "{stderr}"
    );
    let summary = summary(&out);
    let initial = summary["initial_abs_C"].as_f64().unwrap();
    assert!((initial - 0.5).abs() < 1e-12, "{summary}");
    assert_eq!(summary["initial_abs_Cdot"], 0.0);
    // The feedback snapped the bob onto the rod: the run's max |C| is the start's.
    assert!((summary["max_abs_C"].as_f64().unwrap() - 0.5).abs() < 1e-12);
}

/// With `assemble = true` the run starts on the rod: `check` says what assembly did, nothing
/// warns, and summary.json records a start within Newton's tolerance.
#[test]
fn an_assembled_start_is_on_its_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let path = pendulum_off_its_rod(dir.path(), "assemble = true");
    let check = bead().arg("check").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "assembled: the start moved onto the constraints in 1 iteration (|C| was 5.000e-1"
        ) && !stdout.contains("warning"),
        "{stdout}"
    );
    let out = dir.path().join("out");
    let run = bead()
        .args(["run", "-q", "--out"])
        .arg(&out)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        run.status.success() && run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary = summary(&out);
    assert!(
        summary["initial_abs_C"].as_f64().unwrap() <= 1e-10,
        "{summary}"
    );
    assert!(summary["max_abs_C"].as_f64().unwrap() < 1e-8, "{summary}");
    assert_eq!(summary["assemble"], true);
    // The bob was moved along the rod, from (0.9, −1.2) to (0.6, −0.8).
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let first: Vec<f64> = trajectory
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(
        (first[5] - 0.6).abs() < 1e-12 && (first[6] + 0.8).abs() < 1e-12,
        "{first:?}"
    );
}

/// A start that cannot be assembled is bad input: exit 2, naming the constraints.
#[test]
fn a_start_that_cannot_be_assembled_exits_2_naming_the_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let path = pendulum_off_its_rod(dir.path(), "assemble = true");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "[[constraints]]\nkind = \"nail\"\npoint = \"bob\"\nat = [0.0, -3.0]\nname = \"held\"\n",
    );
    std::fs::write(&path, text).unwrap();
    let check = bead().arg("check").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("off.toml:6:12: simulation.assemble")
            && stderr.contains("'held'")
            && stderr.contains("'rod'"),
        "{stderr}"
    );
}

/// Conflicting nails: exit 1, naming the step, the time and the constraint; the rows up to the
/// failure are kept.
#[test]
fn a_failing_simulation_exits_1_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"format = 1
[simulation]
dimension = 2
dt = 0.01
duration = 1.0
[[particles]]
name = "p"
position = [0.0, 0.0]
[[constraints]]
kind = "nail"
point = "p"
[[constraints]]
kind = "nail"
point = "p"
at = [1.0, 0.0]
name = "elsewhere"
"#;
    let path = dir.path().join("conflict.toml");
    std::fs::write(&path, text).unwrap();
    let out = dir.path().join("out");
    let output = bead()
        .args(["run", "-q", "--out"])
        .arg(&out)
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("step 1") && stderr.contains("t = 0") && stderr.contains("elsewhere"),
        "{stderr}"
    );
    assert!(!stderr.contains("stack backtrace"), "{stderr}");
    let summary = summary(&out);
    assert_eq!(summary["completed"], false);
}

#[test]
fn plot_and_render_write_files_of_the_requested_size() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    bead()
        .args(["run", "-q", "--duration", "0.5", "--out"])
        .arg(&out)
        .arg(scene("pendulum.toml"))
        .assert()
        .success();
    let png = dir.path().join("plot.png");
    bead()
        .arg("plot")
        .arg(&out)
        .args([
            "--y",
            "bob.x",
            "--y",
            "rod.lambda",
            "--size",
            "640x400",
            "-o",
        ])
        .arg(&png)
        .assert()
        .success();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 640);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 400);
    let svg = dir.path().join("plot.svg");
    bead()
        .arg("plot")
        .arg(&out)
        .args(["--y", "bob.y", "-o"])
        .arg(&svg)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let output = bead()
        .arg("plot")
        .arg(&out)
        .args(["--y", "nothing.here", "-o"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));

    let gif = dir.path().join("pendulum.gif");
    bead()
        .args([
            "render",
            "--duration",
            "0.5",
            "--fps",
            "10",
            "--size",
            "200x150",
            "-o",
        ])
        .arg(&gif)
        .arg(scene("pendulum.toml"))
        .assert()
        .success();
    let bytes = std::fs::read(&gif).unwrap();
    assert_eq!(&bytes[..6], b"GIF89a");
    assert_eq!(u16::from_le_bytes([bytes[6], bytes[7]]), 200);
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 150);
}

/// `bead schema` prints the schema and the reference page that `docs/` holds (which the
/// bead-scene tests keep current), so an editor pointed at either sees the same format.
#[test]
fn schema_prints_the_documents_in_docs() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    for (args, file) in [
        (&["schema"][..], "scene.schema.json"),
        (&["schema", "--markdown"][..], "scene-format.md"),
    ] {
        let out = bead()
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let committed = std::fs::read_to_string(docs.join(file)).unwrap();
        assert!(
            String::from_utf8(out).unwrap() == committed,
            "{file} differs from bead {args:?}"
        );
    }
}

/// Every class of broken scene also says how to fix it.
#[test]
fn broken_scenes_come_with_a_hint() {
    let good = std::fs::read_to_string(scene("pendulum.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (from, to) in [
        ("dt = 0.001", "dt = 0.001\ndt = 0.002"),
        ("dt = 0.001", "dt = 0.0"),
        ("dt = 0.001", "dt = 0.001\ntimestep = 1"),
        (
            "between = [\"pivot\", \"bob\"]",
            "between = [\"pivot\", \"bobb\"]",
        ),
        ("name = \"bob\"", "name = \"pivot\""),
        ("mass = 1.0", "mass = -2.0"),
        ("mass = 1.0", "mass = nan"),
        ("length = 1.0", "length = 0.0"),
        ("g = [0.0, -9.81]", "g = [0.0]"),
        ("kind = \"distance\"", "kind = \"rod\""),
    ] {
        let path = dir.path().join("broken.toml");
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let output = bead().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{to}: {stderr}");
        assert!(stderr.contains("\n  hint: "), "{to}: no hint in {stderr}");
    }
}

/// Output times are the step times as the user would write them: with dt = 0.001 every `t` has
/// at most three decimals (the floating-point product 1900 × 0.001 would print 1.9000000000000001).
#[test]
fn output_times_are_the_shortest_decimals_of_the_step_times() {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "2.5", "--dt", "0.001", "--out"])
        .arg(out.path())
        .arg(scene("pendulum.toml"))
        .assert()
        .success();
    let text = std::fs::read_to_string(out.path().join("trajectory.csv")).unwrap();
    let times: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    // pendulum.toml writes every 10th step.
    assert_eq!(times.len(), 251);
    for (k, t) in times.iter().enumerate() {
        let decimals = t.split_once('.').map_or(0, |(_, f)| f.len());
        assert!(decimals <= 3, "row {k}: t = {t}");
        assert!(
            (t.parse::<f64>().unwrap() - k as f64 * 1e-2).abs() < 1e-12,
            "row {k}: t = {t}"
        );
    }
}

/// A structural mistake points to the section of the reference page for the table it is in.
#[test]
fn hints_point_into_the_reference_page() {
    let good = std::fs::read_to_string(scene("pendulum.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (from, to, section) in [
        (
            "dt = 0.001",
            "dt = 0.001\ntimestep = 1",
            "docs/scene-format.md#simulation",
        ),
        (
            "kind = \"distance\"",
            "kind = \"rod\"",
            "docs/scene-format.md#constraints",
        ),
        ("mass = 1.0", "mas = 1.0", "docs/scene-format.md#particles"),
    ] {
        let path = dir.path().join("broken.toml");
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let output = bead().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(section),
            "{to}: expected {section} in {stderr}"
        );
    }
}

/// Rigid bodies: trajectory columns `NAME.x NAME.y NAME.theta NAME.vx NAME.vy NAME.omega`, and each
/// joint's force and torque on each body it holds.
#[test]
fn rigid_body_columns_and_joint_reactions() {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", "0.2", "--out"])
        .arg(out.path())
        .arg(scene("gear_train.toml"))
        .assert()
        .success();
    let traj = header(&out.path().join("trajectory.csv"));
    assert!(
        traj.starts_with("t,g0.x,g0.y,g0.theta,g0.vx,g0.vy,g0.omega,g1.x"),
        "{traj}"
    );
    let cons = header(&out.path().join("constraints.csv"));
    assert!(
        cons.contains(
            "mesh01.C,mesh01.lambda,mesh01.g0.fx,mesh01.g0.fy,mesh01.g0.torque,mesh01.g1.fx"
        ),
        "{cons}"
    );
    // The motor runs g0 at 6 rad/s, so g1 turns at −2 rad/s (radii 5 cm and 15 cm).
    let text = std::fs::read_to_string(out.path().join("trajectory.csv")).unwrap();
    let cols: Vec<&str> = traj.split(',').collect();
    let last: Vec<f64> = text
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let at = |name: &str| last[cols.iter().position(|c| *c == name).unwrap()];
    assert!(
        (at("g0.omega") - 6.0).abs() < 1e-6 && (at("g1.omega") + 2.0).abs() < 1e-6,
        "{last:?}"
    );

    // Errors specific to bodies name the field.
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(scene("gear_train.toml")).unwrap();
    for (from, to, expected) in [
        ("density = 10.0", "", "bodies[0].density: missing"),
        (
            "between = [\"g0\", \"g1\"]",
            "between = [\"g0\", \"gx\"]",
            "constraints[3].between[1]: unknown body 'gx'",
        ),
        (
            "radii = [0.05, 0.15]",
            "radii = [0.05, 0.0]",
            "constraints[3].radii[1]",
        ),
    ] {
        let path = dir.path().join("gears.toml");
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let output = bead().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{to}: {stderr}");
        assert!(
            stderr.contains(expected),
            "expected '{expected}' in: {stderr}"
        );
    }
}

/// The last row of a run's trajectory.csv, by column name.
fn last_state(scene_file: &str, duration: &str) -> impl Fn(&str) -> f64 {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "-q", "--duration", duration, "--out"])
        .arg(out.path())
        .arg(scene(scene_file))
        .assert()
        .success();
    let text = std::fs::read_to_string(out.path().join("trajectory.csv")).unwrap();
    let cols: Vec<String> = text
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let last: Vec<f64> = text
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    move |name: &str| last[cols.iter().position(|c| c == name).unwrap()]
}

/// The gear scenes move as their comments say: the rack under the pinion at +r ω = 0.15 m/s,
/// the planetary stage's carrier at a third of the sun's 3 rad/s and its planets at −3 rad/s.
#[test]
fn gear_scenes_turn_at_the_ratios_their_comments_state() {
    let at = last_state("rack_and_pinion.toml", "1.0");
    assert!((at("rack.vx") - 0.15).abs() < 1e-6, "{}", at("rack.vx"));
    let at = last_state("planetary_gear.toml", "0.5");
    assert!((at("carrier.omega") - 1.0).abs() < 1e-6);
    for planet in ["planet1", "planet2", "planet3"] {
        let w = at(&format!("{planet}.omega"));
        assert!((w + 3.0).abs() < 1e-6, "{planet}: {w}");
    }
}

/// Gears whose centres coincide and a pinion centred on its rack's line are errors that name
/// the field and say why.
#[test]
fn gear_geometry_errors_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    for (file, from, to, expected) in [
        (
            "gear_train.toml",
            "position = [0.2, 0.0]",
            "position = [0.0, 0.0]",
            "constraints[3].between: invalid constraint: the two gears' centres coincide",
        ),
        (
            "rack_and_pinion.toml",
            "position = [0.0, 0.1]",
            "position = [0.0, -0.03]",
            "constraints[3].pinion: invalid constraint: the pinion's centre is on the rack's line",
        ),
    ] {
        let good = std::fs::read_to_string(scene(file)).unwrap();
        assert!(good.contains(from), "{file} lacks {from}");
        let path = dir.path().join(file);
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let output = bead().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{to}: {stderr}");
        assert!(
            stderr.contains(expected) && stderr.contains("\n  hint: "),
            "expected '{expected}' and a hint in: {stderr}"
        );
    }
}

/// Inequalities report `NAME.active`; `--inequality` switches the algorithm, and the paper's
/// corner shows Platt's failure and Jonquet's success through the command line.
#[test]
fn corner_example_through_the_command_line() {
    let min_y = |method: &str| {
        let out = tempfile::tempdir().unwrap();
        bead()
            .args([
                "run",
                "-q",
                "--duration",
                "0.2",
                "--accelerations",
                "--inequality",
                method,
                "--out",
            ])
            .arg(out.path())
            .arg(scene("corner_m3.toml"))
            .assert()
            .success();
        assert_eq!(
            header(&out.path().join("constraints.csv")),
            "t,g1.C,g1.lambda,g1.active,g2.C,g2.lambda,g2.active"
        );
        assert_eq!(header(&out.path().join("accelerations.csv")), "t,p.ax,p.ay");
        let text = std::fs::read_to_string(out.path().join("trajectory.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap().parse::<f64>().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    assert!(min_y("platt") < -1e-6);
    assert!(min_y("jonquet") >= -1e-8);
    let output = bead()
        .args(["check", "--"])
        .arg(scene("corner_m3.toml"))
        .output()
        .unwrap();
    assert!(output.status.success());
}

/// The implicit integrators from a scene file and from the command line: the chain holds its
/// rods to Newton's tolerance, and the summary records the integrator and the factorization of
/// the Newton matrix that ran (dense under `--solver dense`).
#[test]
fn implicit_integrators_run_scenes_with_exact_rods() {
    for integrator in ["implicit-euler", "bdf2"] {
        let out = tempfile::tempdir().unwrap();
        bead()
            .args([
                "run",
                "--quiet",
                "--duration",
                "0.2",
                "--integrator",
                integrator,
            ])
            .args(["--newton-tolerance", "1e-11", "--out"])
            .arg(out.path())
            .arg(scene("hanging_chain.toml"))
            .assert()
            .success();
        let summary = summary(out.path());
        assert_eq!(summary["integrator"], integrator);
        assert!(summary["max_abs_C"].as_f64().unwrap() <= 1e-11, "{summary}");
        // What the Newton iteration ran, beside the solver the scene names.
        assert_eq!(summary["newton"]["tolerance"], 1e-11, "{summary}");
        assert_eq!(
            summary["newton"]["linear_solve"], "sparse LDLT of the KKT matrix",
            "{summary}"
        );
    }
    // `solver = "dense"` factors the Newton matrix dense, and says so.
    let out = tempfile::tempdir().unwrap();
    bead()
        .args(["run", "--quiet", "--duration", "0.2"])
        .args([
            "--integrator",
            "implicit-euler",
            "--solver",
            "dense",
            "--out",
        ])
        .arg(out.path())
        .arg(scene("hanging_chain.toml"))
        .assert()
        .success();
    let summary = summary(out.path());
    assert_eq!(
        summary["newton"]["linear_solve"], "dense LBLT of the KKT matrix",
        "{summary}"
    );
    assert!(summary["max_abs_C"].as_f64().unwrap() <= 1e-10, "{summary}");
}

/// The planetary gear's three planets mesh redundantly with the sun and the ring: only the sum of
/// the tooth forces is physics. Under the implicit steppers over 6 s every tooth force stays within
/// the range RK4 (whose CG solve gives the least-norm split) reports, and so does the split (until
/// 2026-11-25 one tooth force grew to 4e4 N within 2 s, and λ reached −1.7e7 N).
#[test]
fn implicit_steppers_keep_the_planetary_gears_tooth_forces_bounded() {
    let range = |integrator: &str| {
        let out = tempfile::tempdir().unwrap();
        bead()
            .args(["run", "--quiet", "--integrator", integrator, "--out"])
            .arg(out.path())
            .arg(scene("planetary_gear.toml"))
            .assert()
            .success();
        let summary = summary(out.path());
        (
            summary["lambda_min"].as_f64().unwrap(),
            summary["lambda_max"].as_f64().unwrap(),
        )
    };
    let (lo, hi) = range("rk4");
    for integrator in ["implicit-euler", "bdf2"] {
        let (min, max) = range(integrator);
        assert!(
            min > lo - 1.0 && max < hi + 1.0,
            "{integrator}: λ in [{min}, {max}] N, RK4's in [{lo}, {hi}] N"
        );
    }
}

/// BDF2 carries `scenes/cloth.toml` through its whipping corners at the default settings (it
/// stopped at t = 2.235 s: the momentum residual there, rounding of forces that move a corner
/// centimetres a step, never met the absolute 1e-10 m it was held to).
#[test]
fn bdf2_runs_the_cloth_through_its_whip() {
    let out = tempfile::tempdir().unwrap();
    bead()
        .args([
            "run",
            "--quiet",
            "--integrator",
            "bdf2",
            "--duration",
            "2.3",
        ])
        .arg("--out")
        .arg(out.path())
        .arg(scene("cloth.toml"))
        .assert()
        .success();
    let summary = summary(out.path());
    assert_eq!(summary["completed"], true, "{summary}");
    assert!(summary["max_abs_C"].as_f64().unwrap() <= 1e-10, "{summary}");
}

/// `bead bench chain3d` runs the 3D chain with its joints exact, in the same columns.
#[test]
fn bench_runs_the_3d_chain() {
    let output = bead()
        .args(["bench", "chain3d", "--n", "5", "--steps", "20", "--csv"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().nth(1).unwrap_or_default();
    let fields: Vec<&str> = line.split(',').collect();
    assert_eq!(fields.len(), 6, "{stdout}");
    assert_eq!(fields[1], "5");
    assert!(fields[3].parse::<f64>().unwrap() <= 1e-10, "{line}");
    // Implicit Euler loses a little energy, and never gains any.
    let drift = fields[4].parse::<f64>().unwrap();
    assert!(drift <= 0.0 && drift > -1e-2, "{line}");
    assert_eq!(fields[5], "ok");
}

/// `bead bench joint-grid` runs Box3D's grid of spheres on spherical joints at Box3D's step of
/// 1/60 s, every joint closed to 1e-9 m, in the columns of `scripts/compare/joint_grid.py`; a
/// grid of one sphere is an error.
#[test]
fn bench_runs_the_joint_grid() {
    let output = bead()
        .args(["bench", "joint-grid", "--n", "2,4", "--steps", "5", "--csv"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "engine,n,s_per_step,link_error,energy_drift,status"
    );
    assert_eq!(lines.len(), 3, "{stdout}");
    for (line, n) in lines[1..].iter().zip(["2", "4"]) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[0], "bead implicit-euler");
        assert_eq!(fields[1], n);
        assert!(fields[2].parse::<f64>().unwrap() > 0.0, "{line}");
        assert!(fields[3].parse::<f64>().unwrap() <= 1e-9, "{line}");
        assert!(fields[4].parse::<f64>().unwrap().abs() <= 1e-9, "{line}");
        assert_eq!(fields[5], "ok");
    }
    let output = bead()
        .args(["bench", "joint-grid", "--n", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least 2 × 2"));
}

/// `bead bench chain --csv` prints the comparison script's columns, one row per size, and bad
/// names are input errors (exit 2).
#[test]
fn bench_prints_the_comparison_columns() {
    let output = bead()
        .args(["bench", "chain", "--n", "10,20", "--steps", "20", "--csv"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "engine,n,s_per_step,link_error,status");
    assert_eq!(lines.len(), 3, "{stdout}");
    for (line, n) in lines[1..].iter().zip(["10", "20"]) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[0], "bead implicit-euler");
        assert_eq!(fields[1], n);
        assert!(fields[2].parse::<f64>().unwrap() > 0.0);
        assert!(fields[3].parse::<f64>().unwrap() <= 1e-10, "{line}");
        assert_eq!(fields[4], "ok");
    }
    let output = bead()
        .args(["bench", "chain", "--integrator", "rk5"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown integrator 'rk5'"));
}

/// `bead bench pile` and `pyramid` print the columns of `scripts/compare/piles.py`: the exact
/// contacts' penetration within the Newton tolerance, a pyramid that does not creep, and the
/// energy of a resting pyramid kept; bad settings are errors that name them.
#[test]
fn contact_benches_print_the_comparison_columns() {
    let output = bead()
        .args(["bench", "pyramid", "--n", "2", "--seconds", "1", "--csv"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status"
    );
    let fields: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(
        fields[..3],
        ["bead implicit-euler", "pyramid", "2"],
        "{stdout}"
    );
    let number = |i: usize| fields[i].parse::<f64>().unwrap();
    assert!((number(3) - 1.0 / 60.0).abs() < 1e-6);
    assert!(number(4) > 0.0 && number(5) > 0.0, "{stdout}");
    assert!(number(6) < 1e-9 && number(7) < 1e-9, "{stdout}");
    assert!(number(8).abs() < 1e-9, "{stdout}");
    assert_eq!(fields[9], "ok");
    let output = bead()
        .args([
            "bench",
            "pile",
            "--n",
            "30",
            "--seconds",
            "0.5",
            "--dt",
            "0.004",
            "--friction",
            "0.5",
            "--csv",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = stdout.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(fields[1..3], ["pile", "30"], "{stdout}");
    assert!(fields[6].parse::<f64>().unwrap() < 1e-9, "{stdout}");
    assert_eq!(fields[9], "ok");
    let output = bead()
        .args(["bench", "pile", "--friction=-1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--friction"));
    let output = bead()
        .args(["bench", "tumbler", "--n", "0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("'0' in '0' is not a positive whole number"),
        "{stderr}"
    );
}

/// Box2D's benchmark scenes in bead: a small `large-pyramid` of touching boxes stands exactly
/// (no overlap, nothing moving, under the implicit stepper), and a small `tumbler` runs with
/// its creep and energy drift left empty, as `scripts/compare/piles.py` leaves them.
#[test]
fn box2d_benchmark_scenes_run_and_a_touching_pyramid_stands() {
    let row = |args: &[&str]| {
        let output = bead().args(args).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let line = stdout.lines().nth(1).unwrap_or_default().to_string();
        line.split(',').map(str::to_string).collect::<Vec<_>>()
    };
    let fields = row(&[
        "bench",
        "large-pyramid",
        "--n",
        "3",
        "--seconds",
        "0.5",
        "--csv",
    ]);
    assert_eq!(fields[1..3], ["large-pyramid", "3"], "{fields:?}");
    let number = |i: usize| fields[i].parse::<f64>().unwrap();
    assert!(number(6) < 1e-9 && number(7) < 1e-9, "{fields:?}");
    assert_eq!(fields[9], "ok");
    let fields = row(&["bench", "tumbler", "--n", "2", "--seconds", "0.1", "--csv"]);
    assert_eq!(fields[1..3], ["tumbler", "2"], "{fields:?}");
    assert_eq!(fields[7..], ["", "", "ok"], "{fields:?}");
}

/// Determinism as a user sees it: the same contact scene run twice writes byte-identical files.
#[test]
fn two_runs_of_a_contact_scene_write_identical_files() {
    let outputs: Vec<_> = (0..2)
        .map(|_| {
            let out = tempfile::tempdir().unwrap();
            bead()
                .args(["run", "-q", "--out"])
                .arg(out.path())
                .arg(scene("ball_pile.toml"))
                .assert()
                .success();
            out
        })
        .collect();
    for file in ["trajectory.csv", "constraints.csv"] {
        let read = |k: usize| std::fs::read(outputs[k].path().join(file)).unwrap();
        assert!(read(0) == read(1), "{file} differs between two runs");
    }
}

/// docs/cli.md ends with every command's `--help`, as the binary prints it: the reference can
/// never describe an option the binary does not have.
#[test]
fn the_cli_reference_page_is_current() {
    const MARKER: &str = "<!-- generated from `bead <command> --help`; edit the commands' doc comments, not below -->";
    let help = |args: &[&str]| {
        let out = bead().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    };
    let mut generated = format!(
        "{MARKER}\n\n## `bead`\n\n```text\n{}\n```\n",
        help(&["--help"])
    );
    for command in ["run", "check", "schema", "plot", "render", "bench"] {
        generated.push_str(&format!(
            "\n## `bead {command}`\n\n```text\n{}\n```\n",
            help(&[command, "--help"])
        ));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let (written, current) = page.split_once(MARKER).expect("docs/cli.md has its marker");
    if std::env::var_os("BEAD_UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{written}{generated}")).unwrap();
        return;
    }
    assert!(
        format!("{MARKER}{current}") == generated,
        "docs/cli.md is out of date: run BEAD_UPDATE_DOCS=1 cargo test -p bead-cli --test cli the_cli_reference"
    );
}

/// Every complete scene shown in the guide (a ```toml block with a `[simulation]` table) checks
/// and runs: the guide cannot show a scene the loader rejects.
#[test]
fn the_guides_scene_files_check_and_run() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let dir = tempfile::tempdir().unwrap();
    let mut found = 0;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut block: Option<(usize, String)> = None;
        for (n, line) in text.lines().enumerate() {
            match &mut block {
                None if line.trim_start() == "```toml" => block = Some((n + 1, String::new())),
                Some((start, body)) if line.trim_start() == "```" => {
                    if body.lines().any(|l| l.trim() == "[simulation]") {
                        found += 1;
                        let where_ = format!("{}:{start}", page.display());
                        let path = dir.path().join("guide.toml");
                        std::fs::write(&path, &*body).unwrap();
                        let check = bead().arg("check").arg(&path).output().unwrap();
                        assert!(
                            check.status.success(),
                            "{where_}: {}",
                            String::from_utf8_lossy(&check.stderr)
                        );
                        let run = bead()
                            .args(["run", "-q", "--duration", "0.05", "--out"])
                            .arg(dir.path().join("out"))
                            .arg(&path)
                            .output()
                            .unwrap();
                        assert!(
                            run.status.success(),
                            "{where_}: {}",
                            String::from_utf8_lossy(&run.stderr)
                        );
                    }
                    block = None;
                }
                Some((_, body)) => {
                    body.push_str(line);
                    body.push('\n');
                }
                None => {}
            }
        }
    }
    assert!(found >= 2, "the guide's scenes were not found ({found})");
}

/// A scene written for an implicit integrator, with its Newton settings, runs under an explicit
/// one named on the command line: the settings it wrote for its own integrator go unused (they
/// made the run an error before), and the rod holds as RK4 holds it.
#[test]
fn an_explicit_integrator_from_the_command_line_leaves_the_scenes_newton_settings_unused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("implicit.toml");
    let scene = std::fs::read_to_string(scene("pendulum.toml"))
        .unwrap()
        .replacen("integrator = \"rk4\"", "integrator = \"implicit-euler\"", 1)
        .replacen(
            "[simulation]",
            "[simulation]\nnewton_tolerance = 1e-10\nnewton_relative_tolerance = 1e-8\nnewton_iterations = 50",
            1,
        );
    assert!(scene.contains("implicit-euler"));
    std::fs::write(&path, scene).unwrap();
    let out = dir.path().join("out");
    bead()
        .args([
            "run",
            "--quiet",
            "--integrator",
            "rk4",
            "--duration",
            "0.5",
            "--out",
        ])
        .arg(&out)
        .arg(&path)
        .assert()
        .success();
    let summary = summary(&out);
    assert_eq!(summary["integrator"], "rk4");
    assert!(summary["newton"].is_null(), "{summary}");
    assert!(summary["max_abs_C"].as_f64().unwrap() < 1e-6, "{summary}");
}

/// A setting given on the command line that the scene refuses is reported as the option's, not
/// at the file's `[simulation]` line, which never said it (user review of issue 29).
#[test]
fn a_refused_option_is_named_as_given_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let output = bead()
        .args(["run", "--quiet", "--inequality", "platt", "--out"])
        .arg(dir.path().join("out"))
        .arg(scene("incline-crate.toml"))
        .assert()
        .failure()
        .get_output()
        .clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("simulation.inequality: platt does not carry friction")
            && stderr.contains("(given on the command line)")
            // The file, without a line and column.
            && stderr.contains("incline-crate.toml: simulation.inequality"),
        "{stderr}"
    );
}
