package mcpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenEnv is the environment variable that sets the HTTP bearer token, as
// --token does.
const TokenEnv = "DESKPILOT_MCP_TOKEN"

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is where to listen, host:port; the host must be a loopback
	// address unless Token is set.
	Addr string
	// Token, when set, is required of every request as
	// "Authorization: Bearer TOKEN", on any address.
	Token string
	// Ready, when set, gets the address listened on once it is.
	Ready func(addr net.Addr)
}

// CheckAddr refuses to serve on a non-loopback address without a token.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	if token != "" || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("--http %s is not a loopback address: anyone who reaches it could drive this desktop; set --token or %s (and send Authorization: Bearer TOKEN), or listen on 127.0.0.1", addr, TokenEnv)
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the streamable HTTP handler: the SDK's, behind the bearer token
// (when set) and an Origin check (a browser page of another site is
// refused, against DNS rebinding; the SDK also refuses a non-local Host on a
// loopback connection).
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.o.Log, SessionTimeout: 30 * time.Minute})
	return guard(h, token)
}

// guard checks every request before the MCP handler sees it.
func guard(next http.Handler, token string) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			refuse(w, http.StatusForbidden, "forbidden: requests from the web origin "+clip(o, 200)+" are refused")
			return
		}
		if token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deskpilot"`)
			refuse(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer TOKEN (the token deskpilot mcp was started with)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a request's Origin is this server's own or a
// loopback page's.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, host) || isLoopback(u.Hostname())
}

// refuse answers a refused request with a JSON-RPC error body.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":%q}}`+"\n", msg)
}

// ServeHTTP listens on o.Addr and serves sessions until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, o HTTPOptions) error {
	if err := CheckAddr(o.Addr, o.Token); err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}
	srv := &http.Server{Handler: s.Handler(o.Token), ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() {
		s.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
