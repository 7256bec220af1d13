#!/usr/bin/env bash
# bench-osworld.sh [--domain D] [--limit N] [--no-timing] [--keep DIR]: OSWorld's own tree
# (evaluation_examples/ at the mirror's HEAD, all 369 tasks of test_all.json)
# through `deskpilot eval` with a model that answers at once, offline (an empty
# inputs cache: a task that downloads is not_cached). Prints the tasks loaded,
# those that reach a verdict, the count of each status, then the wall time of
# the tasks that reached a verdict (the network-free ones) at --parallel 1, 2
# and 4 (BenchmarkEvalOSWorldTree in internal/cli). --domain keeps one domain
# of test_all.json, --limit the first N tasks (after --domain); --no-timing
# stops after the statuses (no runs at --parallel 1, 2, 4); --keep leaves
# the results folders in DIR. $OSWORLD_MIRROR is the bare git mirror of
# OSWorld (default /work/.mirror/pkueecszc+OSWorld/repo).
set -euo pipefail
mirror=${OSWORLD_MIRROR:-/work/.mirror/pkueecszc+OSWorld/repo}
domain= limit= keep= timing=1
while (($#)); do
	case $1 in
	--domain) domain=$2; shift 2 ;;
	--limit) limit=$2; shift 2 ;;
	--no-timing) timing=0; shift ;;
	--keep) keep=$(realpath -m "$2"); shift 2 ;;
	*) echo "usage: $0 [--domain D] [--limit N] [--no-timing] [--keep DIR]" >&2; exit 2 ;;
	esac
done
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "OSWorld $(git --git-dir "$mirror" rev-parse HEAD)"
# (git archive may warn of a large file outside evaluation_examples that the
# mirror lacks; the tree is checked below)
git --git-dir "$mirror" archive HEAD evaluation_examples | tar -x -C "$tmp"
[[ -f $tmp/evaluation_examples/test_all.json ]] || { echo "no evaluation_examples/test_all.json in $mirror" >&2; exit 1; }
tree=$tmp/evaluation_examples
suite=$tree
if [[ -n $domain || -n $limit ]]; then
	suite=$tree/deskpilot-bench.json
	python3 - "$tree/test_all.json" "$suite" "$domain" "${limit:-0}" <<'PY'
import json, sys
src, dst, domain, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out, n = {}, 0
for d, ids in json.load(open(src)).items():
    if domain and d != domain:
        continue
    if limit:
        ids = ids[:max(0, limit - n)]
    if ids:
        out[d] = ids
        n += len(ids)
if not out:
    sys.exit("no task selected")
json.dump(out, open(dst, "w"))
print(f"selected {n} tasks of {', '.join(out)}")
PY
fi
bin=$tmp/cli.test
go test -c -o "$bin" ./internal/cli/
[[ -n $keep ]] && mkdir -p "$keep"
start=$SECONDS
(cd internal/cli && DESKPILOT_OSWORLD_SUITE=$suite DESKPILOT_OSWORLD_OUT=$keep DESKPILOT_OSWORLD_TIMING=$timing \
	"$bin" -test.run '^$' -test.bench '^BenchmarkEvalOSWorldTree$' -test.benchtime 1x) | grep --line-buffered -E '^osworld: |^(FAIL|ok|PASS)|--- FAIL'
echo "total $((SECONDS - start)) s"
