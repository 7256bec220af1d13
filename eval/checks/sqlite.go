package checks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"deskpilot/internal/smallfile"
)

// This file reads tables of an SQLite 3 database file, as the getters that
// run "SELECT ... FROM table" on a copy of a browser database need: the
// schema, a table's b-tree in rowid order, records, overflow pages, rowid
// aliases and the defaults of columns added after a row was written. It
// reads the main file only (a copy holds no write-ahead log), and never
// writes.

// sqliteDB is an open database file.
type sqliteDB struct {
	data     []byte
	pageSize int
	usable   int
	encoding int // 1 UTF-8, 2 UTF-16le, 3 UTF-16be
}

// sqliteTable is a table's columns, from its CREATE TABLE statement.
type sqliteTable struct {
	root     int
	columns  []string
	defaults []any
	rowidCol int // the INTEGER PRIMARY KEY column, -1 for none
}

func openSQLite(p string) (*sqliteDB, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	if len(data) < 100 || !bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		return nil, fmt.Errorf("%s: file is not a database", p)
	}
	db := &sqliteDB{data: data, pageSize: int(binary.BigEndian.Uint16(data[16:18]))}
	if db.pageSize == 1 {
		db.pageSize = 65536
	}
	if db.pageSize < 512 || db.pageSize&(db.pageSize-1) != 0 {
		return nil, fmt.Errorf("%s: bad page size %d", p, db.pageSize)
	}
	db.usable = db.pageSize - int(data[20])
	db.encoding = int(binary.BigEndian.Uint32(data[56:60]))
	if db.encoding == 0 {
		db.encoding = 1
	}
	return db, nil
}

func (db *sqliteDB) page(n int) ([]byte, error) {
	off := (n - 1) * db.pageSize
	if n < 1 || off+db.pageSize > len(db.data) {
		return nil, fmt.Errorf("database disk image is malformed: page %d", n)
	}
	return db.data[off : off+db.pageSize], nil
}

// varint reads an SQLite varint.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, len(b) + 1 // truncated: the caller's bounds check fails
}

// scan calls f with the record of every row of the table b-tree at root, in
// rowid order.
func (db *sqliteDB) scan(root int, f func(rowid int64, rec []byte) error) error {
	visited := map[int]bool{}
	var walk func(n int, depth int) error
	walk = func(n int, depth int) error {
		if visited[n] || depth > 64 {
			return errors.New("database disk image is malformed: a b-tree loop")
		}
		visited[n] = true
		pg, err := db.page(n)
		if err != nil {
			return err
		}
		h := 0
		if n == 1 {
			h = 100
		}
		if h+8 > len(pg) {
			return errors.New("database disk image is malformed")
		}
		typ := pg[h]
		cells := int(binary.BigEndian.Uint16(pg[h+3:]))
		hdr := 8
		if typ == 0x05 {
			hdr = 12
		} else if typ != 0x0d {
			return fmt.Errorf("database disk image is malformed: page %d is not a table page", n)
		}
		if h+hdr+2*cells > len(pg) {
			return errors.New("database disk image is malformed")
		}
		for i := range cells {
			off := int(binary.BigEndian.Uint16(pg[h+hdr+2*i:]))
			if off >= len(pg) {
				return errors.New("database disk image is malformed")
			}
			cell := pg[off:]
			if typ == 0x05 {
				if len(cell) < 4 {
					return errors.New("database disk image is malformed")
				}
				if err := walk(int(binary.BigEndian.Uint32(cell)), depth+1); err != nil {
					return err
				}
				continue
			}
			rec, rowid, err := db.leafCell(cell)
			if err != nil {
				return err
			}
			if err := f(rowid, rec); err != nil {
				return err
			}
		}
		if typ == 0x05 {
			return walk(int(binary.BigEndian.Uint32(pg[h+8:])), depth+1)
		}
		return nil
	}
	return walk(root, 0)
}

