# Offline evaluation check of flake.nix, run by .ci/run:
#
#   nix-instantiate --eval --strict nix/eval-check.nix
#
# It imports flake.nix and calls its `outputs` with nix/nixpkgs-standin.nix,
# a minimal STAND-IN for nixpkgs (the real one cannot be fetched here). It
# proves that the flake evaluates, that every string in its outputs can be
# built, and that the outputs have the expected names and settings. It does
# NOT prove that the real nixpkgs builds the package: see README.md "Nix".
let
  flake = import ../flake.nix;
  nixpkgs = import ./nixpkgs-standin.nix;
  self = { outPath = toString ../.; };
  outputs = flake.outputs { inherit self nixpkgs; };

  systems = [ "aarch64-linux" "x86_64-linux" ];
  pyprojectVersion =
    builtins.head (builtins.head (builtins.filter (m: m != null)
      (map (builtins.match "version = \"([^\"]+)\"")
        (builtins.filter builtins.isString (builtins.split "\n" (builtins.readFile ../pyproject.toml))))));

  expect = what: actual: expected:
    if actual == expected then true
    else throw "flake eval check: ${what}: expected ${builtins.toJSON expected}, got ${builtins.toJSON actual}";
  names = builtins.attrNames;
  hasInfix = infix: s: builtins.match ".*${infix}.*" s != null;

  checkSystem = system:
    let
      packages = outputs.packages.${system};
      pkg = packages.default;
      image = packages.image;
      app = outputs.apps.${system}.default;
      filter = pkg.src.standinFilter;
      root = toString ../.;
    in
    builtins.all (x: x) [
      (expect "packages.${system}" (names packages) [ "ablation" "default" "image" ])
      (expect "apps.${system}" (names outputs.apps.${system}) [ "default" ])
      (expect "checks.${system}" (names outputs.checks.${system}) [ "package" "tests" ])
      (expect "devShells.${system}" (names outputs.devShells.${system}) [ "default" ])
      (expect "default package builder" pkg.standinBuilder "buildPythonApplication")
      (expect "pname" pkg.pname "ablation")
      (expect "version from pyproject.toml" pkg.version pyprojectVersion)
      (expect "runtime dependencies" (map (p: p.pname) pkg.dependencies) [ "cryptography" "ujson" ])
      (expect "build-system" (map (p: p.pname) pkg.build-system) [ "setuptools" "wheel" ])
      (expect "the package seals itself" (hasInfix "tools/seal.py" pkg.postFixup) true)
      (expect "the seal uses the nixpkgs pins" (hasInfix "--lock /nix/store/" pkg.postFixup) true)
      (expect "pins name each runtime distribution" (builtins.match "([^\n]*\n)*cryptography==[^\n]+\n([^\n]*\n)*ujson==[^\n]+\n([^\n]*\n)*" pkg.passthru.pins.text != null) true)
      (expect "meta.mainProgram" pkg.meta.mainProgram "ablation")
      (expect "app type" app.type "app")
      (expect "app program" app.program "${pkg}/bin/ablation")
      (expect "image builder" image.standinBuilder "streamLayeredImage")
      (expect "image entrypoint" image.config.Entrypoint [ "${pkg}/bin/ablation" ])
      (expect "image contents" image.contents [ pkg ])
      (expect "image user is not root" image.config.User "10001:10001")
      (expect "image leaves the environment kind to /nix/store detection"
        (builtins.any (hasInfix "ABLATION_ENVIRONMENT") image.config.Env) false)
      (expect "tests run pytest" (hasInfix "python -m pytest" outputs.checks.${system}.tests.script) true)
      (expect "source keeps the package" (filter "${root}/ablation" "directory") true)
      (expect "source drops .venv" (filter "${root}/.venv" "directory") false)
      (expect "source drops out/" (filter "${root}/out" "directory") false)
    ];

  inputsOk = expect "nixpkgs input is a release branch"
    (builtins.match "github:NixOS/nixpkgs/nixos-[0-9]+\\.[0-9]+" flake.inputs.nixpkgs.url != null) true;
  topOk = expect "outputs" (names outputs) [ "apps" "checks" "devShells" "packages" ];
  systemsOk = expect "systems" (names outputs.packages) systems;
in
# deepSeq forces every string in every output (store paths are fakes, nothing is copied).
builtins.deepSeq outputs (
  assert inputsOk && topOk && systemsOk && builtins.all checkSystem systems;
  "flake eval check passed (nixpkgs STAND-IN): ${builtins.concatStringsSep ", " systems}; version ${pyprojectVersion}"
)
