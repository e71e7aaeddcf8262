// The e2e lane's small programs (test tooling, never part of the product):
// a workload that holds its X.509 SVID from the SPIRE agent's Workload API and
// writes what it holds where the test reads it, a pause program for the pod
// sandbox image, and podprobe, which says what a pod on the lane's pod
// network reaches. Built by scripts/e2e/images.sh into images from scratch.
module spire-reconciler/e2e-images

go 1.26

require github.com/spiffe/go-spiffe/v2 v2.6.0

require (
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/go-jose/go-jose/v4 v4.1.2 // indirect
	golang.org/x/crypto v0.39.0 // indirect
	golang.org/x/net v0.41.0 // indirect
	golang.org/x/sys v0.33.0 // indirect
	golang.org/x/text v0.26.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250707201910-8d1bb00bc6a7 // indirect
	google.golang.org/grpc v1.75.0 // indirect
	google.golang.org/protobuf v1.36.7 // indirect
)
