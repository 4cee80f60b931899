//! Long expressions in scene files (issue 28): 100,000 flat terms in an expression constraint and
//! in a parametric object's position parse, build and move exactly as the short expression they
//! equal, and too deep a nesting is a located error naming the limit, not a stack overflow.
//!
//! In their own test binary: before the fix these aborted the process, which would have taken
//! the other scene tests down with them.

#![allow(clippy::unwrap_used)]
// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use bead_scene::expression::MAX_NESTING;
mod common;

use bead_scene::Model;
use common::{error, model};

/// Terms in the long expressions: the issue's size, where the old parser overflowed.
const TERMS: usize = 100_000;

/// Steps the long scenes run: every step evaluates each long expression on dual numbers a few
/// dozen times, and these tests must stay quick in debug builds.
const STEPS: usize = 20;

fn step(model: &mut Model) {
    let dt = model.run.dt;
    model.system.step(dt).unwrap();
}

/// `head` followed by `TERMS` terms `tail` (each adding nothing to the value).
fn long(head: &str, tail: &str) -> String {
    let mut text = String::with_capacity(head.len() + TERMS * tail.len());
    text.push_str(head);
    for _ in 0..TERMS {
        text.push_str(tail);
    }
    text
}

const PENDULUM: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 1.0
[[particles]]
name = "pivot"
position = [0.0, 0.0]
mass = "infinity"
[[particles]]
name = "bob"
position = [0.6, -0.8]
velocity = [0.4, 0.3]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#;

fn pendulum(rod: &str) -> Model {
    model(&format!("{PENDULUM}\n[[constraints]]\n{rod}\n"))
}

fn expression_rod(c: &str) -> Model {
    pendulum(&format!(
        "kind = \"expression\"\npoints = {{ a = \"bob\" }}\nc = \"{c}\""
    ))
}

/// A pendulum on a rod `|a| − 1` written with 100,000 more terms `+ 0*a.x` moves exactly as the
/// short expression (every evaluation gives the same numbers) and as the `distance` rod.
#[test]
fn a_constraint_of_100000_terms_moves_as_the_short_one() {
    let short = "sqrt(a.x^2 + a.y^2) - 1";
    let mut models = [
        pendulum("kind = \"distance\"\nbetween = [\"pivot\", \"bob\"]"),
        expression_rod(short),
        expression_rod(&long(short, " + 0*a.x")),
    ];
    for _ in 0..STEPS {
        models.iter_mut().for_each(step);
    }
    let bob = |m: &Model| m.system.position(m.particles[1].1).to_vec();
    let [rod, short, long] = models.each_ref().map(bob);
    assert_eq!(long, short, "the long expression parts from the short one");
    for i in 0..2 {
        assert!((long[i] - rod[i]).abs() < 1e-12, "{long:?} vs {rod:?}");
    }
    // It has moved, and stayed on its circle.
    assert!((long[0] - 0.6).abs() > 1e-3, "{long:?}");
    assert!((long[0].hypot(long[1]) - 1.0).abs() < 1e-9, "{long:?}");
}

/// Long chains of every flat shape: products, quotients, differences, sums of products and
/// constants to fold, each equal to the rod `a.x² + a.y² − 1`.
#[test]
fn long_chains_of_every_operator_build_and_hold_the_rod() {
    let shapes = [
        // a.x² · 1 · 1 ⋯: a product of 100,000 factors.
        long("(a.x^2 + a.y^2 - 1)", "*1"),
        long("(a.x^2 + a.y^2 - 1)", "/1"),
        long("a.x^2 + a.y^2 - 1", " - 0*a.y"),
        long("a.x^2 + a.y^2 - 1", " + 1e-9*a.x*0"),
        // 100,000 constants folded into one: 1 − 0 − 0 ⋯ before the variables.
        format!("{} + a.x^2 + a.y^2 - 2", long("1", " - 0")),
    ];
    let mut reference = expression_rod("a.x^2 + a.y^2 - 1");
    let mut models: Vec<Model> = shapes.iter().map(|c| expression_rod(c)).collect();
    for _ in 0..3 {
        step(&mut reference);
        models.iter_mut().for_each(step);
    }
    let expected = reference.system.position(reference.particles[1].1);
    for (m, shape) in models.iter().zip(&shapes) {
        let x = m.system.position(m.particles[1].1);
        assert!(
            (x[0] - expected[0]).abs() < 1e-12 && (x[1] - expected[1]).abs() < 1e-12,
            "{}…: {x:?} vs {expected:?}",
            &shape[..40]
        );
    }
}

fn wire(x: &str, y: &str) -> Model {
    model(&format!(
        r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 1.0
[[parametric]]
name = "ring"
coordinates = [1.0]
rates = [2.0]
points = [{{ name = "bead", mass = 0.3, position = ["{x}", "{y}"] }}]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#
    ))
}

