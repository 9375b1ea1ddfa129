#!/usr/bin/env bash
# Checks the path docs/plugins.md promises a student: `cmake --install` of the build tree into a
# temporary prefix gives a package of the public headers only, each compiling on its own, that the
# out-of-tree plugins of docs/examples/plugin (two search strategies and a cost model) build
# against with find_package(Tessel), also with hidden symbol visibility; the installed
# `tessel --plugin` loads them, lists them with their parameters (the registry's seed included),
# tunes and runs a replay experiment with them, whose results docs/plugins.md shows; a rebuilt
# plugin's runs are new runs; bad --plugin arguments fail with one line and status 2; the code
# docs/plugins.md quotes is the example's.
# Takes about 15 s (a few minutes when ccache has not seen the plugin and the headers yet).
# Usage: plugin_install.sh <tessel build dir> <plugin example dir>
set -uo pipefail
build=$1
example=$2
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
tessel=$prefix/bin/tessel
plugin=$work/plugin/libbest_neighbour.so
cost_model=$work/plugin/libknn_cost_model.so
minimal=$work/plugin/libin_order.so
# Paths under the temporary directory count as relative for ccache, so reruns hit its cache.
export CCACHE_BASEDIR=$work
start=$SECONDS
source "$(dirname "$0")/script_checks.sh"
step() { echo "[$((SECONDS - start)) s] $*"; }

# The code docs/plugins.md quotes (blocks after "<!-- from FILE -->") is the example's, verbatim;
# the minimal plugin is quoted whole, from its first #include to its last line.
check_docs() {
  step "docs/plugins.md quotes the example verbatim"
  if $py - "$example/../../plugins.md" "$example/../../.." <<'PY'
import pathlib, re, sys
doc, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
quotes = re.findall(r"<!-- from (\S+) -->\n```cpp\n(.*?)```", doc.read_text(), re.S)
assert len(quotes) >= 5, f"only {len(quotes)} quoted blocks"
for path, code in quotes:
    assert code in (root / path).read_text(), f"{doc} quotes {path} but the file differs:\n{code}"
minimal = (root / "docs/examples/plugin/in_order.cpp").read_text()
whole = minimal[minimal.index("#include"):]
assert ("docs/examples/plugin/in_order.cpp", whole) in quotes, "docs/plugins.md does not quote in_order.cpp whole"
PY
  then pass; else fail "docs/plugins.md is out of date with the example"; fi
}

check_install() {
  step "cmake --install $build --prefix $prefix"
  if ! cmake --install "$build" --prefix "$prefix" > "$work/install.log"; then
    cat "$work/install.log"; fail "cmake --install"; return 1
  fi
  local f
  for f in bin/tessel lib/libtessel.so lib/cmake/Tessel/TesselConfig.cmake lib/cmake/Tessel/TesselConfigVersion.cmake \
           include/tessel/support/registry.h include/tessel/search/strategies/search_strategy.h \
           share/tessel/plot_curves.py share/tessel/recorded/small_cpu.json; do
    [ -e "$prefix/$f" ] && pass || fail "not installed: $f"
  done
  ls "$prefix"/lib/libtessel_torch*.so > /dev/null 2>&1 && pass || fail "the libtorch library is not installed"
  [ -e "$prefix/include/tessel/tests" ] || [ -e "$prefix/include/tessel/benchmarks" ] && fail "tests or benchmarks installed" || pass
  # The installed program must use the installed library, not the build tree's.
  local found
  found=$(ldd "$tessel" | sed -n 's/.*libtessel.so => \(.*\) (.*/\1/p')
  [ -n "$found" ] && [ "$(realpath "$found")" = "$(realpath "$prefix/lib/libtessel.so")" ] && pass ||
    fail "installed tessel does not use the installed library: ${found:-not found}"
}

