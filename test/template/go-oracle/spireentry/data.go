// Package spireentry holds the oracle's copy of spire-controller-manager's
// template data type. It lives in a package of that name so that Go prints
// its type as upstream's (`*spireentry.templateData`) in `%T` and in errors.
package spireentry

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "k8s.io/apimachinery/pkg/util/json"
)

// templateData mirrors upstream pkg/spireentry/entries.go (v0.6.6): the same
// field names, types and order.
type templateData struct {
	TrustDomain   string
	ClusterName   string
	ClusterDomain string
	PodMeta       *metav1.ObjectMeta
	PodSpec       *corev1.PodSpec
	NodeMeta      *metav1.ObjectMeta
	NodeSpec      *corev1.NodeSpec
}

// Input is the JSON our engine is given: the three strings, and the Kubernetes
// JSON of a pod's and a node's metadata and spec (null for a nil pointer).
type Input struct {
	TrustDomain   string          `json:"TrustDomain"`
	ClusterName   string          `json:"ClusterName"`
	ClusterDomain string          `json:"ClusterDomain"`
	PodMeta       json.RawMessage `json:"PodMeta"`
	PodSpec       json.RawMessage `json:"PodSpec"`
	NodeMeta      json.RawMessage `json:"NodeMeta"`
	NodeSpec      json.RawMessage `json:"NodeSpec"`
}

// decode reads one object the way client-go does (case-sensitive keys,
// sigs.k8s.io/json); null or absent stays a nil pointer.
func decode[T any](raw json.RawMessage) (*T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v := new(T)
	if err := kjson.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Data builds the value upstream passes to Execute: a *templateData.
func Data(in Input) (any, error) {
	podMeta, err := decode[metav1.ObjectMeta](in.PodMeta)
	if err != nil {
		return nil, err
	}
	podSpec, err := decode[corev1.PodSpec](in.PodSpec)
	if err != nil {
		return nil, err
	}
	nodeMeta, err := decode[metav1.ObjectMeta](in.NodeMeta)
	if err != nil {
		return nil, err
	}
	nodeSpec, err := decode[corev1.NodeSpec](in.NodeSpec)
	if err != nil {
		return nil, err
	}
	return &templateData{
		TrustDomain:   in.TrustDomain,
		ClusterName:   in.ClusterName,
		ClusterDomain: in.ClusterDomain,
		PodMeta:       podMeta,
		PodSpec:       podSpec,
		NodeMeta:      nodeMeta,
		NodeSpec:      nodeSpec,
	}, nil
}
