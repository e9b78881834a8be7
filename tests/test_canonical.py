"""Canonical JSON, digests and JS number text: the SPEC §3.5 and §9.1 vectors."""

from __future__ import annotations

import pytest

from ablation.canonical import canon, canonical_digest, canonically_equal, is_digest, js_number, raw_digest

A40 = "a" * 40
S = "sha256:193fc8861672ce1e716f9a49cc806dfc5f593a6d3ca489fe8b6dd54379b38015"
V1 = "sha256:0549f81f476e5697093ee1bb8fa574b7f75e25788685c7a5f97ee216985ce249"
V2 = "sha256:4b087856159915ff9f43db03148c0cfb55342633edd017ad7b5895256f90bd82"


REQUEST = {
    "question": "Locate alpha request parsing and validation behavior.",
    "seeds": [
        {"id": "seed:language", "kind": "text", "value": "JavaScript"},
        {"id": "seed:pattern", "kind": "text", "value": "$MATCH"},
        {"id": "seed:path", "kind": "path", "value": "src"},
    ],
    "operations": ["structural_search"],
    "limits": {"maxCandidates": 20, "maxCandidatesPerFile": 5, "maxEvidenceBytes": 65536, "timeoutMs": 30000},
}


VECTORS: list[tuple[str, object, str]] = [
    ("1-intent-tokens", ["alpha", "and", "behavior", "locate", "parsing", "request", "validation"], V1),
    ("2-target-basis", {"repositoryCommit": A40, "sourceListArtifactSha256": S, "truth": ["src/alpha.js"]}, V2),
    (
        "4-git-argv",
        ["git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--"],
        "sha256:b1f07241a29c137e07c2d0de654d74da7102ba763daeb19d1a11be689da12272",
    ),
    (
        "5-source-list-argv",
        ["/usr/bin/node", "/opt/pinned/agent-scripts/scripts/source-list.mjs", "--repo", ".", "--full-list", "--json"],
        "sha256:75d8233991c9b59edfd4bd8b0b2ed9be54fe45564628c2b04627589b2bcd9bca",
    ),
    (
        "7-exporter-argv",
        [
            "/opt/pinned/semantic-code-intelligence",
            "experimental",
            "structural-evidence-receipt",
            "--request-file",
            "/evidence/prepared-request.json",
        ],
        "sha256:10ad16673aff94a89e59df78f966535fd199d7a2cae8c54d82bfad8205381ef5",
    ),
    ("8-non-ascii-raw", {"a": "é"}, "sha256:b3a092a6af48807fa9482b2ee140105575daa26d5b24b3c0e60a7e2dee6683b1"),
    (
        "9-utf8-member-order",
        {"Ａ": 1, "😀": 2},
        "sha256:e3207e8ca18e6d266f11ec625254ff3bd274ce9567347abb344ad45e86d622f7",
    ),
    (
        "10-escapes",
        {"k": '\x00\b\t\n\f\r"\\/\x1f\x7f\u2028é😀'},
        "sha256:3b33f2a1f6f63a2910e1111ac85dbe810e4daf7b6ed560c0e7b78d1eb1aba43e",
    ),
    (
        "11-scalars",
        [0, -0, 9007199254740991, -9007199254740991, True, False, None, "", [], {}],
        "sha256:025dbf578bfb74bf610f2037aba185e1c00a74b419e06b84966b6064df981a19",
    ),
    (
        "12-member-names",
        {"b": 1, "a": 2, "B": 3, "é": 4, "e": 5, "": 6, "a b": 7, "~": 8},
        "sha256:1881729fefe72d698e26fb8d4fea11624c110d5b764f91a9ac30297924c12a57",
    ),
    ("15-request", REQUEST, "sha256:1446d8d6f56e6ac92cbf0a3e12d9621f29905a63576491548d5596b815b6f9ff"),
]


@pytest.mark.parametrize(("value", "digest"), [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS])
def test_canonical_digest_vectors(value: object, digest: str) -> None:
    assert canonical_digest(value) == digest


def test_vector_3_question_id() -> None:
    body = {"repositoryId": "repo", "intentSignature": V1, "targetBasisDigest": V2}
    assert "question:" + canonical_digest(body) == (
        "question:sha256:e8cc751fac3c0848a865183553b6ab326d21c0e6313e06e8010a2df884cff918"
    )


