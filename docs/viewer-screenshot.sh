#!/usr/bin/env bash
# Retakes docs/viewer.png: a real bead-viewer window under Xvfb, showing the 30×30 curtain
# (scenes/curtain.toml) pulled by a bottom corner with the mouse, a rod near the rail selected
# (its λ on the right-hand plot), and the rods coloured by their tension.
#
#   docs/viewer-screenshot.sh            # needs root for apt-get if Xvfb, xdotool or
#                                        # ImageMagick are missing
#
# The window is 1280×800 at the origin of an X server without a window manager, so the
# positions below are fixed: the Play button, a rod between n1_15 and n1_16 at t = 0, and the
# corner particle n29_29.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v Xvfb >/dev/null || missing+=(xvfb)
command -v xdotool >/dev/null || missing+=(xdotool)
command -v import >/dev/null || missing+=(imagemagick)
# eframe's glow renderer needs an OpenGL driver: Mesa's software one (llvmpipe) under Xvfb.
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || missing+=(libgl1-mesa-dri libegl1)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y "${missing[@]}"
fi

cargo build --release -p bead-viewer
display=:97
Xvfb "$display" -screen 0 1280x800x24 &
xvfb=$!
viewer=""
trap 'kill $viewer $xvfb 2>/dev/null || true' EXIT
export DISPLAY=$display
sleep 1
target/release/bead-viewer --size 1280x800 scenes/curtain.toml &
viewer=$!
sleep 4

# Select the rod n1_15–n1_16 while the model is at rest: zoom in about it first (the point
# under the pointer stays put), so that it is far from the particles at its ends, then fit.
xdotool mousemove 535 185
for _ in 1 2 3 4 5 6; do xdotool click 4; sleep 0.1; done
sleep 1
xdotool click 1
xdotool mousemove 970 12 click 1         # Fit
sleep 0.5
xdotool mousemove 291 12 click 1         # Play
sleep 1.5
xdotool mousemove 664 453 mousedown 1    # grab the corner n29_29 and pull it out and up
for k in $(seq 1 24); do
    xdotool mousemove $((664 + 9 * k)) $((453 - 4 * k))
    sleep 0.05
done
sleep 2.5
import -window root docs/viewer.png
xdotool mouseup 1
echo "wrote docs/viewer.png"
