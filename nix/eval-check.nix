# Offline evaluation check of flake.nix, run by .ci/run:
#
#   nix-instantiate --eval --strict nix/eval-check.nix
#
# It imports flake.nix and calls its `outputs` with nix/nixpkgs-standin.nix,
# a minimal STAND-IN for nixpkgs (the real one cannot be fetched here). It
# proves that the flake evaluates, that every string in its outputs can be
# built, and that the outputs have the expected names and settings. It does
# NOT prove that the real nixpkgs builds the package: see docs/explanation/nix.md.
let
  flake = import ../flake.nix;
  nixpkgs = import ./nixpkgs-standin.nix;
  self = { outPath = toString ../.; };
  outputs = flake.outputs { inherit self nixpkgs; };

  pythonLock = import ./requirements-lock.nix;
  systems = pythonLock.systems;

  # requirements.lock's pins read here from the lock itself, not from the generated
  # file: [ { name; version; hashes = [ sha256 hex ]; } ] in the lock's order.
  lockLines = builtins.filter builtins.isString (builtins.split "\n" (builtins.readFile ../requirements.lock));
  lockPins = builtins.foldl' (pins: line:
    let
      pin = builtins.match "([a-z0-9][a-z0-9._-]*)==([^ ]+) \\\\" line;
      hash = builtins.match " +--hash=sha256:([0-9a-f]{64})( \\\\)?" line;
      last = builtins.elemAt pins (builtins.length pins - 1);
      init = builtins.genList (builtins.elemAt pins) (builtins.length pins - 1);
    in
    if pin != null then pins ++ [ { name = builtins.elemAt pin 0; version = builtins.elemAt pin 1; hashes = [ ]; } ]
    else if hash != null && pins != [ ] then init ++ [ (last // { hashes = last.hashes ++ [ (builtins.head hash) ]; }) ]
    else pins) [ ] lockLines;

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
      deps = pkg.dependencies;
      # Every pin of the lock is a dependency built from a wheel whose hash is one of the pin's.
      pinUsed = pin: builtins.any (d:
        d.pname == pin.name && d.version == pin.version && d.standinBuilder == "buildPythonPackage"
        && d.format == "wheel" && d.src.standinBuilder == "fetchPypi" && d.src.format == "wheel"
        && builtins.elem d.src.sha256 pin.hashes) deps;
      binaryPatched = builtins.all (d:
        d.src.platform == "any" || builtins.elem "auto-patchelf-hook-standin" (map (x: x.name) d.nativeBuildInputs)) deps;
    in
    builtins.all (x: x) [
      (expect "packages.${system}" (names packages) [ "ablation" "default" "image" ])
      (expect "apps.${system}" (names outputs.apps.${system}) [ "default" ])
      (expect "checks.${system}" (names outputs.checks.${system}) [ "package" "tests" ])
      (expect "devShells.${system}" (names outputs.devShells.${system}) [ "default" ])
      (expect "default package builder" pkg.standinBuilder "buildPythonApplication")
      (expect "pname" pkg.pname "ablation")
      (expect "version from pyproject.toml" pkg.version pyprojectVersion)
      (expect "lock pins read" (builtins.length lockPins > 0) true)
      (expect "every pin of requirements.lock is a dependency with its lock hash"
        (map (pin: "${pin.name}==${pin.version}") (builtins.filter (pin: !(pinUsed pin)) lockPins)) [ ])
      (expect "dependencies are exactly the lock's pins"
        (map (d: d.pname) deps) (builtins.sort builtins.lessThan (map (p: p.name) lockPins)))
      (expect "binary wheels are patched (autoPatchelfHook)" binaryPatched true)
      (expect "build-system" (map (p: p.pname) pkg.build-system) [ "setuptools" "wheel" ])
      (expect "the package seals itself" (hasInfix "tools/seal.py" pkg.postFixup) true)
      (expect "the seal uses requirements.lock" (hasInfix "--lock /nix/store/[^ ]*-source/requirements.lock" pkg.postFixup) true)
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
  systemsOk = expect "systems (those of nix/requirements-lock.nix)" (names outputs.packages) systems
    && expect "at least one system" (systems != [ ]) true;
in
# deepSeq forces every string in every output (store paths are fakes, nothing is copied).
builtins.deepSeq outputs (
  assert inputsOk && topOk && systemsOk && builtins.all checkSystem systems;
  "flake eval check passed (nixpkgs STAND-IN): ${builtins.concatStringsSep ", " systems}; version ${pyprojectVersion}; ${toString (builtins.length lockPins)} pins of requirements.lock, each with its lock hash"
)
