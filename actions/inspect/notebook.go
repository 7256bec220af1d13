package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxOutputChars bounds the text shown of one cell's outputs.
const maxOutputChars = 4000

// notebook is the part of a Jupyter notebook (nbformat 4) a reader needs.
type notebook struct {
	Cells    []nbCell `json:"cells"`
	Metadata struct {
		Kernel struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
		Language struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
}

type nbCell struct {
	Type    string     `json:"cell_type"`
	Source  nbText     `json:"source"`
	Outputs []nbOutput `json:"outputs"`
}

type nbOutput struct {
	Type   string            `json:"output_type"`
	Text   nbText            `json:"text"`
	Data   map[string]nbText `json:"data"`
	Name   string            `json:"ename"`
	Value  string            `json:"evalue"`
	Stream string            `json:"name"`
}

// nbText is a notebook string: one string or a list of lines.
type nbText string

func (t *nbText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = nbText(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return nil // images and other payloads: not text
	}
	*t = nbText(strings.Join(lines, ""))
	return nil
}

// notebookConvert renders a Jupyter notebook: markdown cells as they are,
// code cells fenced in the kernel's language, each followed by its text
// outputs (streams, results, errors); images are named, not shown.
func notebookConvert(ctx context.Context, data []byte) (string, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return "", err
	}
	if nb.Cells == nil {
		return "", errors.New("no cells: not a Jupyter notebook (nbformat 4)")
	}
	lang := firstOf(nb.Metadata.Language.Name, nb.Metadata.Kernel.Language)
	var b strings.Builder
	for i, c := range nb.Cells {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		src := strings.TrimRight(string(c.Source), "\n")
		switch c.Type {
		case "markdown":
			b.WriteString(src)
		case "code":
			fmt.Fprintf(&b, "```%s\n%s\n```", lang, src)
			if out := cellOutputs(c.Outputs); out != "" {
				fmt.Fprintf(&b, "\n\nOutput:\n\n```\n%s\n```", out)
			}
		default:
			fmt.Fprintf(&b, "```\n%s\n```", src)
		}
		if b.Len() > maxOutput {
			b.WriteString("\n\n[The notebook is too long; the rest was not read.]")
			break
		}
	}
	return b.String(), nil
}

// cellOutputs joins a code cell's text outputs.
func cellOutputs(outs []nbOutput) string {
	var parts []string
	for _, o := range outs {
		switch o.Type {
		case "stream":
			parts = append(parts, strings.TrimRight(string(o.Text), "\n"))
		case "execute_result", "display_data":
			switch {
			case o.Data["text/plain"] != "":
				parts = append(parts, strings.TrimRight(string(o.Data["text/plain"]), "\n"))
			case o.Data["text/markdown"] != "":
				parts = append(parts, strings.TrimRight(string(o.Data["text/markdown"]), "\n"))
			}
			for mime := range o.Data {
				if strings.HasPrefix(mime, "image/") {
					parts = append(parts, "["+mime+" output]")
					break
				}
			}
		case "error":
			parts = append(parts, fmt.Sprintf("%s: %s", o.Name, o.Value))
		}
	}
	s := strings.Join(parts, "\n")
	if r := []rune(s); len(r) > maxOutputChars {
		s = string(r[:maxOutputChars]) + "\n[… output cut]"
	}
	return strings.ReplaceAll(s, "```", "ʼʼʼ")
}
