//! GIF encoding: each snapshot rasterised and written as it is drawn, so only one image is held
//! at a time.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use tiny_skia::Pixmap;

use super::canvas::Snapshot;
use super::options::RenderOptions;
use super::raster::rasterise;
use super::viewport::Viewport;

/// GIF delays are in hundredths of a second; 0 would mean "as fast as possible".
pub(super) fn frame_delay(fps: u32) -> u16 {
    let delay = (100.0 / f64::from(fps)).round().max(1.0);
    // fps ≥ 1 keeps this ≤ 100.
    delay as u16
}

/// Rasterises each snapshot and writes them all as a looping GIF.
pub(super) fn encode(
    snapshots: &[Snapshot],
    view: &Viewport,
    options: &RenderOptions,
    output: &Path,
) -> Result<()> {
    let shown = output.display();
    let (width, height) = (
        u16::try_from(options.width).context("image width does not fit a GIF")?,
        u16::try_from(options.height).context("image height does not fit a GIF")?,
    );
    let mut pixmap = Pixmap::new(options.width, options.height)
        .with_context(|| format!("cannot allocate a {width}×{height} image"))?;
    let file = File::create(output).with_context(|| format!("cannot create {shown}"))?;
    let mut encoder = gif::Encoder::new(BufWriter::new(file), width, height, &[])
        .with_context(|| format!("cannot write {shown}"))?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .with_context(|| format!("cannot write {shown}"))?;
    let delay = frame_delay(options.fps);
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for snapshot in snapshots {
        rasterise(&mut pixmap, snapshot, view);
        rgba.clear();
        // tiny-skia stores premultiplied colour; GIF wants straight RGBA.
        rgba.extend(pixmap.pixels().iter().flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
        }));
        let mut frame = gif::Frame::from_rgba_speed(width, height, &mut rgba, 10);
        frame.delay = delay;
        encoder
            .write_frame(&frame)
            .with_context(|| format!("cannot write frame at t = {} s to {shown}", snapshot.time))?;
    }
    let mut writer = encoder
        .into_inner()
        .with_context(|| format!("cannot write {shown}"))?;
    writer
        .flush()
        .with_context(|| format!("cannot write {shown}"))?;
    Ok(())
}