/// A bead on a circle whose position is written with 100,000 more terms `+ 0*u0` per axis moves
/// exactly as the short one.
#[test]
fn a_parametric_position_of_100000_terms_moves_as_the_short_one() {
    let (x, y) = ("0.5*sin(u0)", "-0.5*cos(u0)");
    let mut short = wire(x, y);
    let mut long = wire(&long(x, " + 0*u0"), &long(y, " - 0*u0*u0"));
    for _ in 0..STEPS {
        step(&mut short);
        step(&mut long);
    }
    let state = |m: &Model| {
        let id = m.objects[0].id;
        (
            m.system.coordinates(id)[0],
            m.system.coordinate_velocities(id)[0],
        )
    };
    assert_eq!(state(&long), state(&short));
    assert!(state(&long).0 > 1.0 + 1e-3, "{:?}", state(&long));
}

/// 1-based line and column of a byte offset, as errors give them.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Nesting is bounded: exactly `MAX_NESTING` parentheses build and move as no parentheses, on
/// the 2 MB stack of a spawned thread; one more, in a constraint or in a parametric position, is
/// an error at the file, line, column and field of the parenthesis too many, naming the limit.
#[test]
fn nesting_past_the_limit_is_a_located_error() {
    let n = MAX_NESTING;
    let nested =
        |levels: usize, inner: &str| format!("{}{inner}{}", "(".repeat(levels), ")".repeat(levels));
    let located = |text: &str, field: &str| {
        let e = error(text);
        let at = text.find(&"(".repeat(n + 1)).unwrap() + n;
        assert_eq!(e.file, "bad.toml");
        assert_eq!((e.line, e.column), {
            let (l, c) = line_column(text, at);
            (Some(l), Some(c))
        });
        assert_eq!(e.field.as_deref(), Some(field), "{e}");
        assert!(
            e.message
                .starts_with(&format!("the expression is nested more than {n} deep")),
            "{e}"
        );
    };
    let rod = "a.x^2 + a.y^2 - 1";
    let constraint = |levels: usize| {
        format!(
            "{PENDULUM}\n[[constraints]]\nkind = \"expression\"\npoints = {{ a = \"bob\" }}\nc = \"{}\"\n",
            nested(levels, rod)
        )
    };
    let object = |levels: usize| {
        format!(
            "format = 1\n[simulation]\ndimension = 2\ndt = 0.001\nduration = 1.0\n[[parametric]]\nname = \"ring\"\ncoordinates = [1.0]\npoints = [{{ name = \"bead\", mass = 0.3, position = [\"0.5*sin(u0)\", \"-0.5*{}\"] }}]\n",
            nested(levels, "u0")
        )
    };
    let worker = std::thread::Builder::new().stack_size(2 << 20);
    std::thread::scope(|scope| {
        let run = worker.spawn_scoped(scope, || {
            let mut short = expression_rod(rod);
            let mut deep = model(&constraint(n));
            for _ in 0..STEPS {
                step(&mut short);
                step(&mut deep);
            }
            let bob = |m: &Model| m.system.position(m.particles[1].1).to_vec();
            assert_eq!(bob(&deep), bob(&short));
            model(&object(n));
            located(&constraint(n + 1), "constraints[0].c");
            located(&object(n + 1), "parametric[0].points[0].position[1]");
        });
        run.unwrap().join().unwrap();
    });
}

/// An error in a 100,000-term expression quotes the part around the mistake, not the megabyte:
/// the line and column say where it is.
#[test]
fn an_error_in_a_long_expression_quotes_only_its_place() {
    let text = format!(
        "{PENDULUM}\n[[constraints]]\nkind = \"expression\"\npoints = {{ a = \"bob\" }}\nc = \"{}\"\n",
        long("a.x^2 + a.y^2 - 1", " + 0*a.x") + " + a.w"
    );
    let e = error(&text);
    let at = text.find("a.w").unwrap();
    let (line, column) = line_column(&text, at);
    assert_eq!((e.line, e.column), (Some(line), Some(column)), "{e}");
    assert!(
        e.message
            .starts_with("unknown name 'a.w' in \"…0*a.x + 0*a.x"),
        "{e}"
    );
    assert!(e.message.ends_with(" + a.w\""), "{e}");
    assert!(e.message.len() < 120, "{e}");
    // Not a number at the start: quoted from its beginning.
    let e = error(&text.replace("+ a.w", "+ sqrt(a.x - 2)"));
    assert!(
        e.message.starts_with("'a.x^2 + a.y^2 - 1 + 0*a.x + 0*a.x"),
        "{e}"
    );
    assert!(
        e.message.ends_with("…' is NaN at the initial positions"),
        "{e}"
    );
}
