"""The README's picture of the Hertz spheres, drawn with ParaView from `impact export`'s files.

    pvbatch docs/img/hertz-spheres.py EXPORT_DIR OUT.png [TIME]

EXPORT_DIR holds result.pvd and the frames of tests/oracle/explicit-spheres-hertz-coarse
(`impact export --server URL JOB --out EXPORT_DIR`); the frame nearest TIME in seconds is
drawn (default 3.1e-5, when that model's contact force peaks). The quarter spheres are
mirrored across their cut z = 0, so the cut y = 0 shows the section through both centres;
each element is coloured by its von Mises stress, computed from the six Cauchy components
of the cell data `stress` (xx yy zz xy yz xz). Left: both spheres; right: the contact
region, with the elements' edges. Without a display, run it under `xvfb-run -a`.
"""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from paraview.simple import (
    CreateRenderView,
    CreateLayout,
    Reflect,
    PythonCalculator,
    Show,
    Text,
    XMLUnstructuredGridReader,
    GetColorTransferFunction,
    GetScalarBar,
    Render,
    SaveScreenshot,
)


def frame_nearest(export_dir, time):
    """The .vtu file of result.pvd whose time is nearest `time`, and its time."""
    series = ET.parse(export_dir / "result.pvd").getroot()
    frames = [
        (float(d.get("timestep")), d.get("file")) for d in series.iter("DataSet")
    ]
    t, name = min(frames, key=lambda f: abs(f[0] - time))
    return export_dir / name, t


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    export_dir, out = Path(sys.argv[1]), sys.argv[2]
    wanted = float(sys.argv[3]) if len(sys.argv) == 4 else 3.1e-5
    path, time = frame_nearest(export_dir, wanted)

    frame = XMLUnstructuredGridReader(FileName=[str(path)])
    frame.CellArrayStatus = ["stress", "part_id"]
    # Von Mises in MPa from the Voigt components xx yy zz xy yz xz.
    mises = PythonCalculator(Input=frame)
    mises.ArrayAssociation = "Cell Data"
    mises.ArrayName = "von Mises (MPa)"
    mises.Expression = (
        "1e-6*sqrt(0.5*((stress[:,0]-stress[:,1])**2+(stress[:,1]-stress[:,2])**2"
        "+(stress[:,2]-stress[:,0])**2)"
        "+3*(stress[:,3]**2+stress[:,4]**2+stress[:,5]**2))"
    )
    # The quarters keep y >= 0 and z >= 0: mirror across z = 0 (the plane at z min).
    half = Reflect(Input=mises)
    half.Plane = "Z Min"
    half.CopyInput = 1

    layout = CreateLayout("Hertz spheres")
    whole = CreateRenderView()
    zoom = CreateRenderView()
    layout.SplitHorizontal(0, 0.4)
    layout.AssignView(1, whole)
    layout.AssignView(2, zoom)
    layout.SetSize(1000, 600)

    lut = GetColorTransferFunction("vonMisesMPa")
    lut.ApplyPreset("Turbo", True)
    lut.RescaleTransferFunction(0.0, 3000.0)
    lut.AutomaticRescaleRangeMode = "Never"

    for view, edges in ((whole, False), (zoom, True)):
        view.OrientationAxesVisibility = 0
        view.Background = [1.0, 1.0, 1.0]
        view.UseColorPaletteForBackground = 0
        shown = Show(half, view)
        shown.Representation = "Surface With Edges" if edges else "Surface"
        shown.EdgeColor = [0.25, 0.25, 0.25]
        shown.ColorArrayName = ["CELLS", "von Mises (MPa)"]
        shown.LookupTable = lut

    bar = GetScalarBar(lut, zoom)
    bar.Title = "von Mises (MPa)"
    bar.ComponentTitle = ""
    bar.TitleColor = [0.1, 0.1, 0.1]
    bar.LabelColor = [0.1, 0.1, 0.1]
    bar.TitleFontSize = 14
    bar.LabelFontSize = 13
    bar.WindowLocation = "Any Location"
    bar.Orientation = "Vertical"
    bar.Position = [0.8, 0.08]
    bar.ScalarBarLength = 0.78
    bar.RangeLabelFormat = "%-#.0f"
    bar.HorizontalTitle = 1
    bar.DrawBackground = 1
    bar.BackgroundColor = [1.0, 1.0, 1.0, 0.85]
    bar.BackgroundPadding = 6.0
    bar.Visibility = 1

    captions = (
        (whole, "t = %.1f µs\nsection y = 0" % (time * 1e6)),
        (zoom, "the contact, 2.4 mm across,\nwith the elements' edges"),
    )
    for view, words in captions:
        label = Show(Text(Text=words), view)
        label.Color = [0.1, 0.1, 0.1]
        label.FontSize = 14
        label.WindowLocation = "Upper Left Corner"

    # paraview.simple resets a view's camera at its first render: render, then aim.
    for view, half_height in ((whole, 0.0205), (zoom, 0.0012)):
        Render(view)
        # Look at the section y = 0 from -y, centred on the poles, the spheres one above the
        # other (x up) to fit the tall left view.
        view.CameraPosition = [0.0, -0.1, 0.0]
        view.CameraFocalPoint = [0.0, 0.0, 0.0]
        view.CameraViewUp = [1.0, 0.0, 0.0]
        view.CameraParallelProjection = 1
        view.CameraParallelScale = half_height
        Render(view)
    SaveScreenshot(out, layout, ImageResolution=[1000, 600])
    print("%s: %s at t = %g s" % (out, path.name, time))


main()
