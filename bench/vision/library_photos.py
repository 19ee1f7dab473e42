"""The AprilTag project's own test photos, as a photo set nothing here was ever tuned on.

apriltag-python's source on PyPI carries the C library's regression photos (three NASA Swarmathon
photos, 47 tag36h11 markers, CC BY-SA 2.0) with the library's expected detections beside them. They
are fetched once from PyPI (the download is checked against the index's sha256) into
var/bench-cache/ and written as a photo set (vision/photoset.py): `NAME.jpg` with `NAME.ref.json`.
The references are the library's own corners (pixel centres at +0.5 there, at 0 here), so they say
which markers a detector finds, not whose corners are better (bench/vision/bench_corners.py does).
They never enter the repository.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import tarfile
import urllib.request
from pathlib import Path

VERSION = "3.4.5"
INDEX = "https://pypi.org/simple/apriltag-python/"
SET_NAME = "A_apriltag_test_photos"
DATA_DIR = "src/apriltag/apriltag/test/data/"
LINE = re.compile(r"^\s*(\d+)\s*,(.*)$")


def fetch(cache: Path) -> Path:
    """A folder of photo sets (vision/photoset.py) holding this one (SET_NAME), fetched into `cache` and
    written on first use."""
    root = cache / "library-photos"
    folder = root / SET_NAME
    if any(folder.glob("*.ref.json")):
        return root
    with urllib.request.urlopen(INDEX, timeout=60) as page:
        links = page.read().decode()
    name = f"apriltag_python-{VERSION}.tar.gz"
    found = re.search(rf'href="([^"#]*{re.escape(name)})#sha256=([0-9a-f]+)"', links)
    if found is None:
        raise RuntimeError(f"{INDEX}: no {name}")
    with urllib.request.urlopen(found.group(1), timeout=120) as download:
        blob = download.read()
    if hashlib.sha256(blob).hexdigest() != found.group(2):
        raise RuntimeError(f"{name}: the download does not match the index's sha256")
    partial = root / (SET_NAME + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            path = member.name.split("/", 1)[-1]
            if not path.startswith(DATA_DIR) or not member.isfile():
                continue
            data = tar.extractfile(member)
            assert data is not None
            stem, suffix = Path(path).stem, Path(path).suffix
            if suffix == ".jpg":
                (partial / f"{stem}.jpg").write_bytes(data.read())
            elif suffix == ".txt":
                refs = references(data.read().decode())
                (partial / f"{stem}.ref.json").write_text(json.dumps(refs, indent=1))
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return root


def references(text: str) -> dict[str, object]:
    """A reference file's contents from the library's expected detections: `id, (x y), (x y), ...`
    a line, corners with pixel centres at +0.5."""
    markers = []
    for line in text.splitlines():
        got = LINE.match(line)
        if got is None:
            continue
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", got.group(2))]
        corners = [[x - 0.5, y - 0.5] for x, y in zip(numbers[0::2], numbers[1::2], strict=True)]
        markers.append({"id": int(got.group(1)), "corners": corners})
    return {"dictionary": "DICT_APRILTAG_36h11", "markers": markers}
