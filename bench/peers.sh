#!/usr/bin/env bash
# Impact side by side with real peer codes on the same problems (issue 7; not part of the
# test suite: it takes minutes). Installs Debian's calculix-ccx and liggghts when missing,
# writes every input from one set of parameters (bench/peers/gen.py), runs both codes back
# to back and prints one table: wall and CPU seconds of each code and the ratio.
#
#   bench/peers.sh [WORK_DIR]        (inputs and outputs go to WORK_DIR, a new temporary
#                                     directory when absent)
#   PEERS_THREADS=2                  threads (rayon, OpenMP) or MPI ranks for every code
#   PEERS_ONLY="bars block spheres"  a subset of the problems
#
# Problems: (1) the colliding bars of tests/oracle/explicit-bars, with each code's accuracy
# against the bars' theory; (2) a 25 x 25 x 40 steel block striking a 50 x 50 x 10 plate
# (50 000 hex8); (3) 10 000 Hertz spheres settling in a box under gravity.
# docs/performance.md says what differs between the codes and why the comparison is fair.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
threads=${PEERS_THREADS:-2}
only=${PEERS_ONLY:-"bars block spheres"}
mkdir -p "$work"
work=$(cd "$work" && pwd)

need=()
command -v ccx >/dev/null 2>&1 || need+=(calculix-ccx)
command -v liggghts >/dev/null 2>&1 || need+=(liggghts)
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
[ -x /usr/bin/time ] || need+=(time)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi

impact=$repo/target/release/impact
if [ ! -x "$impact" ]; then
  (cd "$repo" && cargo build --release -p impact-client)
fi

python3 "$repo/bench/peers/gen.py" "$work" "$repo"
cd "$work"

# timed NAME CMD...: run CMD, keep its output in NAME.out, and its wall seconds, CPU
# seconds (user + system, children included) and peak RSS in NAME.time.
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$name.time" "$@" >"$name.out" 2>&1 || {
    echo "peers: $name failed; the end of $work/$name.out:" >&2
    tail -20 "$name.out" >&2
    return 1
  }
}
wall() { awk '{print $1}' "$1.time"; }
cpu() { awk '{printf "%.2f", $2 + $3}' "$1.time"; }
rss() { awk '{printf "%.0f", $4 / 1024}' "$1.time"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$@"; }

# CalculiX picks its own stable increment: read it from a one-increment run, and write the
# timed deck's frames every `every` increments, so it writes as many frames as Impact.
ccx_every() {
  local name=$1 interval=$2 dt
  OMP_NUM_THREADS=$threads ccx -i "$name.probe" >"$name.probe.out" 2>&1
  dt=$(sed -n 's/.*SELECTED time increment: *//p' "$name.probe.out" | head -1)
  [ -n "$dt" ] || { echo "peers: no increment in $name.probe.out" >&2; exit 1; }
  python3 -c "import sys; print(max(1, round(float(sys.argv[1]) / float(sys.argv[2]))))" "$interval" "$dt"
}

rows=()
row() { rows+=("$(printf '| %s | %s | %s | %s | %s | %s |' "$@")"); }

for problem in $only; do
  case $problem in
  bars)
    every=$(ccx_every bars 0.005)
    sed -i "s/@EVERY@/$every/" bars.inp
    RAYON_NUM_THREADS=$threads timed impact_bars "$impact" solve --local --no-progress bars.json
    OMP_NUM_THREADS=$threads timed ccx_bars ccx -i bars
    # Accuracy: Impact's through its oracle command (the same model, the same bits);
    # CalculiX's from its every-increment history (an untimed second run).
    RAYON_NUM_THREADS=$threads "$impact" oracle --local "$repo/tests/oracle/explicit-bars" >impact_bars.oracle || true
    OMP_NUM_THREADS=$threads ccx -i bars.history >bars.history.out 2>&1
    python3 "$repo/bench/peers/ccx_bars.py" bars.history.dat >ccx_bars.accuracy
    ours_inc=$(json impact_bars.out "['steps'][0]['increments']")
    ccx_inc=$(awk '$1=="increments"{print $2}' ccx_bars.accuracy)
    row "bars, 400 hex8 (Impact $ours_inc increments, CalculiX $ccx_inc)" \
      "$(wall impact_bars) ($(cpu impact_bars))" "$(wall ccx_bars) ($(cpu ccx_bars))" \
      "$(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.1f}')" "$(wall impact_bars)" "$(wall ccx_bars)")" \
      "$(rss impact_bars) / $(rss ccx_bars)" "frames every $every CalculiX increments"
    python3 "$repo/bench/peers/bars_table.py" impact_bars.oracle ccx_bars.accuracy >bars_accuracy.md
    ;;
  block)
    every=$(ccx_every block 1e-5)
    sed -i "s/@EVERY@/$every/" block.inp
    RAYON_NUM_THREADS=$threads timed impact_block "$impact" solve --local --no-progress block.json
    OMP_NUM_THREADS=$threads timed ccx_block ccx -i block
    ccx_dt=$(sed -n 's/.*SELECTED time increment: *//p' block.probe.out | head -1)
    ours_inc=$(json impact_block.out "['steps'][0]['increments']")
    ccx_inc=$(python3 -c "import sys, math; print(math.ceil(4e-5 / float(sys.argv[1]) - 1e-9))" "$ccx_dt")
    row "block on plate, 50 000 hex8 (Impact $ours_inc increments, CalculiX $ccx_inc)" \
      "$(wall impact_block) ($(cpu impact_block))" "$(wall ccx_block) ($(cpu ccx_block))" \
      "$(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.1f}')" "$(wall impact_block)" "$(wall ccx_block)")" \
      "$(rss impact_block) / $(rss ccx_block)" "frames every $every CalculiX increments"
    ;;
  spheres)
    RAYON_NUM_THREADS=$threads timed impact_spheres "$impact" solve --local --no-progress spheres.json
    timed liggghts_spheres mpirun --allow-run-as-root --oversubscribe -np "$threads" liggghts -in spheres.in
    ours_inc=$(json impact_spheres.out "['steps'][0]['increments']")
    row "10 000 Hertz spheres (both $ours_inc increments)" \
      "$(wall impact_spheres) ($(cpu impact_spheres))" "$(wall liggghts_spheres) ($(cpu liggghts_spheres))" \
      "$(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.2f}')" "$(wall impact_spheres)" "$(wall liggghts_spheres)")" \
      "$(rss impact_spheres) / $(rss liggghts_spheres)" "LIGGGHTS on $threads MPI ranks"
    ;;
  *)
    echo "peers: no problem '$problem' (bars, block, spheres)" >&2
    exit 2
    ;;
  esac
done

echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $threads threads each; work in $work"
echo
echo "| problem | Impact wall s (CPU s) | peer wall s (CPU s) | peer / Impact (wall) | peak RSS MiB Impact / peer | note |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
if [ -f bars_accuracy.md ]; then cat bars_accuracy.md; fi
