# GENERATED from requirements.lock by tools/nixlock.py: do not edit.
# Regenerate with `make nix-lock` (needs the package index); `make test` checks it offline.
# Per Nix system, one CPython 3.11 wheel for each pin of the lock: the lock's name, the
# wheel's distribution name, version and tags, and its SHA-256 (one of the lock's hashes
# for that pin). flake.nix fetches them with nixpkgs' fetchPypi; no index host is written.
{
  lockSha256 = "a838263308f5858a51eb34840d6f1697aafe7ae2499944c0ff88d2e8d3ea34ec";
  python = "3.11";
  systems = [ "aarch64-linux" "x86_64-linux" ];
  wheels = {
    "aarch64-linux" = [
      { name = "cffi"; pname = "cffi"; version = "2.1.1"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_aarch64.manylinux_2_17_aarch64"; sha256 = "3311ed60d36f83378794e1009ac6258bafbf81f7888b4caa7b35a521e3f95813"; }
      { name = "cryptography"; pname = "cryptography"; version = "50.0.2"; dist = "cp311"; python = "cp311"; abi = "abi3"; platform = "manylinux_2_34_aarch64"; sha256 = "87e9ce85beb6b328ba370cc6e6aea483c92617b4c95b1d33a49297eb662bfb04"; }
      { name = "packaging"; pname = "packaging"; version = "26.4"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2"; }
      { name = "pycparser"; pname = "pycparser"; version = "3.12"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e"; }
    ];
    "x86_64-linux" = [
      { name = "cffi"; pname = "cffi"; version = "2.1.1"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_x86_64.manylinux_2_17_x86_64"; sha256 = "34e261f78cb6ceaaa36f42f2613f4380d94d9c759a9c73c769ee6e0247364632"; }
      { name = "cryptography"; pname = "cryptography"; version = "50.0.2"; dist = "cp311"; python = "cp311"; abi = "abi3"; platform = "manylinux_2_34_x86_64"; sha256 = "9dab55f57c74c3cad24c323bacbbd04be4705ba6eb0d92e920b1fc4837ed5079"; }
      { name = "packaging"; pname = "packaging"; version = "26.4"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2"; }
      { name = "pycparser"; pname = "pycparser"; version = "3.12"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e"; }
    ];
  };
}
