"""Recalculate or print a workbook in headless LibreOffice (docs/model.md, section 8)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PROFILE_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert(files: list[Path], out_dir: Path, to: str = "xlsx", timeout: float = 600) -> list[Path]:
    """Open each file in one headless LibreOffice with 'always recalculate' and save it in
    ``out_dir`` as ``to`` (xlsx: recalculated values; pdf: the printed pages); returns the paths."""
    exe = soffice()
    if exe is None:
        raise FileNotFoundError("soffice")
    with tempfile.TemporaryDirectory() as home:
        profile = Path(home) / "profile"
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(PROFILE_XCU)
        env = {**os.environ, "HOME": home}
        subprocess.run(
            [
                exe,
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless",
                "--norestore",
                "--nolockcheck",
                "--convert-to",
                to,
                "--outdir",
                str(out_dir),
                *map(str, files),
            ],
            env=env,
            check=False,
            capture_output=True,
            timeout=timeout,
        )
    outs = [Path(out_dir) / (Path(f).stem + "." + to) for f in files]
    for out in outs:
        if not out.exists():  # soffice exits 0 even when it could not load the file
            raise RuntimeError(f"LibreOffice wrote no {out}")
    return outs


def recalculate(xlsx: Path, out_dir: Path, timeout: float = 300) -> Path:
    """Open ``xlsx`` in LibreOffice with 'always recalculate', save a copy in ``out_dir``; return its path."""
    return convert([xlsx], out_dir, "xlsx", timeout)[0]
