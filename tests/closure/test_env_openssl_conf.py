"""Vector 1 (issue 18): ``OPENSSL_CONF`` and the other ways to make OpenSSL load a module.

A configuration that loads a provider module runs its code when ``_hashlib``
initialises OpenSSL, and OpenSSL unloads it again (no ``OSSL_provider_init``), so
``/proc/self/maps`` never shows it. The sealed start clears every ``OPENSSL_*``
variable and points both OpenSSLs (the interpreter's and the one bundled in
cryptography) at the sealed ``ablation/closure/openssl.cnf``: the payload never
loads, and the results file is byte for byte a clean run's.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.closure.env_vectors import VENV, Evaluation, Payload, ablation, base_env, can_unshare, refusal, site_of

PATCH_PROBE = "import hashlib, fractions; print(fractions.Fraction(1, 10) >= fractions.Fraction(1, 5))"


def _provider_config(tmp_path: Path, module: Path) -> Path:
    config = tmp_path / "openssl.cnf"
    config.write_text(
        "openssl_conf = attack\n[attack]\nproviders = attack_providers\n"
        f"[attack_providers]\nattack = attack_provider\n[attack_provider]\nmodule = {module}\nactivate = 1\n",
        encoding="utf-8",
    )
    return config


def test_the_provider_payload_flips_the_gate_where_openssl_reads_the_variable(payload: Payload, tmp_path: Path) -> None:
    """The control: an interpreter that honours OPENSSL_CONF runs the payload, and G4b's comparison flips."""
    payload.reset()
    config = _provider_config(tmp_path, payload.plain)
    env = base_env(OPENSSL_CONF=str(config))
    completed = subprocess.run(
        [str(VENV / "bin" / "python"), "-I", "-c", PATCH_PROBE], capture_output=True, text=True, check=False, env=env
    )
    assert completed.stdout == "True\n", completed.stderr
    assert payload.ran() == "loaded\npatched\n"


def test_OPENSSL_CONF_naming_a_provider_payload_is_inert(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, payload: Payload, tmp_path: Path
) -> None:
    payload.reset()
    config = _provider_config(tmp_path, payload.plain)
    out = tmp_path / "out" / "results.json"
    completed = evaluation.run(sealed_copy, out, env=base_env(OPENSSL_CONF=str(config)))
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == clean_results
    assert payload.ran() == ""


@pytest.mark.parametrize(
    "name", ["OPENSSL_MODULES", "OPENSSL_ENGINES", "OPENSSL_CONF_INCLUDE", "OPENSSL_ia32cap", "SSL_CERT_FILE"]
)
def test_every_other_openssl_variable_is_cleared(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, payload: Payload, tmp_path: Path, name: str
) -> None:
    out = tmp_path / "out" / "results.json"
    completed = evaluation.run(sealed_copy, out, env=base_env(**{name: str(payload.folder)}))
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == clean_results


def test_both_openssls_read_the_sealed_configuration_only(sealed_copy: Path, tmp_path: Path) -> None:
    """strace of a signing archive: the sealed openssl.cnf is read, no system or OPENSSLDIR configuration."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    keys = tmp_path / "k.pem", tmp_path / "k.pub"
    assert ablation(sealed_copy, "keygen", "--private-key", keys[0], "--public-key", keys[1]).returncode == 0
    trace = tmp_path / "trace"
    second = ("--private-key", tmp_path / "k2.pem", "--public-key", tmp_path / "k2.pub")
    completed = ablation(
        sealed_copy, "keygen", *second, prefix=("strace", "-f", "-e", "trace=openat", "-o", str(trace))
    )
    assert completed.returncode == 0, completed.stderr
    opened = [line for line in trace.read_text(encoding="utf-8").splitlines() if ".cnf" in line]
    sealed = str(site_of(sealed_copy) / "ablation" / "closure" / "openssl.cnf")
    assert opened and all(sealed in line for line in opened), opened


def test_a_changed_sealed_openssl_configuration_is_refused(
    sealed_copy: Path, change: Callable[[Path, bytes | None], None]
) -> None:
    config = site_of(sealed_copy) / "ablation" / "closure" / "openssl.cnf"
    change(config, config.read_bytes() + b"\n# changed\n")
    line = refusal(ablation(sealed_copy, "identity"))
    assert line.startswith("ablation: closure: ablation/closure/openssl.cnf changed (sha256 ")
    assert line.endswith("(layer package); rebuild the environment (make venv) or the image")


def _namespace_skip() -> None:
    why = can_unshare()
    if why is not None:
        pytest.skip(why)


def test_a_system_and_a_bundled_openssl_configuration_are_inert(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, payload: Payload, tmp_path: Path
) -> None:
    """Root's forms, in a private mount namespace: the system's openssl.cnf replaced, and cryptography's
    own OPENSSLDIR (/opt/pyca/cryptography/openssl) created; the run signs a bundle so cryptography loads."""
    _namespace_skip()
    payload.reset()
    config = _provider_config(tmp_path, payload.plain)
    system = Path("/usr/lib/ssl/openssl.cnf").resolve()
    keys = tmp_path / "k.pem", tmp_path / "k.pub"
    assert ablation(sealed_copy, "keygen", "--private-key", keys[0], "--public-key", keys[1]).returncode == 0
    out, bundle = tmp_path / "out" / "results.json", tmp_path / "out" / "b.tar.gz"
    script = (
        f"mount --bind {config} {system} && mount -t tmpfs none /opt && mkdir -p /opt/pyca/cryptography/openssl && "
        f"cp {config} /opt/pyca/cryptography/openssl/openssl.cnf && "
        f'"$@"'
    )
    prefix = ("unshare", "-m", "sh", "-c", script, "sh")
    completed = evaluation.run(sealed_copy, out, prefix=prefix)
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == clean_results
    archived = ablation(
        sealed_copy,
        "archive",
        "--input",
        evaluation.path,
        "--results",
        out,
        "--bundle",
        bundle,
        "--sign-key",
        keys[0],
        prefix=prefix,
    )
    assert archived.returncode == 0, archived.stderr
    assert payload.ran() == ""
