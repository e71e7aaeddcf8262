// workload watches its X.509 SVIDs on the SPIRE agent's Workload API and keeps
// what it holds in a folder the e2e test reads:
//
//	svid.pem   the default SVID's certificate chain, replaced atomically on
//	           every update and removed when the agent says it has none
//	state.json {"spiffeIDs": [...], "updates": n, "error": "...", "at": "RFC 3339",
//	           "startedAt": "RFC 3339", "firstSVIDAt": "RFC 3339"}
//
// Until it first holds an SVID it asks every 200 ms rather than with
// go-spiffe's growing backoff, so the time from a pod's creation to its first
// SVID measures the controller and the agent, not the client's retry delay.
//
// The socket comes from SPIFFE_ENDPOINT_SOCKET, the folder from WORKLOAD_OUT.
package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spiffe/go-spiffe/v2/workloadapi"
)

type state struct {
	SpiffeIDs []string `json:"spiffeIDs"`
	Updates   int      `json:"updates"`
	Error     string   `json:"error,omitempty"`
	At        string   `json:"at"`
	Started   string   `json:"startedAt"`
	First     string   `json:"firstSVIDAt,omitempty"`
}

type writer struct {
	dir     string
	started string
	updates int
	first   string
	lastErr string
}

func (w *writer) write(name string, data []byte) {
	tmp := filepath.Join(w.dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		log.Printf("write %s: %v", name, err)
		return
	}
	if err := os.Rename(tmp, filepath.Join(w.dir, name)); err != nil {
		log.Printf("rename %s: %v", name, err)
	}
}

func (w *writer) state(s state) {
	s.Updates = w.updates
	s.At = time.Now().UTC().Format(time.RFC3339Nano)
	if w.first == "" && len(s.SpiffeIDs) > 0 {
		w.first = s.At
	}
	s.First = w.first
	s.Started = w.started
	if s.SpiffeIDs == nil {
		s.SpiffeIDs = []string{}
	}
	data, _ := json.Marshal(s)
	w.write("state.json", data)
}

// OnX509ContextUpdate is called with every set of SVIDs the agent sends.
func (w *writer) OnX509ContextUpdate(c *workloadapi.X509Context) {
	w.updates++
	w.lastErr = ""
	ids := make([]string, 0, len(c.SVIDs))
	for _, s := range c.SVIDs {
		ids = append(ids, s.ID.String())
	}
	if svid := c.DefaultSVID(); svid != nil {
		var chain []byte
		for _, cert := range svid.Certificates {
			chain = append(chain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})...)
		}
		w.write("svid.pem", chain)
	}
	w.state(state{SpiffeIDs: ids})
	log.Printf("update %d: %v", w.updates, ids)
}

// OnX509ContextWatchError is called when the agent refuses or the stream
// breaks; a workload with no entry gets "no identity issued", and holds none.
func (w *writer) OnX509ContextWatchError(err error) {
	if err.Error() == w.lastErr {
		return
	}
	w.lastErr = err.Error()
	w.updates++
	_ = os.Remove(filepath.Join(w.dir, "svid.pem"))
	w.state(state{Error: err.Error()})
	log.Printf("watch error: %v", err)
}

func main() {
	dir := os.Getenv("WORKLOAD_OUT")
	if dir == "" {
		log.Fatal("WORKLOAD_OUT is not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	w := &writer{dir: dir, started: time.Now().UTC().Format(time.RFC3339Nano)}
	w.state(state{Error: "not yet answered"})
	client, err := workloadapi.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	for ctx.Err() == nil {
		c, err := client.FetchX509Context(ctx)
		if err == nil {
			w.OnX509ContextUpdate(c)
			break
		}
		w.OnX509ContextWatchError(err)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := client.WatchX509Context(ctx, w); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
