// podprobe answers, from inside a pod, what the pod can reach: the e2e lane's
// test of its cluster (test/e2e/cluster.test.ts) asks it over HTTP.
//
//	GET /readyz        200 "ok" (its readiness probe)
//	GET /whoami        the API server called the in-cluster way: at
//	                   KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, trusting the
//	                   mounted service-account CA, with the mounted token; a
//	                   SelfSubjectReview says who the token is, /version what
//	                   answered. JSON: {"apiServer", "namespace", "user",
//	                   "version", "error"}
//	GET /fetch?url=U   GETs U from inside the pod. JSON: {"status", "body", "error"}
//
// With WEBHOOK_LISTEN, TLS_CERT and TLS_KEY set it also serves a validating
// admission webhook over TLS at POST /validate that denies every object it is
// asked about, naming the pod (POD_NAME, else its host name), so a test sees
// which pod the API server reached.
//
// It listens on LISTEN (default ":8080"). Test tooling, never part of the product.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

type whoami struct {
	APIServer string `json:"apiServer"`
	Namespace string `json:"namespace,omitempty"`
	User      string `json:"user,omitempty"`
	Version   string `json:"version,omitempty"`
	Error     string `json:"error,omitempty"`
}

// inCluster asks the API server who this pod's token is and what version it runs.
func inCluster() whoami {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	w := whoami{APIServer: net.JoinHostPort(host, port)}
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		w.Error = err.Error()
		return w
	}
	ca, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		w.Error = err.Error()
		return w
	}
	if ns, err := os.ReadFile(saDir + "/namespace"); err == nil {
		w.Namespace = string(ns)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		w.Error = "no certificate in ca.crt"
		return w
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	call := func(method, path string, body []byte, out any) error {
		req, err := http.NewRequest(method, "https://"+w.APIServer+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+string(token))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		if res.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, data)
		}
		return json.Unmarshal(data, out)
	}
	var review struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`), &review); err != nil {
		w.Error = err.Error()
		return w
	}
	w.User = review.Status.UserInfo.Username
	var version struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := call("GET", "/version", nil, &version); err != nil {
		w.Error = err.Error()
		return w
	}
	w.Version = version.GitVersion
	return w
}

type fetched struct {
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	Error  string `json:"error,omitempty"`
}

func fetch(url string) fetched {
	res, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		return fetched{Error: err.Error()}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return fetched{Status: res.StatusCode, Body: string(body)}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// validate answers an AdmissionReview: denied, by this pod.
func validate(w http.ResponseWriter, r *http.Request) {
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Request    struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	name := os.Getenv("POD_NAME")
	if name == "" {
		name, _ = os.Hostname()
	}
	writeJSON(w, map[string]any{
		"apiVersion": review.APIVersion,
		"kind":       review.Kind,
		"response": map[string]any{
			"uid":     review.Request.UID,
			"allowed": false,
			"status":  map[string]any{"code": 403, "message": "denied by podprobe in pod " + name},
		},
	})
}

func main() {
	listen := os.Getenv("LISTEN")
	if listen == "" {
		listen = ":8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, inCluster()) })
	mux.HandleFunc("GET /fetch", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, fetch(r.URL.Query().Get("url"))) })

	if addr := os.Getenv("WEBHOOK_LISTEN"); addr != "" {
		hooks := http.NewServeMux()
		hooks.HandleFunc("POST /validate", validate)
		go func() {
			log.Fatal((&http.Server{Addr: addr, Handler: hooks, ReadHeaderTimeout: 5 * time.Second}).ListenAndServeTLS(os.Getenv("TLS_CERT"), os.Getenv("TLS_KEY")))
		}()
	}
	log.Printf("podprobe listening on %s", listen)
	log.Fatal((&http.Server{Addr: listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}).ListenAndServe())
}
