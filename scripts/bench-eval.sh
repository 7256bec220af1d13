#!/usr/bin/env bash
# bench-eval.sh [ROUNDS]: wall time of `deskpilot eval` on an 8-task suite with a
# model that takes 1 s per reply, at --parallel 1, 2 and 4 (BenchmarkEvalParallel
# in internal/cli), alternating the three ROUNDS times (default 3) so that load
# from other jobs on a shared machine spreads over all of them; prints each run,
# then the medians and the speed-ups against --parallel 1.
set -euo pipefail
rounds=${1:-3}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/cli.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./internal/cli/
declare -A runs
for ((r = 1; r <= rounds; r++)); do
	for p in 1 2 4; do
		line=$(cd internal/cli && "$bin" -test.run '^$' -test.bench "EvalParallel/parallel-$p\$" -test.benchtime 1x | grep '^BenchmarkEvalParallel')
		echo "round $r: $line"
		runs[$p]+="$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "s/suite") print $i}' <<<"$line") "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
m1=$(median <<<"${runs[1]}")
for p in 1 2 4; do
	m=$(median <<<"${runs[$p]}")
	echo "parallel $p: median $m s/suite, speed-up $(awk -v a="$m1" -v b="$m" 'BEGIN {printf "%.2f", a / b}')x (floor $((16 / p)) s)"
done
