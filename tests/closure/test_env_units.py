"""The pieces of the sealed start and its checks, in process (issue 18).

:mod:`ablation.closure.boot` (which variables are refused, the environment of
stage 2), :mod:`ablation.closure.layerlines` (the manifest read without a JSON
parser), :mod:`ablation.closure.trees` (whole-tree inventories) and the manifest
members ``environment``, ``trees`` and ``absent``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ablation.closure import boot
from ablation.closure.layerlines import read_layers
from ablation.closure.manifest import ManifestUnusable, read_manifest, render_manifest
from ablation.closure.system import absent_problems, mount_points
from ablation.closure.trees import collect_tree, tree_problems
from tests.closure.env_vectors import SEALED, VENV


def test_refused_variables_are_the_loader_s_glibc_s_and_the_two_under_I() -> None:
    names = {"LD_ANYTHING", "GCONV_PATH", "TZDIR", "PYTHONEXECUTABLE", "TMPDIR", "OPENSSL_CONF", "LANG", "TZ"}
    assert [name for name, _, _ in boot.refused_variables(names)] == [
        "GCONV_PATH",
        "LD_ANYTHING",
        "PYTHONEXECUTABLE",
        "TZDIR",
    ]
    assert set(boot.REFUSED_NAMES) >= {
        "GCONV_PATH",
        "GETCONF_DIR",
        "GLIBC_TUNABLES",
        "HOSTALIASES",
        "LOCALDOMAIN",
        "LOCPATH",
        "MALLOC_TRACE",
        "NIS_PATH",
        "NLSPATH",
        "RESOLV_HOST_CONF",
        "RES_OPTIONS",
        "TZDIR",
    }


def test_stage_two_gets_a_fixed_environment_and_the_product_s_own_variables() -> None:
    caller = {
        b"LANG": b"tr_TR.UTF-8",
        b"OPENSSL_CONF": b"/x",
        b"SOURCE_DATE_EPOCH": b"1700000000",
        b"ABLATION_IMAGE_DIGEST": b"sha256:" + b"a" * 64,
        b"PATH": b"/bin",
        b"TMPDIR": b"/t",
    }
    assert boot.clean_environment(caller, "/v/lib/python3.11/site-packages") == {
        b"LANGUAGE": b"C",
        b"LC_ALL": b"C.UTF-8",
        b"TZ": b"UTC",
        b"OPENSSL_CONF": b"/v/lib/python3.11/site-packages/ablation/closure/openssl.cnf",
        b"ABLATION_START": b"sealed",
        b"ABLATION_IMAGE_DIGEST": b"sha256:" + b"a" * 64,
        b"SOURCE_DATE_EPOCH": b"1700000000",
    }


def test_option_problems_name_each_option() -> None:
    class Flags:
        isolated, dont_write_bytecode, optimize, no_site = 0, 0, 1, 0

    found = [what.split(":")[0] for _, what, _ in boot.option_problems(Flags(), "/p", no_site=True)]
    assert found == [
        "runs without -I",
        "runs without -B",
        "runs with -O",
        "runs with -X pycache_prefix",
        "runs without -S",
    ]


@pytest.mark.skipif(not SEALED, reason="needs the sealed .venv (make venv)")
def test_the_manifest_read_without_json_equals_the_json_reading() -> None:
    data = (VENV / "lib" / "python3.11" / "site-packages" / "ablation" / "CLOSURE.json").read_bytes()
    document = json.loads(data)
    assert read_layers(data) == {layer: dict(entries) for layer, entries in document["layers"].items()}


def test_the_manifest_reader_leaves_out_escaped_paths_and_reads_nulls() -> None:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"a.py": "a" * 64, 'q"uote.py': "b" * 64, "RECORD": None},
        "dependencies": {},
        "stdlib": {"x.py": "c" * 64},
        "interpreter": {},
    }
    data = render_manifest(package={"name": "ablation", "version": "0"}, distributions=[], layers=layers, local={})
    assert read_layers(data) == {
        "package": {"RECORD": None, "a.py": "a" * 64},
        "dependencies": {},
        "stdlib": {"x.py": "c" * 64},
        "interpreter": {},
    }


def test_the_new_manifest_members_round_trip(tmp_path: Path) -> None:
    layers: dict[str, dict[str, str | None]] = {"package": {}, "dependencies": {}, "stdlib": {}, "interpreter": {}}
    trees = {"prefix": {"bin": "dir", "bin/python": "link"}, "site": {}, "stdlib": {"site-packages": "skip"}}
    data = render_manifest(
        package={"name": "ablation", "sourceRevision": None},
        distributions=[],
        layers=layers,
        local={},
        environment="container",
        trees=trees,
        absent=("usr/lib/python311.zip",),
    )
    (tmp_path / "m.json").write_bytes(data)
    manifest = read_manifest(tmp_path / "m.json", "m.json")
    assert (manifest.environment, manifest.absent) == ("container", ("usr/lib/python311.zip",))
    assert manifest.trees == trees
    broken = data.replace(b'"link"', b'"socket"')
    with pytest.raises(ManifestUnusable, match="has a malformed trees list"):
        read_manifest(tmp_path / "m.json", "m.json", broken)


def test_a_tree_names_what_was_added_and_what_is_missing(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "os.py").write_text("", encoding="utf-8")
    (root / "site-packages" / "deep").mkdir(parents=True)
    files = ["os.py", "pkg/__init__.py"]
    tree = collect_tree(root, files, skip=["site-packages"])
    assert tree == {"pkg": "dir", "pkg/__pycache__": "dir", "site-packages": "skip"}
    assert tree_problems(str(root), tree, files, "stdlib") == []
    (root / "pkg" / "__pycache__" / "evil.pyc").write_bytes(b"")
    (root / "sitecustomize").mkdir()
    (root / "os.py").unlink()
    (root / "site-packages" / "deep" / "ignored.py").write_text("", encoding="utf-8")
    assert [p.render() for p in tree_problems(str(root), tree, files, "stdlib")] == [
        "pkg/__pycache__/evil.pyc is not in the closure manifest (layer stdlib)",
        "sitecustomize is not in the closure manifest (layer stdlib)",
        "os.py is missing (it is in the closure manifest) (layer stdlib)",
    ]
    only = tree_problems(str(root), tree, files, "dependencies", only_folders=True)
    assert [p.render() for p in only] == ["sitecustomize is not in the closure manifest (layer dependencies)"]


def test_mount_points_are_unescaped_and_absent_paths_are_named(tmp_path: Path) -> None:
    assert mount_points("1 2 0:1 / /a\\040b\\011c rw - tmpfs none rw\nbroken line\n") == [("/a b\tc", "tmpfs")]
    present = tmp_path / "python311.zip"
    present.write_bytes(b"")
    found = absent_problems([str(present).lstrip("/"), str(tmp_path / "absent.zip").lstrip("/")])
    assert [p.render() for p in found] == [
        f"{present} exists, and was absent when the environment was sealed (the interpreter imports from it first) "
        "(layer stdlib)"
    ]
