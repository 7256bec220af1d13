package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// getActiveTabHTMLParse is get_active_tab_html_parse: among the browser's
// tabs, the one whose URL is the active URL (both percent-decoded), and from
// its document the texts the config's category asks for: "class" (the
// n-th, or the first, element of a class), "label" (the first element
// holding a text), "xpath" (the first node an XPath finds), "input" (the
// value of the first input an XPath finds). {} when no tab has that URL.
func getActiveTabHTMLParse(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	active, ok := activeTabURL(ctx, env, cfg)
	if !ok {
		return nil, nil
	}
	ts, err := listTargets(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("active_tab_html_parse: the browser does not answer: %w", err)
	}
	var page *devtoolsTarget
	for i := len(ts) - 1; i >= 0; i-- { // oldest first, as Playwright lists pages
		if ts[i].Type == "page" && pyUnquote(ts[i].URL) == pyUnquote(active) {
			page = &ts[i]
			break
		}
	}
	if page == nil {
		return map[string]any{}, nil
	}
	lctx, cancel := context.WithTimeout(ctx, pageLoadTimeout)
	defer cancel()
	s, err := dialCDP(lctx, env, page.WS)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := s.waitLoaded(lctx); err != nil {
		return nil, err
	}
	out := map[string]any{}
	switch cfg["category"] {
	case "class":
		err = htmlByClass(lctx, s, cfg, out)
	case "label":
		err = htmlEach(lctx, s, cfg, "labelObject", labelJS, out)
	case "xpath":
		err = htmlEach(lctx, s, cfg, "xpathObject", xpathTextJS, out)
	case "input":
		err = htmlEach(lctx, s, cfg, "inputObject", xpathValueJS, out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// classTextsJS lists the stripped-later text of every element matching a
// CSS selector.
const classTextsJS = `Array.from(document.querySelectorAll(%s), e => e.textContent)`

// xpathTextJS is the text of the first node an XPath finds, null for none.
const xpathTextJS = `(() => { const r = document.evaluate(%s, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; return r ? r.textContent : null; })()`

// xpathValueJS is the value of the first input, textarea or select an XPath
// finds (Playwright's input_value raises for another element), null for none.
const xpathValueJS = `(() => { const r = document.evaluate(%s, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; if (!r) return null; if (!(r instanceof HTMLInputElement || r instanceof HTMLTextAreaElement || r instanceof HTMLSelectElement)) throw new Error('Node is not an <input>, <textarea> or <select> element'); return r.value; })()`

// labelJS is Playwright's "text=" locator's first match: the innermost
// element whose whitespace-normalised text contains the text, ignoring case
// (Playwright waits for one and raises when none comes).
const labelJS = `((want) => { const norm = s => s.replace(/\s+/g, ' ').trim().toLowerCase(); want = norm(want); let found = null; const walk = e => { if (!norm(e.textContent).includes(want)) return false; for (const c of e.children) if (walk(c)) return true; found = e; return true; }; if (document.body) walk(document.body); if (!found) throw new Error('no element has the text ' + want); return found.textContent; })(%s)`

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func htmlByClass(ctx context.Context, s *cdpSession, cfg map[string]any, out map[string]any) error {
	texts := func(class string) ([]string, error) {
		var ts []string
		if err := s.eval(ctx, fmt.Sprintf(classTextsJS, jsString("."+class)), &ts); err != nil {
			return nil, err
		}
		for i := range ts {
			ts[i] = pyStrip(ts[i])
		}
		return ts, nil
	}
	multi, err := optObj(cfg, "class_multiObject")
	if err != nil {
		return err
	}
	for _, class := range slices.Sorted(maps.Keys(multi)) {
		ranks, err := obj(multi[class], "class_multiObject."+class)
		if err != nil {
			return err
		}
		ts, err := texts(class)
		if err != nil {
			return err
		}
		for _, rank := range slices.Sorted(maps.Keys(ranks)) {
			i, err := strconv.Atoi(rank)
			if err != nil {
				return fmt.Errorf("class_multiObject.%s: ValueError: invalid literal for int(): %q", class, rank)
			}
			if len(ts) > i {
				if i < 0 {
					if i += len(ts); i < 0 {
						return fmt.Errorf("class_multiObject.%s: IndexError: list index %s out of range", class, rank)
					}
				}
				out[PyStr(ranks[rank])] = ts[i]
			}
		}
	}
	single, err := optObj(cfg, "class_singleObject")
	if err != nil {
		return err
	}
	for _, class := range slices.Sorted(maps.Keys(single)) {
		ts, err := texts(class)
		if err != nil {
			return err
		}
		if len(ts) > 0 {
			out[PyStr(single[class])] = ts[0]
		}
	}
	return nil
}

// htmlEach runs js (a format with one string argument) for each key of the
// config object field, storing the stripped, non-null results.
func htmlEach(ctx context.Context, s *cdpSession, cfg map[string]any, field, js string, out map[string]any) error {
	m, err := optObj(cfg, field)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var text *string
		if err := s.eval(ctx, fmt.Sprintf(js, jsString(k)), &text); err != nil {
			return err
		}
		if text == nil {
			continue
		}
		if t := pyStrip(*text); t != "" || field != "labelObject" {
			out[PyStr(m[k])] = t
		}
	}
	return nil
}

func optObj(cfg map[string]any, k string) (map[string]any, error) {
	v, ok := cfg[k]
	if !ok {
		return map[string]any{}, nil
	}
	return obj(v, k)
}
