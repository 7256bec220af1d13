package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// recreationGetter is gotoRecreationPage_and_get_html_content: it reads
// the live recreation.gov (Web), whatever the task's config says.
func recreationGetter() Getter {
	return Getter{Fn: getRecreationPage, Web: recreationSite, Check: func(cfg map[string]any) error {
		sel, err := strKey(cfg, "selector")
		if err == nil && sel == "class" {
			_, err = strKey(cfg, "class")
		}
		return err
	}}
}

// recreationSite is the site gotoRecreationPage_and_get_html_content reads.
const recreationSite = "https://www.recreation.gov/"

// recreationURL is where the getter starts: the live site (its tests serve a
// stand-in).
var recreationURL = recreationSite

// Bounds of the page actions: Playwright's default action timeout, and the
// pauses OSWorld's getter sleeps.
const (
	actionTimeout  = 30 * time.Second
	recreationWait = 2 * time.Second
)

// getRecreationPage is OSWorld's get_gotoRecreationPage_and_get_html_content
// (chrome.py): in a new page of the browser in the box, recreation.gov's
// home page, "Albion Basin" filled into its search box and searched, the
// first successful result clicked (it opens a popup page), that page's "next
// available" button clicked, and the text (stripped) of the element of class
// `class` at index `order` (all of them, or the first without `order`), as
// {"expected": {class: text}}. A selector other than "class" gives
// {"expected": {}} after the same clicks. An element that never shows, a
// page that does not load or an index out of range is an error, as
// Playwright's and Python's exceptions are; the pages it opened are closed.
func getRecreationPage(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	out := map[string]any{}
	err := withPage(ctx, env, recreationURL, func(ctx context.Context, s *cdpSession) error {
		if err := s.fill(ctx, "input#hero-search-input", "Albion Basin"); err != nil {
			return err
		}
		if err := s.click(ctx, "button.nav-search-button"); err != nil {
			return err
		}
		if err := sleepCtx(ctx, recreationWait); err != nil {
			return err
		}
		before, err := listTargets(ctx, env)
		if err != nil {
			return err
		}
		if err := s.click(ctx, ".search-result-highlight--success"); err != nil {
			return err
		}
		popup, err := waitPopup(ctx, env, before)
		if err != nil {
			return err
		}
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			devtools(cctx, env, "/json/close/"+popup.ID) //nolint:errcheck // the page may be gone
		}()
		p, err := dialCDP(ctx, env, popup.WS)
		if err != nil {
			return err
		}
		defer p.close()
		lctx, cancel := context.WithTimeout(ctx, pageLoadTimeout)
		err = p.waitLoaded(lctx)
		cancel()
		if err != nil {
			return fmt.Errorf("the result's page did not load: %w", err)
		}
		if err := sleepCtx(ctx, recreationWait); err != nil {
			return err
		}
		if err := p.click(ctx, "button.next-available"); err != nil {
			return err
		}
		if sel, _ := cfg["selector"].(string); sel != "class" {
			return nil
		}
		class, err := strKey(cfg, "class")
		if err != nil {
			return err
		}
		text, err := p.classText(ctx, class, cfg["order"])
		if err != nil {
			return err
		}
		out[class] = text
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recreation.gov: %w", err)
	}
	return map[string]any{"expected": out}, nil
}

// classText is the stripped textContent of the elements of a class: the
// one at index order (an int or its string, negative from the end, as
// Python indexes), or the first when order is nil.
func (s *cdpSession) classText(ctx context.Context, class string, order any) (string, error) {
	var texts []string
	if err := s.eval(ctx, `Array.from(document.querySelectorAll(`+jsString("."+class)+`), e => e.textContent)`, &texts); err != nil {
		return "", err
	}
	i := 0
	if order != nil {
		n, err := strconv.Atoi(strings.TrimSpace(PyStr(order)))
		if err != nil {
			return "", fmt.Errorf("order %s: invalid literal for int()", show(order))
		}
		if i = n; i < 0 {
			i += len(texts)
		}
		if i < 0 || i >= len(texts) {
			return "", fmt.Errorf("order %d: list index out of range (%d elements of class %s)", n, len(texts), class)
		}
	} else if len(texts) == 0 {
		return "", fmt.Errorf("no element of class %s ('NoneType' object has no attribute 'text_content')", class)
	}
	return strings.TrimFunc(texts[i], PyIsSpace), nil
}

// waitPopup waits (at most actionTimeout, Playwright's expect_popup) for a
// page target that was not in before.
func waitPopup(ctx context.Context, env Env, before []devtoolsTarget) (devtoolsTarget, error) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	for {
		ts, err := listTargets(ctx, env)
		if err != nil {
			return devtoolsTarget{}, err
		}
		for _, t := range ts {
			if t.Type == "page" && t.WS != "" && !slices.ContainsFunc(before, func(b devtoolsTarget) bool { return b.ID == t.ID }) {
				return t, nil
			}
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return devtoolsTarget{}, errors.New("no popup page opened")
		}
	}
}

// visible waits (at most actionTimeout, as Playwright's actions wait) for
// the first element matching the CSS selector to be visible, scrolls it into
// view and gives its centre in the page's CSS pixels.
func (s *cdpSession) visible(ctx context.Context, sel string) (x, y float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	js := `(() => { const e = document.querySelector(` + jsString(sel) + `); if (!e) return null;
		e.scrollIntoView({block: "center", inline: "center"});
		const r = e.getBoundingClientRect(), st = getComputedStyle(e);
		if (r.width === 0 || r.height === 0 || st.visibility === "hidden") return null;
		return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`
	for {
		var p *struct{ X, Y float64 }
		if err := s.eval(ctx, js, &p); err != nil && ctx.Err() == nil {
			return 0, 0, err
		}
		if p != nil {
			return p.X, p.Y, nil
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return 0, 0, fmt.Errorf("no visible element %s within %s", sel, actionTimeout)
		}
	}
}

// click clicks the element's centre with the mouse, as Playwright's click.
func (s *cdpSession) click(ctx context.Context, sel string) error {
	x, y, err := s.visible(ctx, sel)
	if err != nil {
		return err
	}
	for _, ev := range []map[string]any{
		{"type": "mouseMoved", "x": x, "y": y, "button": "none"},
		{"type": "mousePressed", "x": x, "y": y, "button": "left", "clickCount": 1},
		{"type": "mouseReleased", "x": x, "y": y, "button": "left", "clickCount": 1},
	} {
		if _, err := s.call(ctx, "Input.dispatchMouseEvent", ev); err != nil {
			return fmt.Errorf("click %s: %w", sel, err)
		}
	}
	return nil
}

// fill focuses the field, selects its text and types text in its place, as
// Playwright's fill inserts it.
func (s *cdpSession) fill(ctx context.Context, sel, text string) error {
	if _, _, err := s.visible(ctx, sel); err != nil {
		return err
	}
	if err := s.eval(ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.focus(); if (e.select) e.select(); })()`, nil); err != nil {
		return fmt.Errorf("fill %s: %w", sel, err)
	}
	if _, err := s.call(ctx, "Input.insertText", map[string]any{"text": text}); err != nil {
		return fmt.Errorf("fill %s: %w", sel, err)
	}
	return nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
