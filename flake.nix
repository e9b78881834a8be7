{
  # The Nix form of ablation's sealed environment (PRODUCT.md "Sealed environment").
  #
  # nixpkgs is taken from a release branch; `flake.lock` pins its exact commit and
  # is made with `nix flake lock` on a machine that can reach GitHub (this
  # repository was written where none could, see README.md "Nix").
  #
  #   nix build                 # packages.default: the ablation command, sealed
  #   nix run . -- identity     # apps.default
  #   nix flake check           # checks: the package builds; the test suite passes
  #   nix build .#image && ./result | docker load    # OCI image (streamLayeredImage)
  #   nix develop               # devShells.default: Python 3.11 with the dependencies
  description = "ablation: sealed evaluator for preregistered source-selection ablation experiments";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      lib = nixpkgs.lib;
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAllSystems = f: lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});

      # One source of truth for the version: the `version = "..."` line of pyproject.toml.
      pyprojectLines = builtins.filter builtins.isString (builtins.split "\n" (builtins.readFile ./pyproject.toml));
      versionMatches = builtins.filter (m: m != null) (map (builtins.match "version = \"([^\"]+)\"") pyprojectLines);
      version = builtins.head (builtins.head versionMatches);

      # What the package and its tests are built from (no .venv, out/, build/, .git).
      src = lib.cleanSourceWith {
        src = ./.;
        filter = path: type:
          let name = baseNameOf path; in
          !(builtins.elem name [ ".venv" "out" "build" "result" ".git" "__pycache__" ".pytest_cache" ".hypothesis" ]);
      };

      perSystem = pkgs:
        let
          python = pkgs.python311;
          ps = python.pkgs;
          # The runtime distributions: nixpkgs' versions, not the lock's (README.md "Nix").
          runtime = [ ps.cryptography ps.ujson ps.cffi ps.pycparser ];
          # The pins this environment is really built from, in the lock's `name==version` form.
          # Sealing copies it into the package as its lock, so the closure check at start-up
          # compares these pins with what is installed.
          nixpkgsPins = pkgs.writeText "ablation-nixpkgs-pins.txt"
            ("# Pins of the Nix build of ablation: nixpkgs ${lib.version}, not requirements.lock.\n"
              + lib.concatMapStrings (p: "${p.pname}==${p.version}\n") runtime);

          ablation = ps.buildPythonApplication {
            pname = "ablation";
            inherit version src;
            pyproject = true;
            build-system = [ ps.setuptools ps.wheel ];
            dependencies = [ ps.cryptography ps.ujson ];
            # The tests run in checks.tests, against the same source.
            doCheck = false;
            pythonImportsCheck = [ "ablation" "ablation.cli" ];
            # Seal at build time, after every fixup hook has run: lock (the nixpkgs pins)
            # copied in, bytecode, closure manifest.
            postFixup = ''
              ${python.interpreter} -I -B ${src}/tools/seal.py \
                --site "$out/${python.sitePackages}" --lock ${nixpkgsPins}
            '';
            passthru.pins = nixpkgsPins;
            meta = {
              description = "Sealed, reproducible evaluator for preregistered source-selection ablation experiments";
              mainProgram = "ablation";
              platforms = lib.platforms.linux;
            };
          };

          testPython = python.withPackages (p: [ p.cryptography p.ujson p.pytest p.hypothesis p.packaging ]);
        in
        {
          packages = {
            default = ablation;
            ablation = ablation;
            # An OCI image without a registry: `./result | docker load`.
            # environment.kind is `nix` (sys.prefix is in /nix/store), so no ABLATION_ENVIRONMENT.
            image = pkgs.dockerTools.streamLayeredImage {
              name = "ablation-nix";
              tag = version;
              contents = [ ablation ];
              config = {
                Entrypoint = [ "${ablation}/bin/ablation" ];
                Env = [ "PYTHONDONTWRITEBYTECODE=1" "LANG=C.UTF-8" ];
                User = "10001:10001";
              };
            };
          };

          apps.default = {
            type = "app";
            program = "${ablation}/bin/ablation";
          };

          checks = {
            package = ablation;
            # The README's test suite, on the checkout's sources, with nixpkgs' Python.
            tests = pkgs.runCommand "ablation-tests-${version}" { nativeBuildInputs = [ testPython ]; } ''
              cp -r ${src} source
              chmod -R u+w source
              cd source
              export HOME=$TMPDIR PYTHONDONTWRITEBYTECODE=1
              python -m pytest -p no:cacheprovider
              touch $out
            '';
          };

          devShells.default = pkgs.mkShell {
            packages = [ testPython pkgs.gnumake ];
            shellHook = ''
              echo "ablation dev shell: python -m pytest runs the tests on nixpkgs' versions;"
              echo "'make test' builds .venv from requirements.lock instead (needs PyPI)."
            '';
          };
        };

      bySystem = forAllSystems perSystem;
      pick = attr: lib.mapAttrs (_: outputs: outputs.${attr}) bySystem;
    in
    {
      packages = pick "packages";
      apps = pick "apps";
      checks = pick "checks";
      devShells = pick "devShells";
    };
}
