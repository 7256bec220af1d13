package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// RunIDLen is the number of hex digits of a run id.
const RunIDLen = 6

// RunID is the run's stable short id: RunIDLen hex digits of the SHA-256 of its trace
// folder's name. It does not change as other runs are recorded (unlike a position in
// a listing), so `traces list`, the app and the report show it and the CLI takes it
// (or a unique prefix of at least 4 digits) wherever it takes a trace.
// It is "" for "" (a trace read from a stream).
func RunID(dir string) string {
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Base(filepath.Clean(dir))))
	return hex.EncodeToString(sum[:])[:RunIDLen]
}