# The installed headers are the public API (CMakeLists.txt, TESSEL_API_HEADERS) and what it includes:
# each compiles on its own with nothing but the installed include directory (and the system's
# nlohmann_json and DLPack), none includes a header that was left out, and the layers' internals
# are not installed.
check_headers() {
  local include=$prefix/include/tessel
  step "compile every installed header on its own"
  local missing
  missing=$(cd "$include" && find . -name '*.h' | sort | while read -r h; do
    grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$h" | sed 's/.*"\(.*\)"/\1/' |
      while read -r inc; do
        [ -e "$inc" ] || [ -e "$(dirname "$h")/$inc" ] || echo "${h#./} includes \"$inc\", which is not installed"
      done
  done)
  [ -z "$missing" ] && pass || fail "$missing"
  # One translation unit per header, compiled two at a time (the machine is shared) and through
  # ccache when there is one, so that a re-run of the suite takes seconds.
  local count=0 h
  mkdir -p "$work/headers"
  while read -r h; do
    count=$((count + 1))
    printf '#include "%s"\n' "$h" > "$work/headers/$count.cpp"
  done < <(cd "$include" && find . -name '*.h' | sed 's|^\./||' | sort)
  local compiler=(c++)
  command -v ccache > /dev/null && compiler=(ccache c++)
  if (cd "$work/headers" && ls *.cpp | xargs -P 2 -I{} sh -c '"$@" -std=c++20 -I"$0" -c {} -o {}.o 2>&1 |
        sed "s|^|$(cat {}): |"' "$include" "${compiler[@]}") > "$work/headers.log" &&
     [ ! -s "$work/headers.log" ]; then
    pass
  else
    head -20 "$work/headers.log"; fail "installed headers do not compile on their own"
  fi
  step "$count headers installed"
  local internal
  for internal in passes/lower/vectorize.h search/tuner.h experiments/runner.h search/records/records_db.h \
                  costmodels/xgboost_model.h; do
    [ -e "$example/../../../$internal" ] || { fail "the check names a header the tree lacks: $internal"; continue; }
    [ -e "$include/$internal" ] && fail "an internal header is installed: $internal" || pass
  done
}

# build_plugin DIR [cmake args...]: configures and builds the example into DIR against the prefix.
build_plugin() {
  local dir=$1; shift
  step "configure and build $example against the installed package $*"
  local launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  if ! cmake -S "$example" -B "$dir" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" "$@" > "$dir.log" 2>&1 ||
     ! cmake --build "$dir" >> "$dir.log" 2>&1; then
    cat "$dir.log"; fail "building the plugin example $*"; return 1
  fi
  pass
}

# A plugin compiled with hidden symbols must still register into libtessel's registry (not into a
# private copy of it), or `tune --strategy` would not find it.
check_hidden_visibility() {
  build_plugin "$work/plugin-hidden" -DCMAKE_CXX_VISIBILITY_PRESET=hidden -DCMAKE_VISIBILITY_INLINES_HIDDEN=ON || return
  step "tune with the plugin built with hidden visibility"
  local out
  out=$("$tessel" --plugin "$work/plugin-hidden/libbest_neighbour.so" tune --workload gemm:64 \
            --strategy best_neighbour --trials 2 --repeats 3 --json 2>&1)
  grep -q '"strategy":"best_neighbour","cost_model":"none","trials":2' <<< "$out" && pass ||
    fail "plugin built with hidden visibility: $out"
}

check_listing() {
  step "tessel --plugin ... --plugin ... plugins --json"
  if "$tessel" --plugin "$plugin" --plugin "$cost_model" plugins --json | $py -c '
import json, sys
plugins = {(p["kind"], p["name"]): p for p in json.load(sys.stdin)}
mine = plugins[("strategy", "best_neighbour")]
assert mine["library"].endswith("/libbest_neighbour.so"), mine
assert "library" not in plugins[("strategy", "random")], "built-ins come from no library"
params = {p["name"]: p for p in mine["params"]}
assert params["radius"]["type"] == "int" and params["radius"]["default"] == 1, params
assert params["patience"]["default"] == 2 and "seed" in params, params
knn = plugins[("cost_model", "knn")]
assert [(p["name"], p["default"]) for p in knn["params"]] == [("k", 5)], knn
assert ("strategy", "random") in plugins, "the built-in plugins are still listed"
'; then pass; else fail "plugins --json does not list the example plugins with their parameters"; fi
  local table  # (captured first: grep -q closing the pipe early would fail the pipeline)
  table=$("$tessel" "--plugin=$plugin" plugins)
  grep -q "best_neighbour — hill climbing" <<< "$table" && pass || fail "--plugin=FILE form: $table"
}

check_tune() {
  step "tessel --plugin ... tune --workload gemm:64 --strategy best_neighbour --trials 8"
  local out
  if ! out=$("$tessel" --plugin "$plugin" tune --workload gemm:64 --strategy best_neighbour --param radius=2 \
                 --trials 8 --batch 4 --repeats 3 --json); then
    fail "tune with the plugin: non-zero exit: $out"; return
  fi
  if tail -n 1 <<< "$out" | $py -c '
import json, sys
run = json.loads(sys.stdin.read())
assert run["strategy"] == "best_neighbour" and run["trials"] == 8, run
assert run["best_gflops"] > 0 and run["best_us"] > 0, run
'; then pass; else fail "tune with the plugin: bad JSON line: $out"; fi
  expect_message "bad plugin parameter" "parameter 'radius' of strategy 'best_neighbour' is 0; valid range: >= 1" \
    --plugin "$plugin" tune --workload gemm:64 --strategy best_neighbour --param radius=0 --trials 1
  expect_message "unknown strategy lists the plugin" "best_neighbour" \
    --plugin "$plugin" tune --workload gemm:64 --strategy best_neighbor --trials 1
  expect_message "an unknown name hints at --plugin" "tessel --plugin libmine.so <command>" \
    tune --workload gemm:64 --strategy best_neighbour --trials 1
  # A cost model the strategy does not use: the run goes on, with a warning.
  out=$("$tessel" --plugin "$plugin" --plugin "$cost_model" tune --workload gemm:64 --strategy best_neighbour \
            --cost-model knn --trials 2 --repeats 3 --select 0 2>&1 > /dev/null)
  [ "$(grep -c "warning: strategy 'best_neighbour' ranks no candidates with a cost model, so cost model 'knn' is ignored" \
        <<< "$out")" = 1 ] && pass || fail "no (or a repeated) warning for an ignored cost model: $out"
}

# The minimal plugin of docs/plugins.md declares no parameter: the registry gives it `seed`, and
# --seed reaches it.
check_minimal() {
  step "tessel --plugin libin_order.so tune --strategy in_order --seed 3"
  local out
  out=$("$tessel" --plugin "$minimal" tune --workload gemm:64 --strategy in_order --seed 3 --trials 4 --batch 4 \
            --repeats 3 --json 2>&1)
  grep -q '"strategy":"in_order","cost_model":"none","trials":4' <<< "$out" && pass || fail "tune with in_order: $out"
  "$tessel" --plugin "$minimal" plugins --json | $py -c '
import json, sys
mine = [p for p in json.load(sys.stdin) if p["name"] == "in_order"]
assert [(p["name"], p["type"]) for p in mine[0]["params"]] == [("seed", "int")], mine
' && pass || fail "in_order is not listed with the seed the registry adds"
}

check_cost_model() {
  step "tessel --plugin ... tune --workload gemm:64 --strategy model_based --cost-model knn --trials 8"
  local out
  out=$("$tessel" --plugin "$cost_model" tune --workload gemm:64 --strategy model_based --cost-model knn \
            --cost-model-param k=3 --trials 8 --batch 4 --repeats 3 --json 2>&1)
  grep -q '"strategy":"model_based","cost_model":"knn","trials":8' <<< "$out" && pass ||
    fail "tune with the cost model plugin: $out"
}

check_experiment() {
  step "tessel --plugin ... experiment run $example/compare.yaml (replay)"
  local out
  out=$("$tessel" --plugin "$plugin" experiment run "$example/compare.yaml" --out "$work/compare" --no-plots 2>&1)
  if $py - "$work/compare/summary.json" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
mine = [e for e in entries if e["configuration"]["strategy"]["name"] == "best_neighbour"]
assert len(mine) == 2 and all(e["seeds"] == 5 and e["mean_best_gflops"] > 0 for e in mine), mine
PY
  then pass; else fail "experiment with the plugin: $out"; fi
  check_results_in_docs "$work/compare"
  # The installed tessel looks for recorded sets in its own share/tessel/recorded (not only the source tree).
  printf 'name: missing\nworkloads: D7\nmeasure: replay:no_such_set\n' > "$work/missing.yaml"
  expect_message "installed recorded sets are searched" "$(realpath "$prefix")/share/tessel/recorded/no_such_set.json" \
    experiment run "$work/missing.yaml" --out "$work/missing" --no-plots
}

# The results table of docs/plugins.md is compare.yaml's summary.md table, verbatim, and its prose
# says what summary.json says.
check_results_in_docs() {
  step "docs/plugins.md shows what compare.yaml gives"
  if $py - "$example/../../plugins.md" "$1" <<'PY'
import json, pathlib, re, sys
doc, out = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2])
marker = "<!-- summary.md of docs/examples/plugin/compare.yaml -->\n"
quoted = []
for line in doc[doc.index(marker) + len(marker):].split("\n"):
    if not line.startswith("|"): break
    quoted.append(line)
