package agent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"deskpilot/agent/trace"
)

// A follow-up chain (run --continue, the app's follow-ups) reads the traces
// it continues into the model's history. A trace may come from anywhere (a
// shared folder, a download), and its continues field could point into any
// other run's folder on the machine. So a chain passes only through traces
// the person named and through traces this user's own runs wrote: a run that
// continues another signs that link in its run_start (ContinuesSig), with a
// key of the user's that never leaves the machine (Agent.TraceKey), and
// ReadPriors follows a continues field only where the signature holds.

// SignContinues is the signature of a run_start that started at start and
// continues the trace folder continues: HMAC-SHA256 under key, in hex. It is
// "" without a key.
func SignContinues(key []byte, start time.Time, continues string) string {
	if len(key) == 0 || continues == "" {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("deskpilot continues v1\x00" + start.UTC().Format(time.RFC3339Nano) + "\x00" + continues))
	return hex.EncodeToString(m.Sum(nil))
}

// signedContinues reports whether start's continues field was written, and
// signed, by one of this user's runs.
func signedContinues(key []byte, start trace.Event) bool {
	want := SignContinues(key, start.T, start.Continues)
	return want != "" && hmac.Equal([]byte(want), []byte(start.ContinuesSig))
}
