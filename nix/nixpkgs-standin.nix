# NOT NIXPKGS. A minimal stand-in for nixpkgs, used ONLY by nix/eval-check.nix
# (run by .ci/run) to evaluate flake.nix offline, where the real nixpkgs cannot
# be fetched. It provides just the attributes flake.nix uses. Nothing here
# builds: each "derivation" is an attribute set that records its arguments and
# has a fake /nix/store outPath, so the check can look at what flake.nix asked
# for. Versions below are placeholders, not nixpkgs' versions.
let
  fakeStorePath = name: "/nix/store/00000000000000000000000000000000-standin-${name}";
  fakeDerivation = name: attrs: attrs // {
    type = "derivation";
    inherit name;
    outPath = fakeStorePath name;
  };
  pythonPackage = pname: fakeDerivation "python3.11-${pname}-0.0.0-standin" {
    inherit pname;
    version = "0.0.0-standin";
  };

  pkgsFor = system:
    let
      ps = {
        buildPythonApplication = args:
          fakeDerivation "${args.pname}-${args.version}" (args // { standinBuilder = "buildPythonApplication"; });
        buildPythonPackage = args:
          fakeDerivation "python3.11-${args.pname}-${args.version}" (args // { standinBuilder = "buildPythonPackage"; });
        fetchPypi = args:
          fakeDerivation "${args.pname}-${args.version}-${args.python}-${args.abi}-${args.platform}.whl"
            (args // { standinBuilder = "fetchPypi"; });
        setuptools = pythonPackage "setuptools";
        wheel = pythonPackage "wheel";
        cryptography = pythonPackage "cryptography";
        ujson = pythonPackage "ujson";
        cffi = pythonPackage "cffi";
        pycparser = pythonPackage "pycparser";
        pytest = pythonPackage "pytest";
        hypothesis = pythonPackage "hypothesis";
        packaging = pythonPackage "packaging";
      };
      python311 = fakeDerivation "python3-3.11.0-standin" {
        pkgs = ps;
        interpreter = "${fakeStorePath "python3-3.11.0-standin"}/bin/python3.11";
        sitePackages = "lib/python3.11/site-packages";
        withPackages = select: fakeDerivation "python3-3.11.0-env-standin" { packages = select ps; };
      };
    in
    {
      inherit system python311;
      gnumake = fakeDerivation "gnumake-standin" { };
      autoPatchelfHook = fakeDerivation "auto-patchelf-hook-standin" { };
      stdenv.cc.cc.lib = fakeDerivation "gcc-lib-standin" { };
      writeText = name: text: fakeDerivation name { inherit text; standinBuilder = "writeText"; };
      runCommand = name: env: script:
        fakeDerivation name (env // { inherit script; standinBuilder = "runCommand"; });
      mkShell = args: fakeDerivation "nix-shell" (args // { standinBuilder = "mkShell"; });
      dockerTools.streamLayeredImage = args:
        fakeDerivation "stream-${args.name}" (args // { standinBuilder = "streamLayeredImage"; });
    };

  genAttrs = names: f: builtins.listToAttrs (map (name: { inherit name; value = f name; }) names);
in
{
  standin = true;
  lib = {
    inherit genAttrs;
    version = "0.0-standin";
    platforms.linux = [ "x86_64-linux" "aarch64-linux" ];
    concatMapStrings = f: list: builtins.concatStringsSep "" (map f list);
    mapAttrs = builtins.mapAttrs;
    optionals = cond: list: if cond then list else [ ];
    # The real one filters a path into the store; this one records the filter so the
    # check can call it, and returns a fake store path (nothing is copied).
    cleanSourceWith = { src, filter }: {
      outPath = fakeStorePath "source";
      standinSrc = src;
      standinFilter = filter;
    };
  };
  legacyPackages = genAttrs [ "x86_64-linux" "aarch64-linux" ] pkgsFor;
}