made = [l for l in (out / "summary.md").read_text().split("\n") if l.startswith("|")]
assert quoted == made, \
    "the table differs from summary.md; paste this one into docs/plugins.md:\n" + "\n".join(made)
s = {(e["workload"], e["configuration"]["strategy"]["name"]): e for e in json.load(open(out / "summary.json"))}
# The prose: on C6 annealing and best_neighbour reach 95% in every run and sooner than random, which
# gets there in one run of five; on C9 every strategy reaches it in every run, random first.
local_searches = ("annealing", "best_neighbour")
assert all(s["C6", n]["reached_95pct"] == 5 for n in local_searches) and s["C6", "random"]["reached_95pct"] == 1, s
assert all(s["C6", n]["trials_to_95pct"] < s["C6", "random"]["trials_to_95pct"] for n in local_searches), s
assert all(s["C9", n]["reached_95pct"] == 5 for n in ("random",) + local_searches), s
assert all(s["C9", "random"]["trials_to_95pct"] < s["C9", n]["trials_to_95pct"] for n in local_searches), s
PY
  then pass; else fail "docs/plugins.md is out of date with compare.yaml's results"; fi
}

# A rebuilt plugin library gives new runs: the manifest records the hash of each library, and the
# run keys carry it, so re-running after a rebuild neither resumes nor returns the old build's runs.
check_rebuilt_plugin() {
  step "an experiment re-run after rebuilding the plugin measures again"
  mkdir -p "$work/rebuilt"
  local copy=$work/rebuilt/libbest_neighbour.so out=$work/rebuilt/out
  cp "$plugin" "$copy"
  "$tessel" --plugin "$copy" experiment run "$example/compare.yaml" --out "$out" --no-plots > /dev/null 2>&1 &&
    cp "$out/manifest.json" "$work/rebuilt/first.json"
  printf 'rebuilt' >> "$copy"  # bytes after the ELF contents: the library loads as before, with another hash
  "$tessel" --plugin "$copy" experiment run "$example/compare.yaml" --out "$out" --no-plots > /dev/null 2>&1
  "$tessel" records list --db "$out/records.db" --json > "$work/rebuilt/records.jsonl"
  if $py - "$copy" "$work/rebuilt" <<'PY'
import collections, json, pathlib, sys
copy, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def fnv(data):
    h = 0xcbf29ce484222325
    for b in data: h = ((h ^ b) * 0x100000001b3) % 2**64
    return f"{h:016x}"
first = json.load(open(work / "first.json"))["plugin_libraries"]
second = json.load(open(work / "out/manifest.json"))["plugin_libraries"]
assert [l["plugins"] for l in second] == [["strategy/best_neighbour"]], second
assert second[0]["fnv1a64"] == fnv(copy.read_bytes()) != first[0]["fnv1a64"], (first, second)
trials = collections.Counter()
for line in open(work / "records.jsonl"):
    text = json.dumps(json.loads(line))
    for l in first + second:
        trials[l["fnv1a64"]] += ("plugins=" + l["fnv1a64"]) in text
# Both builds' runs are in the database, each measured in full: 2 workloads x 5 seeds x 48 trials.
assert trials[first[0]["fnv1a64"]] == trials[second[0]["fnv1a64"]] == 480, trials
PY
  then pass; else fail "re-running after a rebuild of the plugin resumed the old build's runs"; fi
}