def test_vector_6_candidate_id() -> None:
    identity = {
        "path": "src/alpha.js",
        "kind": "match",
        "range": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 5}},
    }
    assert canon(identity) == (
        '{"kind":"match","path":"src/alpha.js","range":{"end":{"column":5,"line":0},"start":{"column":0,"line":0}}}'
    )
    assert "candidate:" + canonical_digest(identity) == (
        "candidate:sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858"
    )


def test_vectors_9_and_10_exact_bytes() -> None:
    assert canon({"Ａ": 1, "😀": 2}).encode().hex() == "7b22efbca1223a312c22f09f9880223a327d"
    assert canon({"k": '\x00\b\t\n\f\r"\\/\x1f\x7f\u2028é😀'}).encode().hex() == (
        "7b226b223a225c75303030305c625c745c6e5c665c725c225c5c2f5c75303031667fe280a8c3a9f09f9880227d"
    )


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        ("", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("source-list executable", "sha256:ac1db4e9ee4c8cc3aa720765d98c5abe1eb40ecc599dbbfa78a9877195dbdab7"),
        ("sci artifact", "sha256:757fedab1902d81ca378822974086aff4b385bf970055814956b697eab2c95c8"),
        ("backend artifact", "sha256:0c1a536a9622aec12907d92a8d0d2c05c37ff34611589cb0ba0b039a2b5b0016"),
    ],
    ids=["13-empty", "14-source-list-executable", "14-sci-artifact", "14-backend-artifact"],
)
def test_raw_digest_vectors(text: str, digest: str) -> None:
    assert raw_digest(text) == digest
    assert raw_digest(text.encode()) == digest


def test_ascii_escaping_would_be_wrong() -> None:
    assert canonical_digest({"a": "é"}) != "sha256:57e512a1"  # the wrong digest's prefix (§3.5 #8)
    assert not canonical_digest({"a": "é"}).startswith("sha256:57e512a1")
    assert not canonical_digest({"Ａ": 1, "😀": 2}).startswith("sha256:983ec72f")


def test_canonical_equality_is_type_strict() -> None:
    assert not canonically_equal({"a": True}, {"a": 1})
    assert canonically_equal({"b": 1, "a": [None]}, {"a": [None], "b": 1})


@pytest.mark.parametrize(
    "value",
    ["sha256:" + "0" * 64 + "\n", "sha256:" + "A" * 64, "SHA256:" + "0" * 64, "sha256:" + "0" * 63, 7, None],
)
def test_digest_predicate_rejects(value: object) -> None:
    assert not is_digest(value)


JS_TABLE = [
    (1.0, "1"),
    (0.0, "0"),
    (-0.0, "0"),
    (0.45, "0.45"),
    (0.7000000000000001, "0.7000000000000001"),
    (-0.44444444444444436, "-0.44444444444444436"),
    (1 / 20000, "0.00005"),
    (1.5e-6, "0.0000015"),
    (1e-7, "1e-7"),
    (1.23e-18, "1.23e-18"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (-8.0, "-8"),
    (0.12500000000000006, "0.12500000000000006"),
    (123456789012345680000.0, "123456789012345680000"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (5e-324, "5e-324"),
    (0.000001, "0.000001"),
]


@pytest.mark.parametrize(("value", "text"), JS_TABLE, ids=[t for _, t in JS_TABLE])
def test_js_number_table(value: float, text: str) -> None:
    assert js_number(value) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_js_number_refuses_non_finite(value: float) -> None:
    with pytest.raises(ValueError, match="cannot write"):
        js_number(value)


# ---------------------------------------------------------------- js_number's exponent form (mutation testing)


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.5e-7, "1.5e-7"), (2.5e22, "2.5e+22"), (-1.5e-7, "-1.5e-7"), (1.25e-7, "1.25e-7"), (3e-7, "3e-7")],
)
def test_js_number_exponent_form_with_two_significant_digits(value: float, text: str) -> None:
    """k = 2 digits still get a decimal point in exponent form (k > 1, not k > 2)."""
    assert js_number(value) == text
