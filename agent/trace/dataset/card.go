package dataset

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// CardFile is the dataset card.
const CardFile = "README.md"

func dirOf(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

// writeCard writes README.md: what the folder holds, counted.
func writeCard(dir string, rep Report, o Options) error {
	var b strings.Builder
	b.WriteString("---\npretty_name: deskpilot computer-use trajectories\n")
	b.WriteString("tags:\n- computer-use\n- gui-agent\n- deskpilot\ntask_categories:\n- image-text-to-text\n")
	if lic := knownLicences(rep.Licences); len(lic) == 1 && isLicenceID(lic[0]) {
		fmt.Fprintf(&b, "license: %s\n", lic[0])
	} else {
		b.WriteString("license: other\n")
	}
	if o.Format == HFParquet {
		b.WriteString("configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/train-*.parquet\n")
	}
	b.WriteString("---\n\n# deskpilot computer-use trajectories\n\n")
	fmt.Fprintf(&b, "Runs of desktop tasks by deskpilot, an agent that shows a vision language model the screen and runs the code it answers with. Layout: `%s`.\n\n", o.Format)
	b.WriteString("## Counts\n\n| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| trajectories | %d |\n| steps | %d |\n| tasks | %d |\n", rep.Trajectories, rep.Steps, len(rep.Tasks))
	fmt.Fprintf(&b, "| completed | %d |\n| with an evaluator's score | %d |\n", rep.Completed, rep.Scored)
	fmt.Fprintf(&b, "| duplicates left out | %d |\n| runs or steps skipped | %d |\n", rep.Duplicates, len(rep.Skipped))
	b.WriteString("\n## Step labels\n\nMeasured by deskpilot while the run went, never guessed by a model: ")
	b.WriteString("`changed`/`no_change` (the screen changed during the step, by the effect check), `repeated` (the same code as the step before), ")
	b.WriteString("`refused` (the guard or the policy refused an action), `error` (the code or an action failed), `scripted`/`takeover` (in a replay: the recorded code ran, or the model wrote the step where the screen did not look as recorded). ")
	b.WriteString("Runs of an evaluation carry the task's final score.\n\n| label | steps |\n|---|---|\n")
	for _, l := range Labels {
		fmt.Fprintf(&b, "| %s | %d |\n", l, rep.Labels[l])
	}
	if len(o.Drop) > 0 {
		b.WriteString("\nSteps left out (`--drop`):\n\n| label | steps |\n|---|---|\n")
		for _, l := range o.Drop {
			fmt.Fprintf(&b, "| %s | %d |\n", l, rep.Dropped[l])
		}
	}
	table(&b, "Models", "model", rep.Models)
	table(&b, "Dialects", "dialect", rep.Dialects)
	table(&b, "Task licences", "license", rep.Licences)
	b.WriteString("\n## Files\n\n")
	for _, f := range rep.Files {
		fmt.Fprintf(&b, "- `%s`%s\n", f, fileNote(f))
	}
	b.WriteString("\n## Redaction\n\n")
	b.WriteString("Secrets the runs knew (API keys, values typed with `type_secret`) were replaced by `[redacted]` when the traces were written, ")
	b.WriteString("and the fields they went into were painted over in every frame the agent took after finding them (the field's accessible element, a password field, or the words OCR read). ")
	if len(o.Secrets) > 0 {
		fmt.Fprintf(&b, "%d values configured as secrets when this dataset was built were replaced in every text, with every run of their characters long enough to give them away. ", len(o.Secrets))
	}
	if o.Redact {
		fmt.Fprintf(&b, "With `--redact`, the field of every typed secret was also flattened to one colour in every later image (%d images). ", rep.Redacted)
	} else {
		b.WriteString("It was built without `--redact`: images were not flattened further. ")
	}
	b.WriteString("Other things on screen are not redacted: review the images before you share them.\n")
	return writeFile(dir, CardFile, []byte(b.String()))
}

func fileNote(f string) string {
	switch f {
	case ParquetFile:
		return ": one row per trajectory; per-step columns are parallel lists (images as PNG bytes, Hugging Face's Image struct)"
	case AgentNetFile:
		return ": one task per line in OpenCUA's AgentNet layout (task_id, instruction, task_completed, traj)"
	case ImagesDir + "/":
		return ": the PNG of each step"
	case ChatFile:
		return ": one fine-tuning example per step ({\"messages\": [...]})"
	case ChatMetaFile:
		return ": the run, step and labels of each line of train.jsonl"
	case CardFile:
		return ": this card"
	}
	return ""
}

func table(b *strings.Builder, title, col string, m map[string]int) {
	fmt.Fprintf(b, "\n## %s\n\n| %s | runs |\n|---|---|\n", title, col)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %d |\n", mdCell(k), m[k])
	}
}

func knownLicences(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mdCell keeps a value on one table line.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

// isLicenceID reports whether s looks like a licence identifier the Hub
// knows (mit, apache-2.0, cc-by-4.0): lowercase letters, digits, '-', '.'.
func isLicenceID(s string) bool {
	if s == "" || s == "unknown" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