check_errors() {
  step "bad --plugin arguments"
  expect_message "missing file" "no such file" --plugin "$work/libmissing.so" plugins
  expect_message "a directory" "not a file" --plugin "$work" plugins
  expect_message "not a shared library" "cannot load plugin library" --plugin "$example/best_neighbour.cpp" plugins
  echo 'int tessel_test_nothing() { return 0; }' > "$work/empty.cpp"
  c++ -shared -fPIC -o "$work/libempty.so" "$work/empty.cpp"
  expect_message "no plugins registered" "registers no plugins" --plugin "$work/libempty.so" plugins
  cp "$plugin" "$work/libcopy.so"
  expect_message "a name already taken" "strategy 'best_neighbour', a name already taken" \
    --plugin "$plugin" --plugin "$work/libcopy.so" plugins
  "$tessel" --plugin "$plugin" --plugin "$plugin" plugins > /dev/null && pass || fail "loading one library twice"
  expect_message "--plugin after the subcommand" "must come before the subcommand" plugins --plugin "$plugin"
  expect_message "two files after one --plugin" "not expected" --plugin "$plugin" "$cost_model" plugins
}

check_docs
if check_install && check_headers && build_plugin "$work/plugin"; then
  check_listing
  check_tune
  check_cost_model
  check_minimal
  check_experiment
  check_rebuilt_plugin
  check_errors
  check_hidden_visibility
fi
step "done"
finish
