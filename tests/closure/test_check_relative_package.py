"""``check_closure`` given the package folder as a relative path of one part (``Path("ablation")``).

Before b89c748 the folder's parent was ``Path("ablation").parent``, ``.``; with
``os.path`` it is ``os.path.dirname("ablation")``, the empty string, which cannot
be listed, and the check reported ``site-packages ... changed while the closure
was checked`` instead of what it finds from the absolute path. The check runs in
the sealed ``.venv``'s own interpreter, from its ``site-packages``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

CODE = """
import json, os
from pathlib import Path
from ablation.closure import check
found = [check.check_closure(folder).problems for folder in (Path("ablation"), "ablation", Path.cwd() / "ablation")]
print(json.dumps(found))
"""


def test_a_relative_package_folder_is_checked_as_the_absolute_one(sealed_venv: Path) -> None:
    site = next((sealed_venv / "lib").glob("python3*/site-packages"))
    done = subprocess.run(
        [str(sealed_venv / "bin" / "python"), "-I", "-B", "-c", CODE], cwd=site, capture_output=True, check=True
    )
    relative, text, absolute = json.loads(done.stdout)
    assert relative == text == absolute
    assert [problem[1] for problem in absolute] == ["isolation", "isolation"]
