// Command go-oracle renders Go text/template templates exactly as
// spire-controller-manager does, for the differential test in
// test/template/oracle.test.ts.
//
// It reads one JSON case per line on stdin and writes one JSON result per
// line on stdout, so that thousands of cases cost one process start:
//
//	in:  {"id": 1, "name": "spiffeIDTemplate", "template": "...", "data": {...}}
//	out: {"id": 1, "phase": "ok", "output": "..."}
//	     {"id": 1, "phase": "parse"|"exec", "error": "..."}
//	     {"id": 1, "phase": "data"|"panic", "error": "..."} (a harness problem)
//	     {"id": 1, "phase": "timeout"} (then the oracle exits: a case ran away)
//
// An output that is not valid UTF-8 is sent as "outputBase64" instead of
// "output" (JSON would replace the bad bytes).
//
// `go-oracle tables` prints the Unicode tables Go's fmt, strconv and
// text/template use, and `go-oracle types` the Go types of the template data,
// for the tests that check our copies of them.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"spire-reconciler/go-oracle/spireentry"
)

type request struct {
	ID       int              `json:"id"`
	Name     string           `json:"name"`
	Template string           `json:"template"`
	Data     spireentry.Input `json:"data"`
}

type response struct {
	ID           int    `json:"id"`
	Phase        string `json:"phase"`
	Output       string `json:"output,omitempty"`
	OutputBase64 string `json:"outputBase64,omitempty"`
	Error        string `json:"error,omitempty"`
}

// render mirrors upstream: template.New(name).Parse(s) with no Funcs and no
// Options (api/v1alpha1/clusterspiffeid_webhook.go, cmd/main.go), then
// Execute on a *templateData (pkg/spireentry/entries.go).
func render(req request) (res response) {
	res.ID = req.ID
	defer func() {
		// Execute re-panics runtime errors; upstream's process would crash.
		if r := recover(); r != nil {
			res = response{ID: req.ID, Phase: "panic", Error: fmt.Sprint(r)}
		}
	}()
	data, err := spireentry.Data(req.Data)
	if err != nil {
		return response{ID: req.ID, Phase: "data", Error: err.Error()}
	}
	tmpl, err := template.New(req.Name).Parse(req.Template)
	if err != nil {
		return response{ID: req.ID, Phase: "parse", Error: err.Error()}
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return response{ID: req.ID, Phase: "exec", Error: err.Error()}
	}
	res.Phase = "ok"
	if utf8.Valid(buf.Bytes()) {
		res.Output = buf.String()
	} else {
		res.OutputBase64 = base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	return res
}

// caseTimeout bounds one render: a template can loop for ages (range over
// a huge integer), and a test must fail rather than hang.
const caseTimeout = 20 * time.Second

func renderWithin(req request, limit time.Duration, out *bufio.Writer) response {
	done := make(chan response, 1)
	go func() { done <- render(req) }()
	select {
	case res := <-done:
		return res
	case <-time.After(limit):
		// The render cannot be stopped: report, after the answers before it, and exit.
		line, _ := json.Marshal(response{ID: req.ID, Phase: "timeout", Error: fmt.Sprintf("rendering took longer than %v", limit)})
		out.Write(append(line, '\n'))
		out.Flush()
		os.Exit(3)
		return response{}
	}
}

// ranges lists the code points above ASCII for which has holds, as [lo, hi] pairs.
func ranges(has func(rune) bool) [][2]rune {
	var out [][2]rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !has(r) {
			continue
		}
		if n := len(out); n > 0 && out[n-1][1] == r-1 {
			out[n-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out
}

// modules lists the versions of the Kubernetes modules the oracle was built with.
func modules() map[string]string {
	out := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "k8s.io/") {
				out[dep.Path] = dep.Version
			}
		}
	}
	return out
}

func tables() error {
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"go":      runtime.Version(),
		"unicode": unicode.Version,
		"print":   ranges(unicode.IsPrint),
		"letter":  ranges(unicode.IsLetter),
		"digit":   ranges(unicode.IsDigit),
	})
}

func serve() error {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if err := json.Unmarshal(line, &req); err != nil {
				return fmt.Errorf("bad request line: %w", err)
			}
			if err := enc.Encode(renderWithin(req, caseTimeout, out)); err != nil {
				return err
			}
		}
		// Answer a batch as soon as the input has none left waiting.
		if in.Buffered() == 0 || err != nil {
			if err := out.Flush(); err != nil {
				return err
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// memoryCap bounds the oracle: a case whose output or recursion grows without end
// (js of js of ..., deep self-invocation) once took 22 GB and made the machine swap.
// Past the cap the process exits, naming the cause, and the test reports it as such.
const memoryCap = 2 << 30

func watchMemory(limit uint64) {
	var m runtime.MemStats
	for range time.Tick(100 * time.Millisecond) {
		runtime.ReadMemStats(&m)
		if m.Sys > limit {
			fmt.Fprintf(os.Stderr, "go-oracle: over %d MiB of memory: a case grew without bound; stopping\n", limit>>20)
			os.Exit(3)
		}
	}
}

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "tables":
		err = tables()
	case len(os.Args) > 1 && os.Args[1] == "types":
		err = json.NewEncoder(os.Stdout).Encode(map[string]any{"go": runtime.Version(), "modules": modules(), "types": spireentry.Types()})
	default:
		go watchMemory(memoryCap)
		err = serve()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-oracle:", err)
		os.Exit(1)
	}
}
