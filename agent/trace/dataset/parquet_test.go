package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"deskpilot/agent/trace"
)

// nodeDir is test/node, where `make node-deps` installs DuckDB's node
// client from the committed lock file. Without node the test skips,
// saying why; with node but without the package it fails.
func nodeDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the parquet test reads the dataset back with DuckDB's node client (apt-get install nodejs npm; make node-deps)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "test", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		t.Fatalf("DuckDB's node client is not installed in %s: run `make node-deps` (npm ci): %v", dir, err)
	}
	return dir
}

// duckRows reads a parquet file with DuckDB (test/node/read_parquet.mjs).
func duckRows(t *testing.T, file string) (schema []map[string]any, rows []map[string]any) {
	t.Helper()
	dir := nodeDir(t)
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(dir, "read_parquet.mjs"), file)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	var res struct {
		Schema []map[string]any `json:"schema"`
		Rows   []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("DuckDB's output: %v\n%.2000s", err, out)
	}
	return res.Schema, res.Rows
}

// DuckDB reads every column of the hf-parquet layout back as written: one
// row per trajectory, the per-step lists parallel, the images the
// recorded PNGs byte for byte.
func TestParquetReadByDuckDB(t *testing.T) {
	runs := fillRuns(t, t.TempDir())
	out := filepath.Join(t.TempDir(), "ds")
	score := 0.5
	srcs := sources(runs)
	srcs[2].TaskID, srcs[2].Domain, srcs[2].Score, srcs[2].Licence = "t9", "forms", &score, "mit"
	rep, err := Build(t.Context(), out, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trajectories != 2 {
		t.Fatalf("%d trajectories", rep.Trajectories)
	}
	_, rows := duckRows(t, filepath.Join(out, ParquetFile))
	if len(rows) != 2 {
		t.Fatalf("DuckDB read %d rows, want 2", len(rows))
	}
	for i, dir := range []string{runs[0], runs[2]} {
		tr, err := trace.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		row := rows[i]
		name := filepath.Base(dir)
		str := func(k string) string { s, _ := row[k].(string); return s }
		if str("id") != name || str("task") != "Fill in the form" || str("model") != "fake-model" || str("dialect") != "code" ||
			str("coord_mode") != "pixels" || str("outcome") != "answered" || intOf(row["steps"]) != 4 || intOf(row["screen_width"]) != 320 {
			t.Errorf("row %d: %v", i, brief(row))
		}
		if i == 0 && (row["score"] != nil || str("task_id") != "" || row["task_completed"] != true) {
			t.Errorf("a run outside an evaluation: score %v, task_id %q, completed %v", row["score"], str("task_id"), row["task_completed"])
		}
		if i == 1 && (row["score"] != 0.5 || str("task_id") != "t9" || str("domain") != "forms" || str("license") != "mit" || row["task_completed"] != false) {
			t.Errorf("the eval run: %v", brief(row))
		}
		list := func(k string) []any { l, _ := row[k].([]any); return l }
		for _, k := range []string{"step_numbers", "images", "thoughts", "code", "pyautogui", "actions", "observations", "effects", "errors", "labels"} {
			if len(list(k)) != 4 {
				t.Fatalf("row %d: %s has %d elements, want 4", i, k, len(list(k)))
			}
		}
		for j, s := range tr.Steps[1:] {
			img := list("images")[j].(map[string]any)
			data, err := base64.StdEncoding.DecodeString(img["bytes"].(string))
			if err != nil {
				t.Fatal(err)
			}
			want, err := trace.ReadFrame(dir, s.Frame)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("row %d step %d: the image is not the recorded PNG (%d bytes, want %d)", i, j+1, len(data), len(want))
			}
			if intOf(list("step_numbers")[j]) != s.Number || list("thoughts")[j] != s.Thought || list("code")[j] != s.Code ||
				list("observations")[j] != s.Observation.Text || list("errors")[j] != s.Observation.Error {
				t.Errorf("row %d step %d: %v %q %q %q", i, j+1, list("step_numbers")[j], list("thoughts")[j], list("code")[j], list("observations")[j])
			}
			effect := "no_change"
			if s.Observation.Changed {
				effect = "changed"
			}
			if list("effects")[j] != effect {
				t.Errorf("row %d step %d: effect %v, want %s", i, j+1, list("effects")[j], effect)
			}
			var acts []Action
			if err := json.Unmarshal([]byte(list("actions")[j].(string)), &acts); err != nil || len(acts) != len(s.Actions) {
				t.Fatalf("row %d step %d: actions %v (%v)", i, j+1, list("actions")[j], err)
			}
			for k, a := range acts {
				if a.Name != s.Actions[k].Name || a.Args != s.Actions[k].Args {
					t.Errorf("row %d step %d action %d: %+v", i, j+1, k, a)
				}
			}
		}
		if got := list("pyautogui")[0]; got != "pyautogui.click(x=0.125, y=0.25)" {
			t.Errorf("row %d: pyautogui %q", i, got)
		}
		var labels []string
		for _, l := range list("labels")[1].([]any) {
			labels = append(labels, l.(string))
		}
		want := []string{"no_change", "repeated"}
		if i == 1 {
			want = []string{"changed"}
		}
		if !slices.Equal(labels, want) {
			t.Errorf("row %d step 2: labels %v, want %v", i, labels, want)
		}
	}
}

func intOf(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case string: // DuckDB's JSON writes BIGINT as a string
		n := 0
		for _, c := range x {
			n = n*10 + int(c-'0')
		}
		return n
	}
	return -1
}

// brief is a row without its images, for an error message.
func brief(row map[string]any) string {
	r := map[string]any{}
	for k, v := range row {
		if k != "images" {
			r[k] = v
		}
	}
	b, _ := json.Marshal(r)
	return strings.TrimSpace(string(b))
}
