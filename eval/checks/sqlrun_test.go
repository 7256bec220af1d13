package checks

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRunSQLite3 runs the SQL of thunderbird/3d1682a7 and others on message
// indexes the sqlite3 program made (testdata/make.sh). Each want is what
// OSWorld's run_sqlite3 gave on the same file, "error" where it raised.
func TestRunSQLite3(t *testing.T) {
	const star = "select sum(1) > 0 from messageAttributes where attributeID = 58 and value = 1 and messageID in (select id from messages where folderID = 13);"
	tests := []struct{ file, sql, want string }{
		{"sql-star.sqlite", star, "1"},
		{"sql-wal.sqlite", star, "1"},
		{"sql-nostar.sqlite", star, "0"},
		{"sql-inbox.sqlite", star, "0"},
		{"sql-star.sqlite", "select sum(value) from messageAttributes", "50"},
		{"sql-star.sqlite", "select ' 2.5 '", "2.5"},
		{"sql-star.sqlite", "select x'31'", "1"},
		{"sql-star.sqlite", "select ''", "0"},
		{"sql-star.sqlite", "select 1; -- done", "1"},
		{"sql-star.sqlite", "select count(*) from messages; select 1", "error"},
		{"sql-star.sqlite", "select headerMessageID from messages", "error"},
		{"sql-star.sqlite", "select id from messages where id > 9", "error"},
		{"sql-star.sqlite", "select * from nope", "error"},
		{"sql-star.sqlite", "delete from messages", "error"},
		{"sql-missing.sqlite", star, "error"},
		{"ppt-gold.pptx", star, "error"},
	}
	m, _ := Lookup("run_sqlite3")
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.sql, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", tt.file), Expected: map[string]any{"sql": tt.sql}})
			if tt.want == "error" {
				if err == nil {
					t.Errorf("= %v (%s), want an error", s.Value, s.Note)
				}
				return
			}
			want, _ := strconv.ParseFloat(tt.want, 64)
			if err != nil || math.Abs(s.Value-want) > 0 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, want)
			}
		})
	}
}
