package checks

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// infoWait is how long info_from_website waits for an element to be in the
// page (Playwright's wait_for_selector with timeout=10000); the last
// selector of click_and_attribute waits actionTimeout, Playwright's default,
// as OSWorld's getter gives that one no timeout.
const infoWait = 10 * time.Second

// getInfoFromWebsite is OSWorld's get_info_from_website (chrome.py): in a
// new page of the browser in the box, the task's url, and for each of infos
// in turn (back at url first when the page is elsewhere) one value:
//   - inner_text (the default action): the innerText of the first element
//     matching selector;
//   - attribute: that element's attribute named attribute (None when it has
//     none);
//   - click_and_inner_text, click_and_attribute: selector is a list; every
//     element but the last is clicked in turn, each click followed by a wait
//     for the page to load, and the last gives its innerText or attribute.
//
// It gives the list of values. Whatever fails on the way (no browser, a site
// that does not answer, as offline, an element that is never there, an
// unknown action, a config without url) gives the task's backups instead
// (None without them), as OSWorld's getter catches every exception. Only the
// end of the check's time is an error.
func getInfoFromWebsite(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	infos, err := readWebsite(ctx, env, cfg)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return cfg["backups"], nil
	}
	return infos, nil
}

// readWebsite does what get_info_from_website's try block does; any error
// stands for the exception that makes the getter return the backups.
func readWebsite(ctx context.Context, env Env, cfg map[string]any) ([]any, error) {
	u, ok := cfg["url"].(string)
	if !ok {
		return nil, errors.New("no url")
	}
	var steps []any
	switch v := cfg["infos"].(type) {
	case nil:
	case []any:
		steps = v
	default:
		return nil, errors.New("infos is not a list")
	}
	out := []any{}
	err := withPage(ctx, env, u, func(ctx context.Context, s *cdpSession) error {
		for _, raw := range steps {
			info, ok := raw.(map[string]any)
			if !ok {
				return errors.New("an info is not an object")
			}
			var here string
			if err := s.eval(ctx, "location.href", &here); err != nil {
				return err
			}
			if here != u {
				lctx, cancel := context.WithTimeout(ctx, pageLoadTimeout)
				err := s.navigate(lctx, u)
				cancel()
				if err != nil {
					return err
				}
			}
			v, err := websiteInfo(ctx, s, info)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// websiteInfo reads one value of get_info_from_website's infos.
func websiteInfo(ctx context.Context, s *cdpSession, info map[string]any) (any, error) {
	action := "inner_text"
	if a, ok := info["action"]; ok {
		if action, ok = a.(string); !ok {
			return nil, fmt.Errorf("action %s is not supported", show(a))
		}
	}
	switch action {
	case "inner_text", "attribute":
		sel, ok := info["selector"].(string)
		if !ok {
			return nil, errors.New("selector is not a string")
		}
		return s.readElement(ctx, sel, action == "attribute", info["attribute"], infoWait)
	case "click_and_inner_text", "click_and_attribute":
		sels, err := strList(info["selector"], "selector")
		if err != nil || len(sels) == 0 {
			return nil, errors.New("selector is not a list of strings")
		}
		for _, sel := range sels[:len(sels)-1] {
			if _, err := s.readElement(ctx, sel, false, nil, infoWait); err != nil {
				return nil, err
			}
			if err := s.click(ctx, sel); err != nil {
				return nil, err
			}
			lctx, cancel := context.WithTimeout(ctx, pageLoadTimeout)
			err := s.waitLoaded(lctx)
			cancel()
			if err != nil {
				return nil, err
			}
		}
		wait := infoWait
		if action == "click_and_attribute" {
			wait = actionTimeout
		}
		return s.readElement(ctx, sels[len(sels)-1], action == "click_and_attribute", info["attribute"], wait)
	}
	return nil, fmt.Errorf("the action %s is not supported yet", action)
}

// readElement waits (at most wait) for an element matching the CSS selector
// to be in the page, and gives the first one's innerText, or with attr its
// attribute named name (nil when it has none).
func (s *cdpSession) readElement(ctx context.Context, sel string, attr bool, name any, wait time.Duration) (any, error) {
	value := "e.innerText"
	if attr {
		n, ok := name.(string)
		if !ok {
			return nil, errors.New("attribute is not a string")
		}
		value = "e.getAttribute(" + jsString(n) + ")"
	}
	js := `(() => { const e = document.querySelector(` + jsString(sel) + `); if (!e) return {found: false};
		return {found: true, value: ` + value + `}; })()`
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		var r struct {
			Found bool    `json:"found"`
			Value *string `json:"value"`
		}
		if err := s.eval(ctx, js, &r); err != nil && ctx.Err() == nil {
			return nil, err
		}
		if r.Found {
			if r.Value == nil {
				return nil, nil
			}
			return *r.Value, nil
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return nil, fmt.Errorf("no element %s within %s", sel, wait)
		}
	}
}
