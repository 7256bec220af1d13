package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"
)

// This file speaks the Chrome DevTools protocol to one page of the browser
// in the box, over the box's port 9222: what OSWorld's getters do through
// Playwright's connect_over_cdp.

// devtoolsTarget is one entry of DevTools' /json/list.
type devtoolsTarget struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
	WS    string `json:"webSocketDebuggerUrl"`
}

// listTargets reads /json/list. Chrome sorts it by last activity, the
// active tab's page first.
func listTargets(ctx context.Context, env Env) ([]devtoolsTarget, error) {
	data, err := devtools(ctx, env, "/json/list")
	if err != nil {
		return nil, err
	}
	var ts []devtoolsTarget
	if err := json.Unmarshal(data, &ts); err != nil {
		return nil, fmt.Errorf("devtools /json/list: %w", err)
	}
	return ts, nil
}

// cdpSession is a DevTools protocol connection to one target. It is not
// safe for concurrent use.
type cdpSession struct {
	c    *websocket.Conn
	next int64
}

// maxCDPMessage bounds one DevTools message (a page's HTML comes in one).
const maxCDPMessage = 64 << 20

// dialCDP connects to a target's webSocketDebuggerUrl through the box's
// port 9222, whatever host the URL names.
func dialCDP(ctx context.Context, env Env, wsURL string) (*cdpSession, error) {
	u, err := url.Parse(wsURL)
	if err != nil || u.Path == "" {
		return nil, fmt.Errorf("devtools: bad websocket URL %q", wsURL)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return env.Dial(ctx, 9222) },
	}}
	c, _, err := websocket.Dial(ctx, "ws://127.0.0.1:9222"+u.Path, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		return nil, fmt.Errorf("devtools: %w", err)
	}
	c.SetReadLimit(maxCDPMessage)
	return &cdpSession{c: c}, nil
}

func (s *cdpSession) close() { s.c.Close(websocket.StatusNormalClosure, "") }

// call sends a command and waits for its answer, skipping events.
func (s *cdpSession) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.next++
	id := s.next
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := s.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, fmt.Errorf("devtools %s: %w", method, err)
	}
	for {
		_, data, err := s.c.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("devtools %s: %w", method, err)
		}
		var r struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("devtools %s: %w", method, err)
		}
		if r.ID != id {
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("devtools %s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	}
}

// eval runs a JavaScript expression in the page and decodes its value into
// out; a thrown exception is an error.
func (s *cdpSession) eval(ctx context.Context, expr string, out any) error {
	res, err := s.call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("page script: %s %s", r.Exception.Text, r.Exception.Exception.Description)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// waitLoaded waits until the page's document has loaded (Playwright's
// load state), polling document.readyState.
func (s *cdpSession) waitLoaded(ctx context.Context) error {
	for {
		var state string
		if err := s.eval(ctx, "document.readyState", &state); err != nil {
			return err
		}
		if state == "complete" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// navigate loads u in the page and waits for its load event (Playwright's
// goto); a navigation the browser refuses or that fails is an error.
func (s *cdpSession) navigate(ctx context.Context, u string) error {
	res, err := s.call(ctx, "Page.navigate", map[string]any{"url": u})
	if err != nil {
		return err
	}
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", u, r.ErrorText)
	}
	for {
		var state struct{ State, URL string }
		if err := s.eval(ctx, "({State: document.readyState, URL: location.href})", &state); err != nil {
			return err
		}
		if state.State == "complete" && state.URL != "about:blank" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// pageContentJS is what Playwright's page.content() returns: the doctype
// and the document element's outer HTML.
const pageContentJS = `(() => { let s = ''; if (document.doctype) s = new XMLSerializer().serializeToString(document.doctype); if (document.documentElement) s += document.documentElement.outerHTML; return s; })()`
