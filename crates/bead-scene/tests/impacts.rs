//! `[simulation] impacts`: the impact mode reaches the engine, and a wrong name is an error at
//! its line that lists the modes.

#![allow(clippy::unwrap_used)]

use bead::contact::Impacts;
use bead_scene::{Format, Scene};

fn scene(impacts: &str) -> String {
    format!(
        "format = 1\nname = \"drop\"\n\n[simulation]\ndimension = 2\ndt = 0.001\nduration = 0.5\n{impacts}\n\n\
         [[particles]]\nname = \"ball\"\nposition = [0.0, 0.6]\nradius = 0.1\n\n\
         [[forces]]\nkind = \"gravity\"\ng = [0.0, -9.81]\n\n\
         [[constraints]]\nkind = \"half-plane\"\npoint = \"ball\"\nthrough = [0.0, 0.0]\nnormal = [0.0, 1.0]\nradius = 0.1\nname = \"floor\"\n"
    )
}

#[test]
fn the_impact_mode_reaches_the_engine() {
    for (line, mode) in [
        ("", Impacts::Located),
        ("impacts = \"located\"", Impacts::Located),
        ("impacts = \"speculative\"", Impacts::Speculative),
        ("impacts = \"off\"", Impacts::Off),
    ] {
        let model = Scene::parse(&scene(line), Format::Toml, "drop.toml")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(model.system.settings().impacts, mode, "{line}");
    }
}

#[test]
fn an_unknown_impact_mode_is_located_and_lists_the_modes() {
    let parsed = Scene::parse(&scene("impacts = \"bouncy\""), Format::Toml, "drop.toml").unwrap();
    let error = parsed.build().unwrap_err();
    assert_eq!(error.field.as_deref(), Some("simulation.impacts"));
    assert_eq!(error.line, Some(8));
    assert!(error.message.contains("bouncy"), "{}", error.message);
    let hint = error.hint.unwrap();
    assert!(hint.contains("located, speculative, off"), "{hint}");
}
