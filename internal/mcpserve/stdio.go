package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine bounds one message on standard input, in bytes.
const MaxLine = 16 << 20

// lockedWriter serialises whole-message writes: the SDK writes each message
// in one Write, and so does the line guard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// guardLines copies the messages on r to the returned reader, one JSON-RPC
// object per line, and answers every other line itself with a JSON-RPC
// error on w: the SDK decodes standard input as one JSON stream, so a
// malformed line would run into the next message, or end the session.
func guardLines(r io.Reader, w io.Writer) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				if msg := checkLine(line, tooLong); msg != "" {
					reply(w, msg)
				} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its newline; a line over MaxLine is read
// to its end and reported too long, its bytes dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > MaxLine {
				tooLong, line = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkLine says what is wrong with a line as a JSON-RPC message; "" = it
// is a JSON object to pass on.
func checkLine(line []byte, tooLong bool) string {
	switch {
	case tooLong:
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message longer than %d bytes"}}`, MaxLine)
	case !json.Valid(line):
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`
	}
	var probe struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if bytes.TrimSpace(line)[0] != '{' || json.Unmarshal(line, &probe) != nil || probe.JSONRPC != "2.0" {
		id := "null"
		if len(probe.ID) > 0 && len(probe.ID) < 256 {
			id = string(probe.ID)
		}
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: not a JSON-RPC 2.0 object"}}`
	}
	return ""
}

// reply writes one line to w.
func reply(w io.Writer, msg string) { _, _ = io.WriteString(w, msg+"\n") }