// leafCell reads a table leaf cell: its whole payload (overflow pages
// followed) and rowid.
func (db *sqliteDB) leafCell(cell []byte) ([]byte, int64, error) {
	size, n1 := varint(cell)
	rowid, n2 := varint(cell[min(n1, len(cell)):])
	start := n1 + n2
	if start > len(cell) || size > uint64(len(db.data)) {
		return nil, 0, errors.New("database disk image is malformed: a cell")
	}
	p := int(size)
	u := db.usable
	x := u - 35
	local := p
	if p > x {
		m := (u-12)*32/255 - 23
		k := m + (p-m)%(u-4)
		local = m
		if k <= x {
			local = k
		}
	}
	if start+local > len(cell) {
		return nil, 0, errors.New("database disk image is malformed: a cell")
	}
	rec := append([]byte(nil), cell[start:start+local]...)
	if local < p {
		if start+local+4 > len(cell) {
			return nil, 0, errors.New("database disk image is malformed: a cell")
		}
		next := int(binary.BigEndian.Uint32(cell[start+local:]))
		for hops := 0; len(rec) < p; hops++ {
			if hops > len(db.data)/db.pageSize {
				return nil, 0, errors.New("database disk image is malformed: an overflow loop")
			}
			pg, err := db.page(next)
			if err != nil {
				return nil, 0, err
			}
			take := min(p-len(rec), u-4)
			rec = append(rec, pg[4:4+take]...)
			next = int(binary.BigEndian.Uint32(pg))
		}
	}
	return rec, int64(rowid), nil
}

// record decodes a record into Python values: nil, int64, float64, string,
// []byte.
func (db *sqliteDB) record(rec []byte) ([]any, error) {
	hsize, n := varint(rec)
	if hsize > uint64(len(rec)) {
		return nil, errors.New("database disk image is malformed: a record")
	}
	var types []uint64
	for i := n; i < int(hsize); {
		t, k := varint(rec[i:])
		types = append(types, t)
		i += k
	}
	body := rec[hsize:]
	out := make([]any, len(types))
	for i, t := range types {
		size := 0
		switch {
		case t >= 1 && t <= 4:
			size = int(t)
		case t == 5:
			size = 6
		case t == 6, t == 7:
			size = 8
		case t >= 12:
			size = int((t - 12) / 2)
		}
		if size > len(body) {
			return nil, errors.New("database disk image is malformed: a record")
		}
		v := body[:size]
		body = body[size:]
		switch {
		case t == 0:
			out[i] = nil
		case t >= 1 && t <= 6:
			x := int64(int8(v[0]))
			for _, c := range v[1:] {
				x = x<<8 | int64(c)
			}
			out[i] = x
		case t == 7:
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(v))
		case t == 8:
			out[i] = int64(0)
		case t == 9:
			out[i] = int64(1)
		case t >= 12 && t%2 == 0:
			out[i] = append([]byte(nil), v...)
		case t >= 13:
			out[i] = db.text(v)
		default:
			return nil, errors.New("database disk image is malformed: a reserved serial type")
		}
	}
	return out, nil
}

func (db *sqliteDB) text(v []byte) string {
	if db.encoding == 1 {
		return strings.ToValidUTF8(string(v), "\uFFFD")
	}
	u := make([]uint16, len(v)/2)
	for i := range u {
		if db.encoding == 2 {
			u[i] = binary.LittleEndian.Uint16(v[2*i:])
		} else {
			u[i] = binary.BigEndian.Uint16(v[2*i:])
		}
	}
	return string(utf16.Decode(u))
}

