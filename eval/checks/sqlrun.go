package checks

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// This file runs a task's SQL on a database file, as OSWorld's run_sqlite3
// does, with SQLite itself (compiled to WebAssembly and run in-process by
// wazero): the reader in sqlite.go walks tables but runs no SQL, and the
// tasks' queries use subqueries and aggregates.

// sqlTimeout bounds one query.
const sqlTimeout = 30 * time.Second

// sqlMetrics are the metrics that run SQL.
func sqlMetrics() map[string]Metric {
	return map[string]Metric{
		"run_sqlite3": {Fn: runSQLite3, Check: both(fileResult, rulesWith("sql"))},
	}
}

// runSQLite3 is float(connect(result).execute(rules["sql"]).fetchone()[0] or
// 0): the first column of the first row, as a number. A statement giving no
// row, a value float() refuses and more than one statement are the errors
// Python raises. The score is that number, whatever it is.
func runSQLite3(ctx context.Context, c Call) (Score, error) {
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("run_sqlite3: want a database path, got %s", PyType(c.Result))
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	q, err := strKey(r, "sql")
	if err != nil {
		return Score{}, err
	}
	v, err := sqlFirstValue(ctx, p, q)
	if err != nil {
		return Score{}, err
	}
	f, err := sqlFloat(v)
	if err != nil {
		return Score{}, err
	}
	s := Score{Value: f}
	if f < 1 {
		s.Note = fmt.Sprintf("the query gave %s", pyRepr(v))
	}
	return s, nil
}

// sqlFirstValue runs the one statement q on the database file p, read only,
// and returns the first column of its first row: nil, int64, float64, string
// or []byte.
func sqlFirstValue(ctx context.Context, p, q string) (any, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if fi.Size() > maxDocFile {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d allowed", p, fi.Size(), maxDocFile)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	// immutable: the file is a copy nothing else writes, so SQLite neither
	// locks it nor looks for a journal or write-ahead log beside it.
	u := (&url.URL{Scheme: "file", Path: abs}).String() + "?mode=ro&immutable=1"
	conn, err := sqlite3.OpenFlags(u, sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer conn.Close()
	qctx, cancel := context.WithTimeout(ctx, sqlTimeout)
	defer cancel()
	conn.SetInterrupt(qctx)
	stmt, tail, err := conn.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("run_sqlite3: %w", err)
	}
	if stmt == nil {
		return nil, errors.New("run_sqlite3: the SQL has no statement, so fetchone() gives None")
	}
	defer stmt.Close()
	if strings.TrimSpace(tail) != "" {
		more, _, err := conn.Prepare(tail)
		if err != nil {
			return nil, fmt.Errorf("run_sqlite3: %w", err)
		}
		if more != nil {
			more.Close()
			return nil, errors.New("run_sqlite3: you can only execute one statement at a time")
		}
	}
	if !stmt.Step() {
		if err := stmt.Err(); err != nil {
			if qctx.Err() != nil {
				return nil, fmt.Errorf("run_sqlite3: the query ran longer than %v", sqlTimeout)
			}
			return nil, fmt.Errorf("run_sqlite3: %w", err)
		}
		return nil, errors.New("run_sqlite3: the query gave no row, so fetchone() is None and [0] a TypeError")
	}
	if stmt.ColumnCount() == 0 {
		return nil, errors.New("run_sqlite3: the statement gives no column")
	}
	switch stmt.ColumnType(0) {
	case sqlite3.NULL:
		return nil, nil
	case sqlite3.INTEGER:
		return stmt.ColumnInt64(0), nil
	case sqlite3.FLOAT:
		return stmt.ColumnFloat(0), nil
	case sqlite3.TEXT:
		s := stmt.ColumnText(0)
		if !utf8.ValidString(s) {
			return nil, errors.New("run_sqlite3: could not decode the value to UTF-8")
		}
		return s, nil
	default:
		return stmt.ColumnBlob(0, nil), nil
	}
}

// sqlFloat is Python's float(v or 0) on a value sqlite3 gives.
func sqlFloat(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if x == "" {
			return 0, nil
		}
		if f, ok := PyFloat(x); ok {
			return f, nil
		}
	case []byte:
		if len(x) == 0 {
			return 0, nil
		}
		ascii := true
		for _, b := range x {
			ascii = ascii && b < 0x80
		}
		if f, ok := PyFloat(string(x)); ascii && ok {
			return f, nil
		}
	}
	return 0, fmt.Errorf("run_sqlite3: could not convert %s to float", pyRepr(v))
}
