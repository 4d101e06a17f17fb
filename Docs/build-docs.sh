#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain's own docc: no plugin package.
# Symbol graphs come from a build in its own scratch folder, so the flags do not invalidate the
# ordinary debug build. Warnings are errors: every public symbol must be documented and every link
# must resolve. Output: .build-docs/TypedDefaults.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbol-graphs"
# The graphs stay between runs: a build that has nothing to compile does not write them again.
rm -rf "$scratch/TypedDefaults.doccarchive"
mkdir -p "$graphs"

swift build --scratch-path "$scratch" --target TypedDefaults \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public

# docc does not warn about a public symbol without a doc comment; the symbol graphs tell.
python3 - "$graphs" <<'PY'
import json, pathlib, sys
missing = []
if not (pathlib.Path(sys.argv[1]) / "TypedDefaults.symbols.json").exists():
    sys.exit("docs: no symbol graph for TypedDefaults")
for path in pathlib.Path(sys.argv[1]).glob("TypedDefaults*.symbols.json"):
    for symbol in json.loads(path.read_text())["symbols"]:
        if symbol.get("accessLevel") in ("public", "open") and not symbol.get("docComment"):
            # Members inherited from a standard protocol keep that protocol's documentation.
            if "sourceOrigin" in symbol or symbol["kind"]["identifier"] == "swift.extension":
                continue
            # Extension graphs also list the extended types' own members; check only ours.
            if "/Sources/TypedDefaults/" not in symbol.get("location", {}).get("uri", ""):
                continue
            missing.append(".".join(symbol["pathComponents"]))
if missing:
    print("docs: public symbols without a doc comment:", *sorted(set(missing)), sep="\n  ")
    sys.exit(1)
PY

docc convert Docs/TypedDefaults.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name TypedDefaults \
    --fallback-bundle-identifier dev.typeddefaults.TypedDefaults \
    --output-path "$scratch/TypedDefaults.doccarchive" \
    --warnings-as-errors \
    --diagnostics-file "$scratch/docc-diagnostics.json"

echo "docs: built $scratch/TypedDefaults.doccarchive"
