#!/usr/bin/env bash
# Measures the inspector and the browser on their corpora (figures in
# docs/benchmarks-documents.md):
#  1. per-format throughput and peak memory: each BenchmarkInspect case in a
#     process of its own, so its peak resident memory is its own;
#  2. PDFium's start: cold code cache, warm cache, first PDF after a warm start;
#  3. whole-process time and peak memory against poppler's pdftotext
#     (farm-bench, paired runs), for a short and a 90-page PDF;
#  4. PDF word and order recall against pdftotext, web article precision,
#     recall, exact titles and the share of link addresses (the corpus tests).
# Needs poppler-utils (pdftotext) for step 3; not a runtime dependency.
#
# usage: scripts/bench-documents.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}

echo "== 1. per-format throughput and peak memory (one process each)"
for c in $(go test -run '^$' -list 'BenchmarkInspect' ./actions/inspect >/dev/null; sed -n 's/^\t{"\([a-z0-9-]*\)", .*/\1/p' actions/inspect/bench_test.go); do
  go test -run '^$' -bench "BenchmarkInspect/^$c\$" -benchtime 20x ./actions/inspect | grep '^BenchmarkInspect' || true
done

echo "== 2. PDFium start"
go test -run '^$' -bench 'BenchmarkPDFEngineStart' -benchtime 3x -timeout 30m ./actions/inspect | grep '^Benchmark'

echo "== 3. whole process against pdftotext"
go build -o /tmp/inspectfile ./scripts/inspectfile
/tmp/inspectfile actions/inspect/testdata/paper.pdf >/dev/null # warm the code cache
for f in actions/inspect/testdata/paper.pdf actions/inspect/testdata/pdf/long.pdf; do
  echo "-- $f"
  farm-bench -n "$runs" --timeout 600 --vs "pdftotext $f /dev/null" -- /tmp/inspectfile "$f"
done

echo "== 4. quality on the corpora"
go test -count=1 -run 'TestPDFCorpus' -v ./actions/inspect | grep -E 'recall'
go test -count=1 -run 'TestWebCorpus|TestLinkShare' -v ./actions/browser | grep -E 'precision|share'