// table finds a table in the schema and reads its columns.
func (db *sqliteDB) table(name string) (*sqliteTable, error) {
	var found *sqliteTable
	err := db.scan(1, func(_ int64, rec []byte) error {
		row, err := db.record(rec)
		if err != nil || len(row) < 5 || found != nil {
			return err
		}
		typ, _ := row[0].(string)
		tname, _ := row[2].(string)
		root, _ := row[3].(int64)
		sql, _ := row[4].(string)
		if typ == "table" && strings.EqualFold(tname, name) {
			t, err := parseCreateTable(sql)
			if err != nil {
				return fmt.Errorf("table %s: %w", name, err)
			}
			t.root = int(root)
			found = t
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("no such table: %s", name)
	}
	return found, nil
}

// rows returns the table's rows with the named columns (all for nil).
func (db *sqliteDB) rows(name string, cols []string) ([]any, error) {
	t, err := db.table(name)
	if err != nil {
		return nil, err
	}
	idx := make([]int, 0, len(t.columns))
	if cols == nil {
		for i := range t.columns {
			idx = append(idx, i)
		}
	}
	for _, c := range cols {
		i := -1
		for j, tc := range t.columns {
			if strings.EqualFold(tc, c) {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("no such column: %s", c)
		}
		idx = append(idx, i)
	}
	out := []any{}
	err = db.scan(t.root, func(rowid int64, rec []byte) error {
		vals, err := db.record(rec)
		if err != nil {
			return err
		}
		row := make([]any, len(idx))
		for k, i := range idx {
			switch {
			case i == t.rowidCol:
				row[k] = rowid
			case i < len(vals):
				row[k] = vals[i]
			default:
				row[k] = t.defaults[i]
			}
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

// parseCreateTable reads the column names, their DEFAULT literals and the
// rowid alias from a CREATE TABLE statement.
func parseCreateTable(sql string) (*sqliteTable, error) {
	open := strings.IndexByte(sql, '(')
	closeAt := strings.LastIndexByte(sql, ')')
	if open < 0 || closeAt < open {
		return nil, errors.New("cannot read its CREATE TABLE statement")
	}
	t := &sqliteTable{rowidCol: -1}
	var pkCols []string
	types := map[string]string{}
	for _, def := range splitTopLevel(sql[open+1 : closeAt]) {
		toks := sqlTokens(def)
		if len(toks) == 0 {
			continue
		}
		switch strings.ToUpper(toks[0]) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			up := strings.ToUpper(def)
			if i := strings.Index(up, "PRIMARY KEY"); i >= 0 && !strings.HasPrefix(strings.ToUpper(toks[0]), "UNIQUE") {
				inner := def[i:]
				if a, b := strings.IndexByte(inner, '('), strings.IndexByte(inner, ')'); a >= 0 && b > a {
					for _, c := range strings.Split(inner[a+1:b], ",") {
						pkCols = append(pkCols, unquoteIdent(strings.Fields(c)[0]))
					}
				}
			}
			continue
		}
		name := unquoteIdent(toks[0])
		var typ []string
		i := 1
		for ; i < len(toks) && !sqlConstraintWord[strings.ToUpper(toks[i])]; i++ {
			typ = append(typ, toks[i])
		}
		pk := false
		var def any
		for ; i < len(toks); i++ {
			switch strings.ToUpper(toks[i]) {
			case "PRIMARY":
				pk = pk || i+1 < len(toks) && strings.EqualFold(toks[i+1], "KEY")
			case "DEFAULT":
				if i+1 < len(toks) {
					def = sqlLiteral(toks[i+1])
					i++
				}
			}
		}
		types[strings.ToLower(name)] = strings.ToUpper(strings.Join(typ, " "))
		if pk && strings.EqualFold(strings.Join(typ, " "), "INTEGER") {
			t.rowidCol = len(t.columns)
		}
		t.columns = append(t.columns, name)
		t.defaults = append(t.defaults, def)
	}
	if len(pkCols) == 1 && types[strings.ToLower(pkCols[0])] == "INTEGER" {
		for i, c := range t.columns {
			if strings.EqualFold(c, pkCols[0]) {
				t.rowidCol = i
			}
		}
	}
	if strings.Contains(strings.ToUpper(sql[closeAt:]), "WITHOUT ROWID") {
		return nil, errors.New("WITHOUT ROWID tables are not read here")
	}
	return t, nil
}

// sqlConstraintWord are the words that end a column's type.
var sqlConstraintWord = map[string]bool{
	"CONSTRAINT": true, "PRIMARY": true, "NOT": true, "NULL": true, "UNIQUE": true, "CHECK": true,
	"DEFAULT": true, "COLLATE": true, "REFERENCES": true, "GENERATED": true, "AS": true,
}

// splitTopLevel splits at commas outside parentheses and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// sqlTokens splits a column definition into words, quoted names and
// literals, and parenthesised groups.
func sqlTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for j < len(s) && (s[j] != end || (j+1 < len(s) && s[j+1] == end && end != ']')) {
				if s[j] == end {
					j++
				}
				j++
			}
			out = append(out, s[i:min(j+1, len(s))])
			i = j + 1
		case c == '(':
			depth, j := 0, i
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			out = append(out, s[i:min(j+1, len(s))])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r('\"`[", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

func unquoteIdent(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`', '\'':
			return strings.ReplaceAll(s[1:len(s)-1], s[:1]+s[:1], s[:1])
		case '[':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// sqlLiteral is a DEFAULT value: a number, a string, NULL; anything else
// (an expression) reads as NULL.
func sqlLiteral(s string) any {
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2 {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if strings.HasPrefix(s, "(") {
		return sqlLiteral(strings.TrimSpace(s[1 : len(s)-1]))
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	switch strings.ToUpper(s) {
	case "TRUE":
		return int64(1)
	case "FALSE":
		return int64(0)
	}
	return nil
}
