// Command inspectfile prints a file as deskpilot's inspector reads it: the
// yardstick of scripts/bench-documents.sh against poppler's pdftotext.
//
//	go run ./scripts/inspectfile FILE
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"deskpilot/actions/inspect"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: inspectfile FILE")
		os.Exit(2)
	}
	p, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	e := inspect.NewPDFEngine(inspect.PDFOptions{})
	defer e.Close()
	in := inspect.New(inspect.Options{Roots: []string{filepath.Dir(p)}, PDF: e, MaxChars: 1 << 30})
	text, err := in.Inspect(context.Background(), p, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(text)
}
