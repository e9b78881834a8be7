# GENERATED from requirements.lock by tools/nixlock.py: do not edit.
# Regenerate with `make nix-lock` (needs the package index); `make test` checks it offline.
# Per Nix system, one CPython 3.11 wheel for each pin of the lock: the lock's name, the
# wheel's distribution name, version and tags, and its SHA-256 (one of the lock's hashes
# for that pin). flake.nix fetches them with nixpkgs' fetchPypi; no index host is written.
{
  lockSha256 = "97ac9e009525f14568c0b870888b95b36b6702489818b2617ad270a4f5536b8e";
  python = "3.11";
  systems = [ "aarch64-linux" "x86_64-linux" ];
  wheels = {
    "aarch64-linux" = [
      { name = "build"; pname = "build"; version = "1.6.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "ecd351a4be9d35a9eaaba244a7687143c9c7d4aea6ac964e7e7ddab20cbcf4e7"; }
      { name = "cffi"; pname = "cffi"; version = "2.1.1"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_aarch64.manylinux_2_17_aarch64"; sha256 = "3311ed60d36f83378794e1009ac6258bafbf81f7888b4caa7b35a521e3f95813"; }
      { name = "click"; pname = "click"; version = "8.5.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37"; }
      { name = "cryptography"; pname = "cryptography"; version = "50.0.2"; dist = "cp311"; python = "cp311"; abi = "abi3"; platform = "manylinux_2_34_aarch64"; sha256 = "87e9ce85beb6b328ba370cc6e6aea483c92617b4c95b1d33a49297eb662bfb04"; }
      { name = "hypothesis"; pname = "hypothesis"; version = "6.170.17"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_aarch64.manylinux_2_17_aarch64"; sha256 = "83725fa8022f45bc972e975d07e45aca63d1d1edf415821d8c28aa6014323cfb"; }
      { name = "iniconfig"; pname = "iniconfig"; version = "2.3.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7"; }
      { name = "packaging"; pname = "packaging"; version = "26.4"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2"; }
      { name = "pip"; pname = "pip"; version = "26.3"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13"; }
      { name = "pip-tools"; pname = "pip_tools"; version = "7.6.2"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "f37eb4b736859c2c30230e50977312c61918b7ef931071ff7811fd067715c25f"; }
      { name = "pluggy"; pname = "pluggy"; version = "1.7.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec"; }
      { name = "pycparser"; pname = "pycparser"; version = "3.12"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e"; }
      { name = "pygments"; pname = "pygments"; version = "2.21.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9"; }
      { name = "pyproject-hooks"; pname = "pyproject_hooks"; version = "1.3.3"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "5fc53fdac9f7bd63fbcdc868fb5f90b4784d78a53a3d3388cd738b807441a20b"; }
      { name = "pytest"; pname = "pytest"; version = "9.2.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588"; }
      { name = "setuptools"; pname = "setuptools"; version = "84.2.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"; }
      { name = "sortedcontainers"; pname = "sortedcontainers"; version = "2.4.0"; dist = "py2.py3"; python = "py2.py3"; abi = "none"; platform = "any"; sha256 = "a163dcaede0f1c021485e957a39245190e74249897e2ae4b2aa38595db237ee0"; }
      { name = "ujson"; pname = "ujson"; version = "6.1.0"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux_2_24_aarch64.manylinux_2_28_aarch64"; sha256 = "ddd2286869cfeeb2d361a2b16056d362310d2d177b2057a88b3c7f2bf998aff8"; }
      { name = "wheel"; pname = "wheel"; version = "0.48.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "3217dcc807155e45db462d7ef2431f5ddda0d7273b700d05a67b271ceb1287ab"; }
    ];
    "x86_64-linux" = [
      { name = "build"; pname = "build"; version = "1.6.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "ecd351a4be9d35a9eaaba244a7687143c9c7d4aea6ac964e7e7ddab20cbcf4e7"; }
      { name = "cffi"; pname = "cffi"; version = "2.1.1"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_x86_64.manylinux_2_17_x86_64"; sha256 = "34e261f78cb6ceaaa36f42f2613f4380d94d9c759a9c73c769ee6e0247364632"; }
      { name = "click"; pname = "click"; version = "8.5.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37"; }
      { name = "cryptography"; pname = "cryptography"; version = "50.0.2"; dist = "cp311"; python = "cp311"; abi = "abi3"; platform = "manylinux_2_34_x86_64"; sha256 = "9dab55f57c74c3cad24c323bacbbd04be4705ba6eb0d92e920b1fc4837ed5079"; }
      { name = "hypothesis"; pname = "hypothesis"; version = "6.170.17"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux2014_x86_64.manylinux_2_17_x86_64"; sha256 = "ba5757621056597fd71d101357fed17b7f200592ca6050b59bf6733869de9fc5"; }
      { name = "iniconfig"; pname = "iniconfig"; version = "2.3.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7"; }
      { name = "packaging"; pname = "packaging"; version = "26.4"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2"; }
      { name = "pip"; pname = "pip"; version = "26.3"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13"; }
      { name = "pip-tools"; pname = "pip_tools"; version = "7.6.2"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "f37eb4b736859c2c30230e50977312c61918b7ef931071ff7811fd067715c25f"; }
      { name = "pluggy"; pname = "pluggy"; version = "1.7.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec"; }
      { name = "pycparser"; pname = "pycparser"; version = "3.12"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e"; }
      { name = "pygments"; pname = "pygments"; version = "2.21.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9"; }
      { name = "pyproject-hooks"; pname = "pyproject_hooks"; version = "1.3.3"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "5fc53fdac9f7bd63fbcdc868fb5f90b4784d78a53a3d3388cd738b807441a20b"; }
      { name = "pytest"; pname = "pytest"; version = "9.2.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588"; }
      { name = "setuptools"; pname = "setuptools"; version = "84.2.1"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"; }
      { name = "sortedcontainers"; pname = "sortedcontainers"; version = "2.4.0"; dist = "py2.py3"; python = "py2.py3"; abi = "none"; platform = "any"; sha256 = "a163dcaede0f1c021485e957a39245190e74249897e2ae4b2aa38595db237ee0"; }
      { name = "ujson"; pname = "ujson"; version = "6.1.0"; dist = "cp311"; python = "cp311"; abi = "cp311"; platform = "manylinux_2_24_x86_64.manylinux_2_28_x86_64"; sha256 = "1134719e111d00d81f185972a1180f35219027b05683d8999e2c893edd849c1b"; }
      { name = "wheel"; pname = "wheel"; version = "0.48.0"; dist = "py3"; python = "py3"; abi = "none"; platform = "any"; sha256 = "3217dcc807155e45db462d7ef2431f5ddda0d7273b700d05a67b271ceb1287ab"; }
    ];
  };
}
