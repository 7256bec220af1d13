package mcpserve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The session's resources: each session reads its own.
const (
	TraceURI      = "deskpilot://session/trace"
	ScreenshotURI = "deskpilot://session/screenshot"
)

// maxTraceRead bounds the trace text a resource read returns.
const maxTraceRead = 8 << 20

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: TraceURI, Name: "trace", Title: "this session's trace",
		Description: "trace.jsonl of this MCP session: every call as a step (docs/trace-format.md), secrets redacted; its folder holds the frames and report.html",
		MIMEType:    "application/x-ndjson"}, s.readTrace)
	s.mcp.AddResource(&mcp.Resource{URI: ScreenshotURI, Name: "screenshot", Title: "the latest screenshot",
		Description: "the screen after this session's latest call, as the screenshot tool returns it"}, s.readScreenshot)
}

func (s *Server) readTrace(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	st := s.sessionOf(req.Session)
	con := st.console()
	if con == nil || con.TraceDir() == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	f, err := os.Open(filepath.Join(con.TraceDir(), "trace.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTraceRead))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "application/x-ndjson", Text: string(data),
		Meta: mcp.Meta{"folder": con.TraceDir()},
	}}}, nil
}

func (s *Server) readScreenshot(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	st := s.sessionOf(req.Session)
	st.ctlMu.Lock()
	shot, mime := st.shot, st.mime
	st.ctlMu.Unlock()
	if shot == nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Blob: shot}}}, nil
}
